#!/usr/bin/env python3
"""The documentation's own test (`make test` runs it first): what README.md
and docs/*.md point at exists, and the README stays a front door.

Checks, each problem printed as `file:line: what`, exit 1 if any:

- links: every relative Markdown link `[text](path#anchor)` resolves, from
  the linking file's folder, to a file or folder; with an anchor into a
  Markdown file, that file has a heading with that GitHub slug. Links to
  other sites (`https:`, `mailto:`) are not fetched.
- paths: every inline code span that looks like a path of this repository
  names something that exists. Paths in code spans are written from the
  repository root. A span counts as a path when it holds no spaces and
  contains a `/`, and either ends with `/` or its last part has an
  extension (`scripts/dev.sh`, `crates/store/src/db/`). Not paths: URL paths
  (`/api/v1/...`), URLs, placeholders and globs (`<...>`, `{...}`, `*`),
  what scripts and builds make at run time (`.local/`, `.venv/`, ...),
  and Gitea's source files the text quotes (`services/webhook/...`).
  Fenced code blocks are examples to run, not checked; the map's own
  names are checked as the map (below).
- the map: README.md's section "The map" names every `.rs` file under
  `shared/src/` and `functions/*/src/`, and nothing that is missing. Only
  its tables count, by the code spans in each row's first cell. A row that
  starts with a bold code span ending in `/` (**`crates/store/src/db/`**) names
  a folder, from the repository root; the rest of its first cell, and the
  first cells of the rows below it, name files in that folder. A heading
  starts again from the repository root. A name with `*` is a glob that
  must match something.
- size: README.md has at most 400 lines.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Written in another change; remove this line once docs/architecture.md is
# in the repository.
MAY_BE_MISSING: set = set()

README_MAX_LINES = 400
MAP_HEADING = "The map"
# Code the map must name, as globs from the repository root.
MAPPED = ["crates/*/src/**/*.rs", "shared/src/**/*.rs", "functions/*/src/**/*.rs"]
# Made by scripts, builds and tools, never in a checkout.
RUNTIME = (".local/", ".venv/", ".aws-sam/", "target/", ".git/", "node_modules/")
# Gitea's source tree, which the documents quote as the reference for a
# behaviour; no such folders here.
FOREIGN = ("services/", "routers/", "modules/", "models/")

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def documents():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def rel(path):
    return path.relative_to(ROOT).as_posix()


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: its text, lower-cased, without
    punctuation (hyphens and underscores stay), spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


_anchors = {}
# README.md's map rows (line numbers), whose names the map check resolves.
MAP_ROWS = set()


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        for _, line in prose_lines(path.read_text()):
            found.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def exists(path):
    """Whether a repository path (from the root) exists, or is the allowed
    exception."""
    return rel_or_none(path) in MAY_BE_MISSING or path.exists()


def rel_or_none(path):
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None


def check_links(doc, number, line, problems):
    bare = CODE_SPAN.sub("", line)  # `[x](y)` inside code is not a link
    for _, target in LINK.findall(bare):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # another site (https:, mailto:)
        file, _, anchor = target.partition("#")
        file = file.split("?")[0]
        path = (doc.parent / file).resolve() if file else doc
        where = f"{rel(doc)}:{number}"
        if rel_or_none(path) is None:
            problems.append(f"{where}: link {target} leaves the repository")
        elif not exists(path):
            problems.append(f"{where}: link {target}: no such file")
        elif anchor and path.suffix == ".md" and path.exists():
            if anchor not in anchors(path):
                problems.append(f"{where}: link {target}: {rel(path)} has no heading #{anchor}")


def looks_like_path(span):
    if re.search(r"\s", span) or "/" not in span:
        return False
    if span.startswith(("/", "~")) or "://" in span:
        return False  # URL paths, home folders, URLs
    if re.search(r"[<>{}*?$…=:,;|()\[\]@'\"\\]|\.\.\.", span):
        return False  # placeholders, globs, shell, prose
    if span.startswith(RUNTIME + FOREIGN):
        return False
    return span.endswith("/") or bool(re.search(r"\.[A-Za-z0-9]+$", span.rsplit("/", 1)[-1]))


def check_paths(doc, number, line, problems):
    if doc.name == "README.md" and number in MAP_ROWS:
        line = line.strip().strip("|").split("|", 1)[-1]  # the map checks the first cell
    for _, span in CODE_SPAN.findall(line):
        span = span.strip()
        path = span.split("#", 1)[0]
        if not looks_like_path(path):
            continue
        # A path out of the checkout would hold only on machines that
        # happen to have it there.
        if rel_or_none(ROOT / path) is None:
            problems.append(f"{rel(doc)}:{number}: `{span}`: leaves the repository")
        elif not exists(ROOT / path):
            problems.append(f"{rel(doc)}:{number}: `{span}`: no such file or folder")


def map_names(readme, problems):
    """Every file README.md's map names, as repository paths."""
    named, folder, inside, tables = set(), "", False, 0
    for number, line in prose_lines(readme.read_text()):
        m = HEADING.match(line)
        if m:
            if len(m.group(1)) <= 2:
                inside = m.group(2).strip() == MAP_HEADING
            folder = ""
            continue
        if not inside or not line.lstrip().startswith("|"):
            continue
        tables += 1
        MAP_ROWS.add(number)
        first = line.strip().strip("|").split("|")[0].strip()
        spans = [s.strip() for _, s in CODE_SPAN.findall(first)]
        if first.startswith("**`") and spans and spans[0].endswith("/"):
            folder, spans = spans[0], spans[1:]
            if not (ROOT / folder).is_dir():
                problems.append(f"README.md:{number}: map folder `{folder}`: no such folder")
        for span in spans:
            path = folder + span
            found = sorted(ROOT.glob(path)) if "*" in path else [ROOT / path]
            if not found or not all(exists(f) for f in found):
                problems.append(f"README.md:{number}: map names `{path}`: no such file")
            named.update(rel(f) for f in found if f.exists())
    if not tables:
        problems.append(f'README.md: no section "{MAP_HEADING}" with tables')
    return named


def main():
    problems = []
    readme = ROOT / "README.md"
    named = map_names(readme, problems)
    for doc in documents():
        for number, line in prose_lines(doc.read_text()):
            check_links(doc, number, line, problems)
            check_paths(doc, number, line, problems)

    for pattern in MAPPED:
        for path in sorted(ROOT.glob(pattern)):
            if rel(path) not in named:
                problems.append(f"README.md: the map does not name {rel(path)}")

    lines = len(readme.read_text().splitlines())
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, at most {README_MAX_LINES}")

    for p in problems:
        print(p)
    if problems:
        print(f"check-docs: {len(problems)} problems")
        return 1
    print(f"check-docs: {len(documents())} documents, {len(named)} files in the map: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
