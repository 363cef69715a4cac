#!/usr/bin/env python3
"""make check-example (CI runs it after make test): Examples/DemoApp, the app that adopts seedkit.

1. `swift build` of the example (which builds seedkit's libraries and the CLI for SeedkitPlugin)
   prints no warnings.
2. The app's output (first launch, second launch, a new migration, refused stores, GRDB
   interop) is exactly Examples/DemoApp/expected-output.txt.
3. Once the build has settled, a `swift build` with no input changed does not run the plugin's
   commands again.
4. A broken fixture fails the build with the CLI's `file:line:col: error:` line, by absolute
   path (what Xcode and editors attribute to the line), and nothing else changes for good: the
   fixture is put back before the next build.
5. The command plugin (`swift package seedkit …`) runs the CLI in the package: build and
   check-upgrade succeed, a seedkit error fails it naming seedkit's status, and without
   --allow-writing-to-package-directory SwiftPM refuses (it cannot prompt here).
6. With SEEDKIT_ARTIFACTBUNDLE naming build/seedkit.artifactbundle (`make artifactbundle`, which
   `make check-example` runs first), a fresh build of the example, in a scratch folder, compiles
   no part of the seedkit CLI (no SeedTooling, SeedkitCLI, Yams or ArgumentParser: the plugins
   run the bundle's binary through SwiftPM's binaryTarget), and the app's output is the same.
   Its build time and the bundle's size are printed.

The snippets README.md and docs/*.md quote from the example (`<!-- quoted from PATH -->`) are
checked verbatim by scripts/check-markdown.py, which make test runs before this.
"""
import os, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "Examples", "DemoApp")
SWIFT = os.environ.get("SWIFT", "swift")
failures = []

def fail(message):
    failures.append(message)
    print("check-example: FAILED: " + message, file=sys.stderr)

def build():
    result = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE], capture_output=True, text=True)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        fail("swift build of Examples/DemoApp failed:\n" + output[-4000:])
    return output

def check_build_error_is_a_diagnostic():
    fixture = os.path.join(EXAMPLE, "Sources", "DemoApp", "seeds", "data", "books.csv")
    with open(fixture, "rb") as file:
        original = file.read()
    broken = original.replace(b"\nThe first book,10,", b"\nThe first book,-10,")
    if broken == original:
        return fail("Examples/DemoApp's books.csv has no 'The first book,10,' line to break")
    try:
        with open(fixture, "wb") as file:
            file.write(broken)
        result = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE], capture_output=True, text=True)
    finally:
        with open(fixture, "wb") as file:
            file.write(original)
    output = result.stdout + result.stderr
    expected = f"{fixture}:2:2: error: price -10 is less than the minimum 0 [1620]"
    if result.returncode == 0 or expected not in output.splitlines():
        fail(f"a broken fixture should fail the example's build (exit {result.returncode}) with the line\n{expected}\n"
             + output[-3000:])

def check_command_plugin():
    project = ["--manifest", "Sources/DemoApp/seeds/seedkit.yml", "--migrations", "Sources/DemoApp/migrations"]
    def package(*arguments):
        result = subprocess.run([SWIFT, "package", "--package-path", EXAMPLE, *arguments], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        return result.returncode, result.stdout + result.stderr
    with tempfile.TemporaryDirectory(prefix="seedkit-command-plugin-") as folder:
        seed = os.path.join(folder, "seed.sqlite")
        status, output = package("--allow-writing-to-package-directory", "seedkit", "build", *project, "--output", seed)
        if status != 0 or f"built {seed}: 2 tables, 6 rows" not in output:
            fail(f"swift package seedkit build exited {status}:\n{output[-3000:]}")
        status, output = package("--allow-writing-to-package-directory", "seedkit", "check-upgrade", seed, *project)
        if status != 0 or f"{seed}: " not in output or "converges with a fresh build" not in output or "1 old seed converges" not in output:
            fail(f"swift package seedkit check-upgrade exited {status}:\n{output[-3000:]}")
        status, output = package("seedkit", "check-upgrade", seed, *project)
        if status == 0 or "wants permission to write to the package directory" not in output:
            fail(f"swift package seedkit without --allow-writing-to-package-directory exited {status}, without SwiftPM's refusal:\n{output[-3000:]}")
    status, output = package("--allow-writing-to-package-directory", "seedkit", "build", "--manifest", "Sources/DemoApp/seeds/missing.yml")
    lines = output.splitlines()
    named = [line for line in lines if line.startswith("Sources/DemoApp/seeds/missing.yml: error: ") and line.endswith("[2100]")]
    if status != 1 or len(named) != 1 or lines.count("error: seedkit build exited with status 2") != 1 or output.count("exited with status") != 1:
        fail(f"swift package seedkit build with a missing manifest exited {status}; expected seedkit's error once and "
             f"'error: seedkit build exited with status 2' once:\n{output[-3000:]}")

def check_app_output(binary, what):
    """Runs the app built in `binary` (a bin folder) and compares its output with expected-output.txt."""
    run = subprocess.run([os.path.join(binary, "DemoApp")], capture_output=True, text=True)
    actual = run.stdout.replace(os.path.join(binary, "DemoApp_DemoApp.resources"), "$RESOURCES")
    # The app's folder is a temporary one named after its process: errors name the store in it.
    actual = re.sub(r"/\S*/DemoApp-[0-9]+/", "$APP/", actual)
    expected = open(os.path.join(EXAMPLE, "expected-output.txt"), encoding="utf-8").read()
    if run.returncode != 0 or actual != expected:
        fail(f"{what} exited {run.returncode}; its output differs from expected-output.txt:\n{actual}{run.stderr}")

# What compiling the seedkit CLI prints that an app linking only SeedRuntime never needs.
CLI_MODULES = re.compile(r"Compiling (SeedTooling|SeedkitCLI|seedkit|Yams|CYaml|ArgumentParser\w*) ")

def check_artifactbundle():
    bundle = os.path.join(ROOT, "build", "seedkit.artifactbundle")
    if not os.path.isfile(os.path.join(bundle, "info.json")):
        fail(f"no {bundle}/info.json: make artifactbundle writes it (make check-example runs it first)")
        return ""
    size = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(bundle) for name in names)
    with tempfile.TemporaryDirectory(prefix="seedkit-artifactbundle-") as scratch:
        environment = dict(os.environ, SEEDKIT_ARTIFACTBUNDLE=bundle)
        started = time.monotonic()
        result = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE, "--scratch-path", scratch],
                                capture_output=True, text=True, env=environment)
        seconds = time.monotonic() - started
        output = result.stdout + result.stderr
        if result.returncode != 0:
            fail("swift build of Examples/DemoApp with SEEDKIT_ARTIFACTBUNDLE failed:\n" + output[-4000:])
            return ""
        compiled = sorted({match.group(1) for match in CLI_MODULES.finditer(output)})
        if compiled:
            fail("with SEEDKIT_ARTIFACTBUNDLE the example's build still compiled " + ", ".join(compiled) + ":\n" + output[-3000:])
        if "seedkit build DemoApp" not in output:
            fail("with SEEDKIT_ARTIFACTBUNDLE the example's build did not run the plugin's seedkit build:\n" + output[-3000:])
        check_app_output(os.path.realpath(os.path.join(scratch, "debug")), "DemoApp built with the artifact bundle")
    return (f"with the artifact bundle ({size / 1e6:.0f} MB) a fresh build took {seconds:.0f} s "
            "and compiled none of the CLI")

def main():
    # SwiftPM keeps the example's build plan until its Package.swift changes: seedkit source
    # files added or removed since the last build (after a rebase) and changes to Plugins/ would
    # otherwise go unseen ("cannot find 'BusyTimeout' in scope", the plugin's old arguments).
    os.utime(os.path.join(EXAMPLE, "Package.swift"))
    output = build()
    warnings = sorted({line for line in output.splitlines() if "warning:" in line})
    if warnings:
        fail("swift build of Examples/DemoApp printed warnings:\n" + "\n".join(warnings))
    if failures:
        return 1
    check_build_error_is_a_diagnostic()
    check_command_plugin()
    # On a fresh clone SwiftPM relinks the plugin's seedkit tool once more on the second build
    # (it recompiles Yams' C sources), which re-runs the commands that use it; from then on an
    # unchanged build must run nothing.
    build()
    again = build()
    if "seedkit build DemoApp" in again or "seedkit export-migrations DemoApp" in again:
        fail("a second build with unchanged seeds/ and migrations/ ran the plugin's commands again")
    binary = subprocess.run([SWIFT, "build", "--package-path", EXAMPLE, "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    check_app_output(binary, "DemoApp")
    if failures:
        return 1
    bundle = check_artifactbundle()
    if failures:
        return 1
    print(f"Examples/DemoApp: built without warnings, output as expected, no rebuild when unchanged, "
          "a broken fixture is an error at its absolute file:line:col, the command plugin builds, checks and fails as seedkit does; "
          + bundle)
    return 0

sys.exit(main())
