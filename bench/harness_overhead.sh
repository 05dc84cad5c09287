#!/usr/bin/env bash
# Harness overhead per run: the sweep's wall time minus the launcher's wall
# time of every run (mpirun start, the app, mpirun exit), divided by the
# runs. What is left is bindlab's own work: planning, parsing the report,
# reading the run file, writing the record, merging. Target <= 0.15 s.
# usage: bench/harness_overhead.sh [ROUNDS]   (default 5 sweeps of 8 runs)
# One row for the mpirun in PATH with BINDLAB (default build/bindlab), then
# one per MPI that scripts/mpis.sh installed into BINDLAB_MPI_DIR (default
# build-mpi/) whose bindlab tree BINDLAB_MPI_BUILD_PREFIX-NAME (default
# build-mpi-NAME) is built.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
bindlab=${BINDLAB:-build/bindlab}
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
source scripts/mpis.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/overhead.yaml" <<'YAML'
name: overhead
kernels: [{name: triad, size: 8MiB, iters: 2, warmup: 0}]
defaults: {omp_places: cores, omp_proc_bind: close, threads: 1}
sweep:
  np: [1, 2]
  bind_to: [core, none]
  init: [parallel, serial]
YAML
# measure LABEL BINDLAB [--mpirun PATH]: one row
measure() {
    local label=$1 bl=$2 r
    shift 2
    for r in $(seq 1 "$rounds"); do
        rm -rf "$work/r"
        "$bl" sweep "$@" --results "$work/r" "$work/overhead.yaml" |
            sed -n 's/.*; \([0-9.]*\) s (harness overhead \([0-9.]*\) s per run).*/\2 \1/p'
    done >"$work/figures"
    sort -n "$work/figures" | awk -v label="$label" '
        { o[NR] = $1; w[NR] = $2 }
        END {
            m = (NR % 2) ? o[(NR + 1) / 2] : (o[NR / 2] + o[NR / 2 + 1]) / 2
            printf "%-28s harness overhead per run over %d sweeps of 8 runs: median %.3f s (min %.3f, max %.3f); target <= 0.15 s\n", label, NR, m, o[1], o[NR]
        }'
}

measure "mpirun in PATH" "$bindlab"
mpi_dir=${BINDLAB_MPI_DIR:-build-mpi}
while read -r name prefix; do
    tree=${BINDLAB_MPI_BUILD_PREFIX:-build-mpi}-$name
    if [ ! -x "$tree/bindlab" ]; then
        echo "$name: no $tree/bindlab (build it: scripts/build.sh $tree -DMPI_C_COMPILER=$prefix/bin/mpicc)"
        continue
    fi
    ( eval "$(bl_mpi_env "$name" "$prefix")"
      measure "$name ($(basename "$(bl_mpi_launcher "$prefix")"))" "$tree/bindlab" \
          --mpirun "$(bl_mpi_launcher "$prefix")" )
done < <(bl_list_mpis "$mpi_dir")
