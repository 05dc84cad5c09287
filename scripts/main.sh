#!/usr/bin/env bash
# The main job on a fresh Debian machine: installs what is missing, builds,
# and runs the default sweep on this node (configs/sweeps/default.yaml, about
# a minute on 2 cores), then prints the report. Results: results/default.h5
# and one record per run under results/default.d/.
# Extra arguments go to `bindlab sweep` (e.g. another sweep file, --resume).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
bl_install_deps
scripts/build.sh build

# Root may run mpirun (containers, CI); harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ $# -eq 0 ]; then
    set -- configs/sweeps/default.yaml
    # A fresh default sweep each time: the previous one is kept aside.
    if [ -d results/default.d ]; then
        old="results/previous-$(date +%Y%m%dT%H%M%S)"
        mkdir -p "$old"
        mv results/default.d "$old/"
        [ -f results/default.h5 ] && mv results/default.h5 "$old/"
        echo "== earlier default sweep moved to $old/"
    fi
fi

echo "== placement of one rank per core, as the app sees it"
mpirun -np "$(nproc)" --map-by core --bind-to core --report-bindings \
    -x OMP_NUM_THREADS=1 -x OMP_PLACES=cores -x OMP_PROC_BIND=close \
    build/bindlab-app --kernel triad --size 64MiB --iters 5 --show-placement

echo "== bindlab sweep $*"
status=0
build/bindlab sweep "$@" || status=$?
name=$(sed -n 's/^name: *//p' "${1}" 2>/dev/null | head -n 1)
if [ -n "$name" ] && [ -f "results/$name.h5" ] && [ -x build/bindlab ] &&
    build/bindlab report --help >/dev/null 2>&1; then
    echo "== bindlab report results/$name.h5"
    build/bindlab report "results/$name.h5"
fi
exit $status
