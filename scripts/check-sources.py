#!/usr/bin/env python3
"""make test's house rules for the Swift sources (Sources/, Tests/, Plugins/):

1. No file in Sources/ is over 600 lines: a type that grows past that is split by concern into
   extensions in files of their own (`UpgradeChecker+SimulatedUser.swift`), as swift-collections
   lays out its types.
2. No `try!`, and no `fatalError(` outside a comment, in Sources/: library and CLI code must not
   crash on anything a file can influence (errors carry a code and an exit status instead).
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 600
failures = []

def swift_files(top):
    for folder, _, names in os.walk(os.path.join(ROOT, top)):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(folder, name)

count = 0
for path in swift_files("Sources"):
    count += 1
    relative = os.path.relpath(path, ROOT)
    lines = open(path, encoding="utf-8").read().split("\n")
    if len(lines) - 1 > MAX_LINES:
        failures.append(f"{relative}: {len(lines) - 1} lines, more than {MAX_LINES}: split it by concern into extensions in files of their own")
    for number, line in enumerate(lines, 1):
        code = line.split("//", 1)[0]
        if re.search(r"\btry!", code) or re.search(r"\bfatalError\(", code):
            failures.append(f"{relative}:{number}: try! or fatalError in Sources: throw an error with a code instead")

for failure in failures:
    print("check-sources: FAILED: " + failure, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"sources: {count} files in Sources/, none over {MAX_LINES} lines, no try! or fatalError")
