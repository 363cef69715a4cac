#!/usr/bin/env bash
# make test-slow: the CI workflow `seedkit init` writes, run here step by step, in order, as GitHub
# Actions runs it (`shell: bash` is `bash --noprofile --norc -eo pipefail`), in a scratch app: a
# package that links SeedRuntime from a git URL ending in `seedkit` (a clone of this checkout's
# HEAD, so commit first), with the layout `seedkit init` writes. Three differences, said here:
# the install goes to a scratch PREFIX instead of /usr/local (put first on PATH, as /usr/local/bin
# is in the container), apt-get runs as written only as root (otherwise the packages it names
# must already be installed), and the cache step (a `uses:`) is not run: the second run of the
# workflow finds the CLI the first installed, as a cache hit would. Then a release: ship 1.0, change a fixture, new-migration, and the
# whole workflow again, whose review step must show the change in the job summary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/seedkit-workflow.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "check-workflow: FAILED: $*" >&2; exit 1; }

git clone -q "$root" "$work/src/seedkit"
git -C "$work/src/seedkit" checkout -q -B workflow-under-test
app="$work/app"
mkdir -p "$app/Sources/App"
cat > "$app/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(url: "$work/src/seedkit", branch: "workflow-under-test")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "SeedRuntime", package: "seedkit")])]
)
EOF
echo 'import SeedRuntime' > "$app/Sources/App/main.swift"
"$root/.build/debug/seedkit" init "$app" > /dev/null || fail "seedkit init $app exited non-zero"
workflow="$app/.github/workflows/seedkit.yml"

# Each step's script, in order, into $2: the lines under `run: |`, or a one-line `run:`; the
# install goes to $prefix, and apt-get is skipped when not root.
prefix="$work/usr"
extract_steps() {
  mkdir "$2"
  python3 - "$1" "$2" <<'EOF'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
name, count, i = None, 0, 0
while i < len(lines):
    line = lines[i]
    step = re.match(r"^      - (?:name|uses): (.*)$", line)
    if step:
        name = step.group(1)
    block = re.match(r"^        run: \|$", line)
    single = re.match(r"^        run: (.+)$", line)
    if block or single:
        if block:
            body = []
            while i + 1 < len(lines) and (lines[i + 1].startswith(" " * 10) or lines[i + 1] == ""):
                i += 1
                body.append(lines[i][10:])
            script = "\n".join(body).rstrip("\n") + "\n"
        else:
            script = single.group(1) + "\n"
        count += 1
        with open(f"{sys.argv[2]}/{count:02d}", "w", encoding="utf-8") as out:
            out.write(f"# {name}\n{script}")
    i += 1
if count == 0:
    sys.exit("no run: steps in " + sys.argv[1])
EOF
  grep -q "PREFIX=/usr/local" "$2"/* || fail "no step installs with PREFIX=/usr/local"
  sed -i "s#/usr/local#$prefix#g" "$2"/*
  if [ "$(id -u)" -ne 0 ]; then
    # Not root: the packages apt-get would install must be here already.
    packages=$(grep -ho 'apt-get install -y -qq .*' "$2"/* | sed 's/apt-get install -y -qq //')
    for package in $packages; do dpkg -s "$package" > /dev/null 2>&1 || fail "not root, and $package (which the workflow installs) is not installed"; done
    sed -i 's#^apt-get update.*#: apt-get skipped: not root#' "$2"/*
  fi
}
extract_steps "$workflow" "$work/steps"

summary="$work/summary.md"
# Runs the steps in $2 (default: the app's) in the project $1 (default: the app), with the
# workflow's env: SEEDKIT_GIT_URL as the caller's environment gives it, else empty.
run_workflow() {
  : > "$summary"
  : > "$work/workflow.log"
  for step in "${2:-$work/steps}"/*; do
    (cd "${1:-$app}" && env PATH="$prefix/bin:$PATH" GITHUB_STEP_SUMMARY="$summary" SEEDKIT_GIT_URL="${SEEDKIT_GIT_URL:-}" \
      bash --noprofile --norc -eo pipefail "$step") \
      > "$work/step.log" 2>&1 || { cat "$work/step.log"; fail "the step '$(head -n 1 "$step" | cut -c3-)' exited non-zero"; }
    cat "$work/step.log" >> "$work/workflow.log"
  done
}

run_workflow
[ -x "$prefix/bin/seedkit" ] || fail "the install step wrote no $prefix/bin/seedkit"
grep -qx "no shipped seed to compare with yet" "$summary" || fail "the review step did not say that no seed has shipped: $(cat "$summary")"

# A release: 1.0 ships, a fixture changes, its migration is written; the workflow runs again.
seedkit="$prefix/bin/seedkit"
(cd "$app" && cp build/seed.sqlite seeds/releases/1.0.sqlite \
  && printf 'name,quantity\nFirst item,1\nSecond item,5\n' > seeds/data/items.csv \
  && "$seedkit" new-migration release-1-1 --from seeds/releases/1.0.sqlite > /dev/null) || fail "the release with the installed seedkit failed"
run_workflow
grep -q "^seedkit .*, from the cache$" "$work/workflow.log" || fail "the second run did not take seedkit from the cache: $(cat "$work/workflow.log")"
grep -q "^| items | changed | Second item | quantity | 2 | 5 |$" "$summary" || fail "the review step's summary lacks the change: $(cat "$summary")"
grep -q "^would apply 0001-release-1-1: 1 updated$" "$summary" || fail "the review step's summary lacks the migration's plan: $(cat "$summary")"

# A project `seedkit init` made on its own, not in a Swift package: the install step says what to
# set; with SEEDKIT_GIT_URL set (here to the clone) the whole workflow passes.
bare="$work/bookshop"
"$root/.build/debug/seedkit" init "$bare" > "$work/init.log" || fail "seedkit init $bare exited non-zero"
grep -q "SEEDKIT_GIT_URL" "$work/init.log" || fail "init's next: lines do not say to set SEEDKIT_GIT_URL: $(cat "$work/init.log")"
extract_steps "$bare/.github/workflows/seedkit.yml" "$work/bare-steps"
install=$(grep -l "make -C" "$work"/bare-steps/* | head -n 1)
rm -rf "$prefix"  # a runner whose cache has no seedkit yet
if (cd "$bare" && env SEEDKIT_GIT_URL= bash --noprofile --norc -eo pipefail "$install") > "$work/step.log" 2>&1; then
  fail "the install step passed in a project that is not a Swift package, without SEEDKIT_GIT_URL"
fi
grep -q "^::error::this repository is not a Swift package: set SEEDKIT_GIT_URL" "$work/step.log" \
  || fail "the install step's error does not say to set SEEDKIT_GIT_URL: $(cat "$work/step.log")"
SEEDKIT_GIT_URL="$work/src/seedkit" run_workflow "$bare" "$work/bare-steps"
[ -x "$prefix/bin/seedkit" ] || fail "the install step wrote no $prefix/bin/seedkit from SEEDKIT_GIT_URL"
echo "the CI workflow seedkit init writes: its $(ls "$work/steps" | wc -l) run: steps pass in order, before and after a release, in an app's package and (SEEDKIT_GIT_URL set) in a project of its own"
