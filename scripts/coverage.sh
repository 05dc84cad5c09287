#!/usr/bin/env bash
# scripts/coverage.sh [CTEST-REGEX] [MIN-FILE]: line and branch coverage.
# Builds build-cov (gcc --coverage, -DBINDLAB_COVERAGE=ON, no -march=native),
# runs the tests CTEST-REGEX picks (default: the unit tests, '^unit\.'),
# then prints gcovr's line and branch figures per source folder of the
# product (the tests themselves excluded). With MIN-FILE (lines "FOLDER
# MIN-LINE-PERCENT"), exits 1 when a folder's line coverage is below its
# floor. BINDLAB_COVERAGE_BUILD=DIR builds elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
regex=${1:-'^unit\.'}
floors=${2:-}
build=${BINDLAB_COVERAGE_BUILD:-build-cov}
command -v gcovr >/dev/null || { echo "coverage.sh: gcovr is missing (scripts/deps.sh installs it)" >&2; exit 2; }
scripts/build.sh "$build" -DBINDLAB_COVERAGE=ON -DBINDLAB_NATIVE=OFF >/dev/null
find "$build" -name '*.gcda' -delete
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$build" && ctest -j2 -R "$regex" >"ctest-coverage.log" 2>&1) ||
    { tail -30 "$build/ctest-coverage.log" >&2; echo "coverage.sh: tests failed" >&2; exit 1; }
gcovr --root . --object-directory "$build" --exclude 'tests/' --exclude 'fuzz/' \
    --exclude "$build/" --json "$build/coverage.json" >/dev/null
python3 - "$build/coverage.json" "$floors" <<'PY'
import json, sys
from collections import defaultdict
files = json.load(open(sys.argv[1]))["files"]
tot = defaultdict(lambda: [0, 0, 0, 0])  # lines hit, lines, branches hit, branches
for f in files:
    name = f["file"]
    parts = name.split("/")
    # harness/cli/x.c -> harness/cli; common/x.c -> common
    folder = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
    t = tot[folder]
    for l in f["lines"]:
        if l.get("gcovr/noncode"):
            continue
        t[1] += 1
        t[0] += l["count"] > 0
        for b in l.get("branches", []):
            t[3] += 1
            t[2] += b["count"] > 0
pct = lambda a, b: 100.0 * a / b if b else 100.0
print("| folder | lines | line % | branches | branch % |")
print("|---|---:|---:|---:|---:|")
for folder in sorted(tot):
    lh, l, bh, b = tot[folder]
    print(f"| `{folder}/` | {l} | {pct(lh, l):.1f} | {b} | {pct(bh, b):.1f} |")
bad = 0
if sys.argv[2]:
    for line in open(sys.argv[2]):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        folder, floor = line[0].rstrip("/"), float(line[1])
        lh, l, _, _ = tot.get(folder, [0, 0, 0, 0])
        if pct(lh, l) < floor:
            print(f"coverage.sh: {folder}/: {pct(lh, l):.1f}% of lines, floor {floor}%", file=sys.stderr)
            bad = 1
sys.exit(bad)
PY
