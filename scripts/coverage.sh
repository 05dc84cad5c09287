#!/usr/bin/env bash
# scripts/coverage.sh [CTEST-REGEX] [MIN-FILE]: line and branch coverage.
# Builds build-cov (gcc --coverage, -DBINDLAB_COVERAGE=ON, no -march=native),
# runs the tests CTEST-REGEX picks (default: the unit tests, '^unit\.'),
# then prints gcovr's line and branch figures per source folder of the
# product (the tests themselves excluded). With MIN-FILE (lines "FOLDER
# MIN-LINE-% MIN-BRANCH-%", e.g. tests/coverage-floors.txt, CI's floors for
# every test of the ASan pass), exits 1 when a folder is under a floor.
# BINDLAB_COVERAGE_BUILD=DIR builds elsewhere.
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
python3 scripts/coverage_floors.py "$build" ${floors:+"$floors"}
