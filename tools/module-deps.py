#!/usr/bin/env python3
"""The dependencies among the top-level modules of the core crate (issue 30), from the code:
a `crate::X` path (in a `use` or inline) in a file of module Y counts as Y -> X. Prints the
edges, the strongly connected components of more than one module (the cycles), and fails if
there is a cycle (the modules are layered, none is left since issue 30) or an edge that is
not in tools/module-deps.allowed: the layers may lose upward edges, never gain one.
--write-allowed refuses to write the list while there is a cycle. Every other crate of the
workspace (crates/*/src) is checked for cycles too.

Usage: tools/module-deps.py [--write-allowed]   (run from the repository root)
"""
import os, re, sys

SRC = "crates/ferroshmem-core/src"
ALLOWED = "tools/module-deps.allowed"

def top_module(path, src=None):
    rel = os.path.relpath(path, src or SRC)
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first

def edges():
    mods = {top_module(os.path.join(SRC, f)) for f in os.listdir(SRC)} - {"lib", "main"}
    found = set()
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            me = top_module(path)
            if me in ("lib", "main"):
                continue
            text = open(path, encoding="utf-8").read()
            # Comments and doc comments do not import.
            text = re.sub(r"//[^\n]*", "", text)
            for m in re.finditer(r"\bcrate::(\w+)", text):
                other = m.group(1)
                if other != me and other in mods:
                    found.add((me, other))
            # `use crate::{a, b::c}` groups.
            for m in re.finditer(r"\bcrate::\{([^}]*)\}", text):
                for part in m.group(1).split(","):
                    other = part.strip().split("::")[0]
                    if other != me and other in mods:
                        found.add((me, other))
    return mods, found

def cycles(mods, found):
    graph = {m: sorted(b for a, b in found if a == m) for m in mods}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(mods):
        if v not in index:
            visit(v)
    return out

def main():
    mods, found = edges()
    comps = cycles(mods, found)
    for c in comps:
        print(f"cycle of {len(c)} modules: {' '.join(c)}")
    if comps:
        print("the core's modules must not depend on each other in a cycle (issue 30): "
              "a lower layer imports a higher one")
    lines = sorted(f"{a} -> {b}" for a, b in found)
    if "--write-allowed" in sys.argv:
        if comps:
            print(f"{ALLOWED} not written")
            return 1
        open(ALLOWED, "w").write("# Edges among the core crate's top-level modules that exist today, without a cycle\n"
                                 "# (issue 30); tools/module-deps.py fails on any edge not listed, and on any cycle.\n"
                                 + "\n".join(lines) + "\n")
        print(f"wrote {len(lines)} edges to {ALLOWED}")
        return 0
    allowed = {l.strip() for l in open(ALLOWED) if l.strip() and not l.startswith("#")}
    new = [l for l in lines if l not in allowed]
    gone = sorted(allowed - set(lines))
    print(f"{len(lines)} edges among {len(mods)} modules; {len(gone)} allowed edges gone")
    if gone:
        print("gone (remove them from " + ALLOWED + "): " + ", ".join(gone))
    if new:
        print("new edges, not allowed (a lower layer must not import a higher one):")
        for l in new:
            print("  " + l)
        return 1
    return 1 if comps else 0

def other_crates():
    """Every other crate of the workspace: no cycle among its top-level modules either."""
    global SRC
    core, bad = SRC, 0
    for crate in sorted(os.listdir("crates")):
        src = os.path.join("crates", crate, "src")
        if src == core or not os.path.isdir(src):
            continue
        SRC = src
        mods, found = edges()
        comps = cycles(mods, found)
        for c in comps:
            print(f"{crate}: cycle of {len(c)} modules: {' '.join(c)}")
        bad += len(comps)
        print(f"{crate}: {len(found)} edges among {len(mods)} modules, {len(comps)} cycles")
    SRC = core
    return 1 if bad else 0

if "--write-allowed" in sys.argv:
    sys.exit(main())
sys.exit(main() | other_crates())
