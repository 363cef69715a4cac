#!/usr/bin/env python3
"""make test's check of the documentation (README.md, CHANGELOG.md, docs/*.md, Examples/*/README.md).

1. README.md fits a screen or two: at most 300 lines (the manual is in docs/).
2. Every relative Markdown link points at a file or folder that exists, and a `#fragment`
   names a heading of the Markdown file it points at (GitHub's anchors).
3. Every block marked `<!-- quoted from PATH -->` (the fenced block right after the marker)
   appears verbatim in PATH, so quoted code cannot drift from the code it quotes.
4. Source comments (Sources/, Tests/, scripts/, Plugins/) cite the repository's own documents: a
   `docs/NAME.md` they name exists, and so does the heading they name with it (`#anchor`, or
   `docs/NAME.md, "Heading"`); none cites a document outside the repository (SPEC §N).
"""
import glob, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 300
failures = []

def fail(message):
    failures.append(message)
    print("check-markdown: FAILED: " + message, file=sys.stderr)

def documents():
    paths = ["README.md", "CHANGELOG.md"] + sorted(glob.glob("docs/*.md", root_dir=ROOT)) + sorted(glob.glob("Examples/*/README.md", root_dir=ROOT))
    for path in paths:
        if not os.path.isfile(os.path.join(ROOT, path)):
            fail(f"{path} is missing")
    return [path for path in paths if os.path.isfile(os.path.join(ROOT, path))]

FENCE = re.compile(r"^ {0,3}(```|~~~)")

def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code spans blanked out."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)

def slug(heading):
    """GitHub's anchor for a heading: lower-cased, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")

anchor_cache = {}

def anchors(path):
    if path not in anchor_cache:
        text = open(path, encoding="utf-8").read()
        seen, found = {}, set()
        fenced = False
        for line in text.split("\n"):
            if FENCE.match(line):
                fenced = not fenced
                continue
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading and not fenced:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        anchor_cache[path] = found
    return anchor_cache[path]

LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)")

def check_links(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    count = 0
    for number, line in prose_lines(text):
        for match in LINK.finditer(line):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto: …
            count += 1
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(path), file_part)) if file_part else os.path.join(ROOT, path)
            where = f"{path}:{number}: link ({target})"
            if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
                fail(f"{where} leaves the repository")
            elif not os.path.exists(resolved):
                fail(f"{where} points at {os.path.relpath(resolved, ROOT)}, which does not exist")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                fail(f"{where}: {os.path.relpath(resolved, ROOT)} has no heading whose anchor is #{fragment}")
    return count

QUOTE = re.compile(r"<!-- quoted from (\S+) -->\n(```|~~~)[^\n]*\n(.*?)^\2[ \t]*$", re.S | re.M)

def check_quotes(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    markers = text.count("<!-- quoted from ")
    quotes = QUOTE.findall(text)
    if len(quotes) != markers:
        fail(f"{path}: {markers} '<!-- quoted from PATH -->' markers but {len(quotes)} fenced blocks right after one (a marker must be followed by its block on the next line)")
    for source, _, block in quotes:
        source_path = os.path.join(ROOT, source)
        if not os.path.isfile(source_path):
            fail(f"{path}: a block is quoted from {source}, which does not exist")
        elif block not in open(source_path, encoding="utf-8").read():
            fail(f"{path}: the block quoted from {source} is not in that file verbatim:\n{block}")
    return len(quotes)

SOURCE_DOC = re.compile(r"\b((?:docs|Examples/[\w.-]+)/[\w./-]*\.md)(?:#([\w-]+)|, \"([^\"]+)\")?")

def check_source_citations():
    count = 0
    files = [os.path.join(folder, name) for top in ("Sources", "Tests", "scripts", "Plugins")
             for folder, _, names in os.walk(os.path.join(ROOT, top)) for name in names
             if name.endswith((".swift", ".py", ".sh"))]
    for source in sorted(files):
        relative = os.path.relpath(source, ROOT)
        for number, line in enumerate(open(source, encoding="utf-8").read().split("\n"), 1):
            if relative == "scripts/check-markdown.py":
                break
            if re.search(r"\bSPEC §", line):
                fail(f"{relative}:{number}: cites SPEC, a document outside the repository: cite docs/ instead")
            for match in SOURCE_DOC.finditer(line):
                count += 1
                path, anchor, heading = match.groups()
                resolved = os.path.join(ROOT, path)
                if not os.path.isfile(resolved):
                    fail(f"{relative}:{number}: names {path}, which does not exist")
                elif (anchor or heading) and (anchor or slug(heading)) not in anchors(resolved):
                    fail(f"{relative}:{number}: {path} has no heading {'#' + anchor if anchor else repr(heading)}")
    return count

def main():
    paths = documents()
    readme_lines = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().count("\n")
    if readme_lines > README_MAX_LINES:
        fail(f"README.md has {readme_lines} lines, more than {README_MAX_LINES}: move the detail to docs/")
    links = sum(check_links(path) for path in paths)
    quotes = sum(check_quotes(path) for path in paths)
    citations = check_source_citations()
    if quotes == 0:
        fail("no document quotes a file: the quoted snippets' markers are gone")
    if failures:
        return 1
    print(f"docs: README.md {readme_lines} lines (at most {README_MAX_LINES}), {links} relative links resolve "
          f"in {len(paths)} files, {quotes} quoted blocks verbatim, {citations} docs/ citations in source comments resolve")
    return 0

sys.exit(main())
