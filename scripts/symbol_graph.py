#!/usr/bin/env python3
"""Finds dependency cycles between the source files of a build.

Reads the object files with `nm`, draws an edge A -> B when the object of
file A uses a symbol that the object of file B defines, and prints every
cycle: each strongly connected component of more than one file, with the
symbols that make each of its edges. A cycle means the files cannot be
read, tested or moved one at a time; the fix is usually a leaf module that
both use.

    symbol_graph.py [--build DIR]       the libraries of a CMake build:
                                        bl_harness, bl_common, bl_kernels, bl_app
    symbol_graph.py OBJ.o OBJ.o ...     exactly these objects

Exit status: 0 no cycle, 1 at least one cycle, 2 bad use (no objects, nm
missing or failing). Python 3 standard library only.
"""

import argparse
import glob
import os
import subprocess
import sys

# The libraries whose files are one graph: everything but the programs'
# main() and the tests.
LIBRARIES = ("bl_harness", "bl_common", "bl_kernels", "bl_app")

# nm's letters for a symbol defined in the object and visible to others
# (lower case is local, except GNU's 'i' indirect function, which is
# global); 'U', 'w' and 'v' are uses of a symbol defined elsewhere.
DEFINED = set("TDBRCGSVWi")
USED = set("Uwv")


def build_objects(build):
    """The object files of the project's libraries in a CMake build dir:
    those the library is made of (its link.txt, Makefile generators), so
    that the object of a source file since moved or deleted, which CMake
    leaves behind, is not read; every object under the target's
    directory when there is no link.txt (other generators)."""
    objects = []
    for lib in LIBRARIES:
        top = os.path.join(build, "CMakeFiles", lib + ".dir")
        link = os.path.join(top, "link.txt")
        if os.path.exists(link):
            with open(link) as f:
                words = f.read().split()
            objects += [os.path.join(build, w) for w in words
                        if w.endswith(".o") and
                        os.path.exists(os.path.join(build, w))]
        else:
            objects += glob.glob(os.path.join(top, "**", "*.o"),
                                 recursive=True)
    return sorted(objects)


def source_name(obj):
    """harness/report/compare.c for .../CMakeFiles/bl_harness.dir/harness/
    report/compare.c.o; the object's own path when it is not in a target
    directory."""
    parts = obj.replace(os.sep, "/").split("/")
    for i, part in enumerate(parts):
        if part.endswith(".dir") and i > 0 and parts[i - 1] == "CMakeFiles":
            obj = "/".join(parts[i + 1:])
            break
    return obj[:-2] if obj.endswith(".o") else obj


def read_symbols(objects):
    """{file: (defined, used)} from `nm -P -A` (POSIX format: one symbol a
    line, "object: name type [value size]")."""
    try:
        out = subprocess.run(["nm", "-P", "-A"] + objects, check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True).stdout
    except FileNotFoundError:
        sys.exit("symbol_graph.py: nm not found (binutils)")
    except subprocess.CalledProcessError as e:
        sys.stderr.write(e.stderr)
        sys.exit(2)
    files = {source_name(o): (set(), set()) for o in objects}
    for line in out.splitlines():
        obj, sep, rest = line.rpartition(": ")
        fields = rest.split()
        if not sep or len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        defined, used = files[source_name(obj)]
        if kind in DEFINED:
            defined.add(name)
        elif kind in USED:
            used.add(name)
    return files


def file_graph(files):
    """{A: {B: [symbols]}}: A uses the symbols that B defines."""
    where = {}
    for name, (defined, _) in files.items():
        for sym in defined:
            where.setdefault(sym, []).append(name)
    graph = {name: {} for name in files}
    for name, (_, used) in files.items():
        for sym in used:
            for owner in where.get(sym, ()):
                if owner != name:
                    graph[name].setdefault(owner, []).append(sym)
    return graph


def components(graph):
    """The strongly connected components of graph (Tarjan's algorithm,
    iterative so that a long chain cannot exceed Python's recursion
    limit)."""
    index, low, on_stack = {}, {}, set()
    stack, result, counter = [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                result.append(sorted(comp))
    return result


def main():
    ap = argparse.ArgumentParser(
        description="Print every cycle of 'file A uses a symbol defined in "
                    "file B' among a build's object files; exit 1 if any.")
    ap.add_argument("--build", default="build",
                    help="CMake build directory (default: build)")
    ap.add_argument("objects", nargs="*",
                    help="object files to read instead of the build's libraries")
    args = ap.parse_args()
    objects = args.objects or build_objects(args.build)
    if not objects:
        sys.stderr.write("symbol_graph.py: no object files under %s/CMakeFiles/"
                         "{%s}.dir: build the project first\n"
                         % (args.build, ",".join(LIBRARIES)))
        return 2
    graph = file_graph(read_symbols(objects))
    cycles = sorted((c for c in components(graph) if len(c) > 1),
                    key=lambda c: (-len(c), c))
    nedges = sum(len(v) for v in graph.values())
    for n, comp in enumerate(cycles, 1):
        print("cycle %d: %d files" % (n, len(comp)))
        members = set(comp)
        for a in comp:
            for b in sorted(graph[a]):
                if b in members:
                    print("  %s -> %s: %s" % (a, b, ", ".join(sorted(graph[a][b]))))
    print("%d files, %d edge%s, %d cycle%s"
          % (len(graph), nedges, "" if nedges == 1 else "s",
             len(cycles), "" if len(cycles) == 1 else "s"))
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
