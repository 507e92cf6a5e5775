#!/usr/bin/env python3
"""Counts the architecture figures (issues 10 and 33), so they can be
counted again: lines in functions/*/src per route, domain files of `shared`
that import HTTP types, import cycles between files and between the
entries of a folder, arrows that run back up (an import of a module on the
same or a higher level, docs/architecture.md), pure unit tests, black-box
test binaries. Run from the repository root:
`python3 scripts/architecture-figures.py` (`--check`: exit 1 when there is
a cycle or an arrow back up; `make test` runs it so).

Every crate of the layers (crates/*/src, shared/src) is read; a module is
named by its crate and path (`store/db/keys`). A path that names another
layer crate (`base::time`, `store::db`) is an edge into that crate; so is
a `crate::` path that `shared` re-exports from a lower crate.

Cycles: every .rs file under shared/src is a module; a file depends on the
modules its `crate::`/`super::`/`self::` paths name (the longest prefix that
is a module). A parent's edges to its own submodules (declarations and
re-exports) are not dependencies. A cycle is a strongly connected set of two
or more modules.
"""
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "shared" / "src"
# The layer crates and where their code is.
CRATES = {p.parent.name: p for p in sorted((ROOT / "crates").glob("*/src"))}
CRATES["shared"] = SRC
# docs/architecture.md's levels of the crates, and the crate each top
# module of `shared` moves into (it is held to that crate's level until it
# does).
LEVELS = {"base": 0, "store": 1, "runtime": 2, "people": 2, "tracker": 3,
          "webhooks": 4, "deploy": 4, "doctor": 5, "shared": 5}
MOVES_TO: dict = {
    # None left: every layer has its crate. A module added to `shared` that
    # belongs to a layer is named here with its crate until it moves.
}
# What belongs to the HTTP layer, and the files allowed to use it.
# Besides these names, any path (nested `use` trees included) that resolves
# into the `http` module counts.
HTTP_USE = re.compile(r"\blambda_http\b|\bStatusCode\b|\bCtx\b")
# Not domain: the HTTP layer, the stream consumer's Lambda entry point (its
# runtime comes through lambda_http), test support, the crate root and the
# crate error that maps every layer's errors to HTTP. (`shared` has no
# binaries: the operator commands are tools/ops.)
NOT_DOMAIN = ("http/", "consumer.rs", "testing.rs", "lib.rs", "error.rs")


def module_of(path: Path) -> tuple:
    """(crate, path parts): `store/src/db/keys.rs` is ("store", "db", "keys")."""
    for crate, src in CRATES.items():
        if src in path.parents:
            rel = path.relative_to(src).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            return (crate, *parts)
    raise ValueError(path)


def layer_files():
    return sorted(f for src in CRATES.values() for f in src.rglob("*.rs"))


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def expand_uses(text: str):
    """Yields every path a `use` tree or an inline path names."""
    for m in re.finditer(r"\buse\s+([^;]+);", text, flags=re.S):
        yield from flatten(m.group(1).replace("\n", " ").replace(" ", ""))
    for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        yield m.group(1)


def flatten(tree: str, prefix: str = ""):
    depth, start, items = 0, 0, []
    brace = tree.find("{")
    if brace == -1:
        yield prefix + tree
        return
    head = tree[:brace]
    body = tree[brace + 1 : tree.rfind("}")]
    for i, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    for item in items:
        if item:
            yield from flatten(item, prefix + head)


def resolve(path: str, here: tuple, is_dir_module: bool, modules: set):
    parts = path.split("::")
    # `self` is the module itself and `super` its parent, whether the
    # module is a file or a folder's mod.rs.
    base = list(here)
    if parts[0] in CRATES:
        # Another layer crate: its path from its root.
        base, parts = [parts[0]], parts[1:]
    elif parts[0] not in ("crate", "super", "self"):
        # A plain path names an external crate or a child module.
        if tuple(list(here) + parts[:1]) not in modules:
            return None
        base = list(here)
    if parts and parts[0] == "crate":
        base, parts = [here[0]], parts[1:]
    while parts and parts[0] in ("super", "self"):
        if parts[0] == "super":
            base = base[:-1]
        parts = parts[1:]
    full = base + parts
    for n in range(len(full), 0, -1):
        if tuple(full[:n]) in modules:
            found = tuple(full[:n])
            # A name a module re-exports from another module (`pub use
            # model::RepoStats;`, `pub use store::db;`) is that module's.
            if n < len(full) and (found, full[n]) in REEXPORTS:
                target = REEXPORTS[(found, full[n])]
                rest = full[n + 1 :]
                while rest and target + (rest[0],) in modules:
                    target, rest = target + (rest[0],), rest[1:]
                return target
            return found
    return None


# (module, name) -> the submodule a `pub use` re-exports the name from.
REEXPORTS = {}


def collect_reexports(modules: dict):
    for m, f in modules.items():
        is_dir = f.name in ("mod.rs", "lib.rs")
        text = strip_comments(f.read_text()).split("#[cfg(test)]")[0]
        for u in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text, flags=re.S):
            for p in flatten(u.group(1).replace("\n", " ").replace(" ", "")):
                name = p.split("::")[-1].split(" as ")[-1]
                if name in ("*", "self"):
                    continue
                target = resolve(p, m, is_dir, set(modules))
                if target is None or target == m:
                    continue
                if target[: len(m)] == m or target[0] != m[0]:
                    REEXPORTS[(m, name)] = target


def cycles():
    """The import graph of every layer crate's modules."""
    files = layer_files()
    modules = {module_of(f): f for f in files}
    collect_reexports(modules)
    graph = {m: set() for m in modules}
    for m, f in modules.items():
        is_dir = f.name in ("mod.rs", "lib.rs")
        text = strip_comments(f.read_text())
        text = text.split("#[cfg(test)]")[0]
        for p in expand_uses(text):
            target = resolve(p, m, is_dir, set(modules))
            if target is None or target == m or target[: len(m)] == m:
                continue  # itself, or its own submodules
            graph[m].add(target)
    return graph


def unit_of(m: tuple) -> str:
    """The crate a module is in, or will be in once it moves."""
    if m[0] == "shared" and len(m) > 1:
        return MOVES_TO.get(m[1], "shared")
    return m[0]


def level_of(unit: str) -> int:
    return LEVELS.get(unit, 0)


def back_arrows(graph: dict) -> list:
    """Imports of a module on the same or a higher level (another unit)."""
    out = set()
    for m, targets in graph.items():
        a = unit_of(m)
        for t in targets:
            b = unit_of(t)
            if a != b and level_of(b) >= level_of(a):
                out.add(("/".join(m), "/".join(t)))
    return sorted(out)


def strongly_connected(graph: dict) -> list:
    """Tarjan's strongly connected components of two or more nodes."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted("/".join(c) or "lib" for c in comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def sibling_cycles(graph: dict) -> list:
    """Cycles between the entries of one folder (files and subfolders, each
    standing for everything under it): `http <-> telemetry` when something
    under http/ imports telemetry/ and the other way round."""
    out = []
    folders = {m[:-1] for m in graph if m} | {()}
    for folder in sorted(folders):
        depth = len(folder)
        level = {}
        for m, targets in graph.items():
            if len(m) <= depth or m[:depth] != folder:
                continue
            a = m[: depth + 1]
            for t in targets:
                if len(t) > depth and t[:depth] == folder and t[: depth + 1] != a:
                    level.setdefault(a, set()).add(t[: depth + 1])
                    level.setdefault(t[: depth + 1], set())
        out.extend(strongly_connected(level))
    return out


def main():
    fn_lines = sum(
        len(p.read_text().splitlines()) for p in (ROOT / "functions").glob("*/src/**/*.rs")
    )
    # The route tables (`routes!`), as Cargo.toml's local router lists
    # them: each method of a path served by a function other than the
    # fallback.
    router = (ROOT / "Cargo.toml").read_text()
    routes = sum(
        1
        for m in re.finditer(r'\{ method = "\w+", function = "([\w-]+)" \}', router)
        if m.group(1) != "fallback"
    )
    http_files = []
    modules = {module_of(f) for f in layer_files()}
    for f in sorted(SRC.rglob("*.rs")):
        rel = str(f.relative_to(SRC))
        if rel.startswith(NOT_DOMAIN):
            continue
        text = strip_comments(f.read_text()).split("#[cfg(test)]")[0]
        if HTTP_USE.search(text) or any(
            (resolve(p, module_of(f), f.name in ("mod.rs", "lib.rs"), modules) or ("", ""))[1:2]
            == ("http",)
            for p in expand_uses(text)
        ):
            http_files.append(rel)
    unit = 0
    for f in layer_files():
        unit += len(re.findall(r"#\[test\]", f.read_text()))
    blackbox = sorted(p.name for p in (ROOT / "tests" / "tests").iterdir())
    graph = cycles()
    found = strongly_connected(graph)
    between = sibling_cycles(graph)
    back = back_arrows(graph)
    print(f"lines in functions/*/src: {fn_lines}, routes: {routes}, per route: {fn_lines / routes:.1f}")
    print(f"domain files of shared importing HTTP types: {len(http_files)}")
    for f in http_files:
        print(f"  {f}")
    print(f"import cycles between files: {len(found)}")
    for c in found:
        print(f"  {' <-> '.join(c)}")
    print(f"import cycles between the entries of a folder: {len(between)}")
    for c in between:
        print(f"  {' <-> '.join(c)}")
    print(f"arrows that run back up (docs/architecture.md's levels): {len(back)}")
    for a, b in back:
        print(f"  {a} -> {b}")
    print(f"pure unit tests in the layer crates (#[test], no runtime): {unit}")
    print(f"black-box test binaries (entries in tests/tests): {len(blackbox)}")
    if "--check" in sys.argv[1:] and (found or between or back or http_files):
        sys.exit(1)


if __name__ == "__main__":
    main()
