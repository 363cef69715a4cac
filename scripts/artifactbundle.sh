#!/usr/bin/env bash
# make artifactbundle: lays out BINARY (the release CLI make artifactbundle has just built) as BUNDLE,
# the artifact bundle SwiftPM's binaryTarget reads (SE-0305: info.json names each executable and
# the target triples it runs on), stripped, and zips it as BUNDLE.zip, printing the SHA-256 that
# binaryTarget(url:checksum:) asks for (what `swift package compute-checksum` prints).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1
bundle=$2
case "$bundle" in -*) echo "artifactbundle: '$bundle' starts with '-': give a path" >&2; exit 2 ;; esac
[ -x "$binary" ] || { echo "artifactbundle: no executable at $binary" >&2; exit 1; }
version=$("$binary" --version)
triple=$(swift -print-target-info | sed -n 's/^ *"unversionedTriple": "\(.*\)",*$/\1/p' | head -n 1)
[ -n "$triple" ] || { echo "artifactbundle: swift -print-target-info names no target triple" >&2; exit 1; }
variant="seedkit-$version-$triple"
rm -rf "$bundle" "$bundle.zip"
mkdir -p "$bundle/$variant/bin"
install -m 755 -s "$binary" "$bundle/$variant/bin/seedkit"
cat > "$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "seedkit": {
      "version": "$version",
      "type": "executable",
      "variants": [{ "path": "$variant/bin/seedkit", "supportedTriples": ["$triple"] }]
    }
  }
}
JSON
(cd "$(dirname "$bundle")" && zip -q -r -X "$(basename "$bundle").zip" "$(basename "$bundle")")
if command -v sha256sum > /dev/null; then sum=$(sha256sum "$bundle.zip"); else sum=$(shasum -a 256 "$bundle.zip"); fi
echo "wrote $bundle ($(du -sh "$bundle" | cut -f1), seedkit $version for $triple) and $bundle.zip, checksum ${sum%% *}"
