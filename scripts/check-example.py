#!/usr/bin/env python3
"""make test's check of Examples/DemoApp, the app that adopts seedkit.

1. Every README block marked `<!-- quoted from PATH -->` appears verbatim in PATH.
2. `swift build` of the example (which builds seedkit's libraries and the CLI for SeedkitPlugin)
   prints no warnings.
3. The app's output (first launch, second launch, a new migration, refused stores, GRDB
   interop) is exactly Examples/DemoApp/expected-output.txt.
4. Once the build has settled, a `swift build` with no input changed does not run the plugin's
   commands again.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "Examples", "DemoApp")
SWIFT = os.environ.get("SWIFT", "swift")
failures = []

def fail(message):
    failures.append(message)
    print("check-example: FAILED: " + message, file=sys.stderr)

def check_readme_quotes():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    quotes = re.findall(r"<!-- quoted from (\S+) -->\n```swift\n(.*?)```", readme, re.S)
    if not quotes:
        fail("README quotes no example file")
    for path, block in quotes:
        source = open(os.path.join(ROOT, path), encoding="utf-8").read()
        if block not in source:
            fail(f"README's block quoted from {path} is not in that file verbatim:\n{block}")
    return len(quotes)

def build():
    result = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE], capture_output=True, text=True)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        fail("swift build of Examples/DemoApp failed:\n" + output[-4000:])
    return output

def main():
    quotes = check_readme_quotes()
    output = build()
    warnings = sorted({line for line in output.splitlines() if "warning:" in line})
    if warnings:
        fail("swift build of Examples/DemoApp printed warnings:\n" + "\n".join(warnings))
    if failures:
        return 1
    # On a fresh clone SwiftPM relinks the plugin's seedkit tool once more on the second build
    # (it recompiles Yams' C sources), which re-runs the commands that use it; from then on an
    # unchanged build must run nothing.
    build()
    again = build()
    if "seedkit build DemoApp" in again or "seedkit export-migrations DemoApp" in again:
        fail("a second build with unchanged seeds/ and migrations/ ran the plugin's commands again")
    binary = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE, "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    run = subprocess.run([os.path.join(binary, "DemoApp")], capture_output=True, text=True)
    actual = run.stdout.replace(os.path.join(binary, "DemoApp_DemoApp.resources"), "$RESOURCES")
    # The app's folder is a temporary one named after its process: errors name the store in it.
    actual = re.sub(r"/\S*/DemoApp-[0-9]+/", "$APP/", actual)
    expected = open(os.path.join(EXAMPLE, "expected-output.txt"), encoding="utf-8").read()
    if run.returncode != 0 or actual != expected:
        fail(f"DemoApp exited {run.returncode}; its output differs from expected-output.txt:\n{actual}{run.stderr}")
    if failures:
        return 1
    print(f"Examples/DemoApp: built without warnings, {quotes} README snippets verbatim, output as expected, no rebuild when unchanged")
    return 0

sys.exit(main())
