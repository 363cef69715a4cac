#!/usr/bin/env python3
"""The tests tagged `.slow`, as the regular expression `swift test --filter` and `--skip` take.

Swift Testing's command line filters by test name, not by tag: `make test` skips the tests this
prints and `make test-slow` runs only them (CI runs both). A slow test is one whose `@Test`
attribute has the `.slow` tag, on the line of its `func`:

    @Test(.tags(.slow)) func aKilledMigrationLeavesAllOrNothing() throws {

A `.slow` tag anywhere else (a suite, an attribute over several lines) fails here, with its
place: it would be neither skipped nor run alone.

    python3 scripts/slow-tests.py           # (name1|name2|…)\\(
    python3 scripts/slow-tests.py --list    # one name a line
    python3 scripts/slow-tests.py --count   # how many
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLOW = re.compile(r"\.slow\b")
TAGGED = re.compile(r"@Test\(.*\.slow\b.*\)\s*func\s+(\w+)\s*\(")


def slow_tests():
    names, problems = [], []
    for folder, _, files in os.walk(os.path.join(ROOT, "Tests")):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if not SLOW.search(line) or line.lstrip().startswith("//"):
                        continue
                    match = TAGGED.search(line)
                    if match:
                        names.append(match.group(1))
                    else:
                        problems.append(f"{os.path.relpath(path, ROOT)}:{number}: a .slow tag not on its @Test func's line")
    if problems:
        sys.exit("slow-tests: " + "\n".join(problems))
    if not names:
        sys.exit("slow-tests: no test is tagged .slow")
    if len(set(names)) != len(names):
        sys.exit("slow-tests: two slow tests share a name: " + ", ".join(sorted({n for n in names if names.count(n) > 1})))
    return sorted(names)


if __name__ == "__main__":
    names = slow_tests()
    if "--count" in sys.argv:
        print(len(names))
    else:
        print("\n".join(names) if "--list" in sys.argv else "(" + "|".join(names) + ")\\(")
