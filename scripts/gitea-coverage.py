#!/usr/bin/env python3
"""How many of Gitea's issue, comment, label, milestone and pull endpoints
this API serves: every operation of Gitea's swagger document (given as the
first argument, e.g. ../shared/specs/gitea-swagger-v1.json) whose path
belongs to one of those areas, matched against the operations of
docs/openapi.yaml (the document the agreement tests hold to the route
tables). Prints a count per area and, with -v, the operations missing.
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METHODS = {"get", "post", "put", "patch", "delete"}


def area(path: str) -> str | None:
    """The area of a Gitea path, or None when it is not counted."""
    if not path.startswith("/repos/{owner}/{repo}/"):
        return "issues" if path == "/repos/issues/search" else None
    rest = path.removeprefix("/repos/{owner}/{repo}/")
    if rest.startswith("issues/comments") or re.match(r"issues/\{index\}/comments", rest):
        return "comments"
    if rest.startswith("labels") or re.match(r"issues/\{index\}/labels", rest):
        return "labels"
    if rest.startswith("milestones"):
        return "milestones"
    if rest.startswith("pulls"):
        return "pulls"
    if rest.startswith("issues"):
        return "issues"
    return None


def shape(path: str) -> str:
    """A path with its parameter names erased, so {id} matches {index}."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def ours() -> set[tuple[str, str]]:
    try:
        import yaml  # PyYAML, when present

        doc = yaml.safe_load((ROOT / "docs/openapi.yaml").read_text())
        paths = doc["paths"]
    except ImportError:
        # No YAML parser: read path keys and their methods off the indentation.
        paths, current = {}, None
        for line in (ROOT / "docs/openapi.yaml").read_text().splitlines():
            if m := re.match(r"^  (/[^:]*):\s*$", line):
                current = paths.setdefault(m.group(1), {})
            elif current is not None and (m := re.match(r"^    (\w+):", line)):
                current[m.group(1)] = True
            elif re.match(r"^\S", line):
                current = None if not line.startswith("paths:") else current
    served = set()
    for path, item in paths.items():
        path = path.removeprefix("/api/v1")
        for method in item:
            if method in METHODS:
                served.add((method, shape(path)))
    return served


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    verbose = "-v" in sys.argv
    served = ours()
    totals: dict[str, list[int]] = {}
    missing: list[str] = []
    for path, item in sorted(spec["paths"].items()):
        a = area(path)
        if a is None:
            continue
        for method, op in item.items():
            if method not in METHODS:
                continue
            t = totals.setdefault(a, [0, 0])
            t[1] += 1
            if (method, shape(path)) in served:
                t[0] += 1
            else:
                missing.append(f"{a:10} {method.upper():6} {path} ({op.get('operationId')})")
    for a, (have, all_) in sorted(totals.items()):
        print(f"{a:10} {have:3} of {all_:3}")
    have = sum(t[0] for t in totals.values())
    all_ = sum(t[1] for t in totals.values())
    print(f"{'all':10} {have:3} of {all_:3}")
    if verbose:
        print("\n".join(missing))


if __name__ == "__main__":
    main()
