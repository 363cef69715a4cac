#!/usr/bin/env bash
# make test: builds the SeedRuntime DocC catalog with the toolchain's own docc, failing on any
# warning. Symbol graphs come from the module `swift build` just wrote (no extra build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(${SWIFT:-swift} build --show-bin-path)
out=build/docs
rm -rf "$out" && mkdir -p "$out/symbol-graphs"
swift-symbolgraph-extract -module-name SeedRuntime -I "$bin/Modules" -I .build/checkouts/GRDB.swift/Sources/GRDBSQLite -I Sources/CLibCrypto \
  -target "$(uname -m)-unknown-linux-gnu" -output-dir "$out/symbol-graphs" -minimum-access-level public -emit-extension-block-symbols
docc convert Sources/SeedRuntime/SeedRuntime.docc --additional-symbol-graph-dir "$out/symbol-graphs" \
  --output-path "$out/SeedRuntime.doccarchive" --warnings-as-errors \
  --fallback-display-name SeedRuntime --fallback-bundle-identifier seedkit.SeedRuntime > "$out/docc.log" 2>&1 \
  || { cat "$out/docc.log"; echo "check-docs: docc reported problems"; exit 1; }
echo "SeedRuntime DocC: built without warnings ($out/SeedRuntime.doccarchive)"
