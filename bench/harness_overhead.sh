#!/usr/bin/env bash
# Harness overhead per run, one row per MPI: the sweep's wall time minus the
# launcher's wall time of every run (launcher start, the app, launcher
# exit), divided by the runs. What is left is bindlab's own work: finding
# and asking the launcher, planning, parsing the report, reading the run
# file, writing the record, merging. Target <= 0.15 s per run.
# usage: bench/harness_overhead.sh [ROUNDS]   (default 5 sweeps of 8 runs
#                                              per MPI)
# Rows: Open MPI 4.1 (the mpirun in PATH, the reference: the figure the
# target was set with), then each MPI scripts/mpis.sh installed into
# BINDLAB_MPI_DIR (default build-mpi/) whose bindlab-app is built in
# BINDLAB_MPI_BUILD_PREFIX-NAME (default build-mpi-NAME). Every row runs the
# same harness (BINDLAB, default build/bindlab) with --launcher, so only the
# launcher and its report differ. The rounds are interleaved (A B C D A B C
# D ...) so that load from elsewhere falls on every row alike; each row is
# the median of its rounds, and the ratio to the Open MPI 4.1 row.
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

# The rows: NAME LABEL ENV-PREFIX LAUNCHER APP
names=() labels=() launchers=() apps=() envs=()
ompi4=$(command -v mpirun || true)
if [ -n "$ompi4" ] && "$ompi4" --version 2>/dev/null | grep -q '(Open MPI) 4\.'; then
    names+=(ompi4)
    labels+=("Open MPI $("$ompi4" --version | sed -n 's/.*(Open MPI) //p' | head -1)")
    launchers+=("$ompi4") apps+=("${bindlab%/*}/bindlab-app") envs+=("")
else
    echo "note: the mpirun in PATH is not Open MPI 4; no reference row"
fi
mpi_dir=${BINDLAB_MPI_DIR:-build-mpi}
while read -r name prefix; do
    tree=${BINDLAB_MPI_BUILD_PREFIX:-build-mpi}-$name
    if [ ! -x "$tree/bindlab-app" ]; then
        echo "$name: no $tree/bindlab-app (build it: scripts/build.sh $tree -DMPI_C_COMPILER=$prefix/bin/mpicc)"
        continue
    fi
    launcher=$(bl_mpi_launcher "$prefix")
    [ "$name" = ompi5 ] || launcher=$prefix/bin/mpiexec
    names+=("$name") launchers+=("$launcher") apps+=("$tree/bindlab-app")
    envs+=("$(bl_mpi_env "$name" "$prefix")")
    labels+=("$(case $name in ompi5) echo "Open MPI";; mpich) echo "MPICH";; impi) echo "Intel MPI";; esac) $(
        "$launcher" --version 2>/dev/null | sed -n 's/.*(Open MPI) //p; s/.*Version:[ \t]*//p; s/.*Version \([0-9.]*\).*/\1/p' | head -1)")
done < <(bl_list_mpis "$mpi_dir")
[ ${#names[@]} -gt 0 ] || { echo "no MPI to measure" >&2; exit 1; }

# one ROW ROUND: a sweep; appends "overhead wall" to $work/ROW
one() {
    local i=$1
    rm -rf "$work/r"
    ( eval "${envs[$i]}"
      "$bindlab" sweep --launcher "${launchers[$i]}" --app "${apps[$i]}" \
          --results "$work/r" "$work/overhead.yaml" ) |
        sed -n 's/.*; \([0-9.]*\) s (harness overhead \([0-9.]*\) s per run).*/\2 \1/p' \
        >>"$work/${names[$i]}" ||
        echo "${names[$i]}: a sweep failed; its round is left out" >&2
}
for _ in $(seq 1 "$rounds"); do
    for i in "${!names[@]}"; do one "$i"; done
done

# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh   # median
ref="" results=()
[ "${names[0]}" = ompi4 ] && ref=$(median <"$work/ompi4")
printf '%-22s %6s %9s %9s %9s %9s  %s\n' "MPI" "sweeps" "median s" "min s" "max s" "vs 4.1" "(harness overhead per run, 8 runs per sweep)"
for i in "${!names[@]}"; do
    f=$work/${names[$i]}
    n=$(wc -l <"$f")
    m=$(median <"$f")
    lo=$(sort -n "$f" | head -1 | cut -d' ' -f1)
    hi=$(sort -n "$f" | tail -1 | cut -d' ' -f1)
    ratio=$(awk -v m="$m" -v r="$ref" 'BEGIN { if (r == "" || r == 0) print "-"; else printf "%.2f", m / r }')
    printf '%-22s %6d %9.3f %9.3f %9.3f %9s\n' "${labels[$i]}" "$n" "$m" "$lo" "$hi" "$ratio"
    results+=("bench-result harness.overhead_s.${names[$i]} $m")
done
printf '%s\n' "${results[@]}"   # for bench/all.sh
echo "target: <= 0.15 s per run for every launcher"
