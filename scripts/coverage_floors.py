#!/usr/bin/env python3
"""coverage_floors.py BUILD-DIR [FLOORS]: line and branch coverage per folder.

Runs gcovr (Debian's) over BUILD-DIR's counters (a -DBINDLAB_COVERAGE=ON
build after its tests ran; the tests and fuzz targets left out), keeps its
figures in BUILD-DIR/coverage.json, prints a Markdown table of each product
folder's lines and branches and the share of each that ran (the table of
docs/testing.md), and with FLOORS (lines "FOLDER MIN-LINE-% MIN-BRANCH-%",
'#' starts a comment) exits 1 naming every folder under either floor, or
missing from the figures. A folder is a file's first two path components
(harness/cli/x.c -> harness/cli; common/x.c -> common).
"""
import json
import os
import subprocess
import sys
from collections import defaultdict


def run_gcovr(build):
    """gcovr over the build's .gcda files; returns the path of its JSON."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.path.join(os.path.abspath(build), "coverage.json")
    rel = os.path.relpath(os.path.abspath(build), root)
    # Counters bumped by several threads at once (OpenMP kernels, the
    # probe's sampler) can come out negative, which gcov prints and gcovr
    # 5.2 cannot parse: it then stops, or with -j waits forever. Such a
    # line is left out; the timeout turns any other hang into a failure.
    argv = ["gcovr", "-j", str(os.cpu_count() or 1), "--root", root,
            "--gcov-ignore-parse-errors",
            "--object-directory", os.path.abspath(build),
            "--exclude", "tests/", "--exclude", "fuzz/", "--json", out]
    if not rel.startswith(".."):
        argv[-2:-2] = ["--exclude", rel + "/"]
    try:
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=1200)
    except subprocess.TimeoutExpired:
        sys.exit("coverage: gcovr did not finish in 20 minutes (stopped)")
    if done.returncode != 0:
        sys.exit(f"coverage: gcovr failed ({done.returncode}): {done.stderr[-2000:]}")
    return out


def per_folder(path):
    # folder -> [lines hit, lines, branches hit, branches]
    tot = defaultdict(lambda: [0, 0, 0, 0])
    with open(path) as f:
        files = json.load(f)["files"]
    for entry in files:
        parts = entry["file"].split("/")
        folder = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
        t = tot[folder]
        for line in entry["lines"]:
            if line.get("gcovr/noncode"):
                continue
            t[1] += 1
            t[0] += line["count"] > 0
            for b in line.get("branches", []):
                t[3] += 1
                t[2] += b["count"] > 0
    return tot


def pct(hit, total):
    return 100.0 * hit / total if total else 100.0


def read_floors(path):
    floors = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            words = raw.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 3:
                sys.exit(f"{path}:{n}: want FOLDER MIN-LINE-% MIN-BRANCH-%")
            floors.append((words[0].rstrip("/"), float(words[1]), float(words[2])))
    return floors


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n")[0])
    tot = per_folder(run_gcovr(sys.argv[1]))
    print("| folder | lines | line % | branches | branch % |")
    print("|---|---:|---:|---:|---:|")
    for folder in sorted(tot):
        lh, l, bh, b = tot[folder]
        print(f"| `{folder}/` | {l} | {pct(lh, l):.1f} | {b} | {pct(bh, b):.1f} |")
    if len(sys.argv) < 3:
        return 0
    bad = 0
    for folder, min_line, min_branch in read_floors(sys.argv[2]):
        if folder not in tot:
            print(f"coverage: {folder}/: no coverage figures (floor {min_line}% of lines)",
                  file=sys.stderr)
            bad = 1
            continue
        lh, l, bh, b = tot[folder]
        for what, got, floor in (("lines", pct(lh, l), min_line),
                                 ("branches", pct(bh, b), min_branch)):
            if got < floor:
                print(f"coverage: {folder}/: {got:.1f}% of {what} ran, under its floor "
                      f"of {floor}% ({sys.argv[2]})", file=sys.stderr)
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
