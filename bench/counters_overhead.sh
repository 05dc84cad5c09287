#!/usr/bin/env bash
# What counting costs. Two figures:
# 1. Fixed cost per thread and run: microseconds per bl_counters_start +
#    bl_counters_stop pair (bindlab-counters-cost), wall clock and the
#    thread's CPU time, median of the rounds. It is paid outside the timed
#    iterations.
# 2. Effect on the measured rate: bindlab-app runs with counters (A) and
#    with BINDLAB_COUNTERS=off (B), interleaved A B A B ..., median of each
#    run's median iteration time per variant, and the median of the
#    per-round ratios A/B (1.00 = no effect; target <= 1.01).
# usage: bench/counters_overhead.sh [ROUNDS] [SIZE] [THREADS]
#        (default 7 rounds, 64MiB, 2 threads; BINDLAB_APP or build/bindlab-app)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
size=${2:-64MiB}
threads=${3:-2}
app=${BINDLAB_APP:-build/bindlab-app}
cost="$(dirname "$app")/bench/bindlab-counters-cost"
if [ ! -x "$app" ] || [ ! -x "$cost" ]; then
    echo "build first: scripts/build.sh (needs $app and $cost)" >&2; exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh   # median

"$cost" 2000 "$rounds" >"$work/cost"
grep '^#' "$work/cost" | sed 's/^# /  /'
grep -v '^#' "$work/cost" >"$work/cost.rounds"
printf 'start+stop per thread: median %.1f us wall, %.1f us CPU (%d rounds of 2000)\n' \
    "$(median_of_column 2 <"$work/cost.rounds")" "$(median_of_column 3 <"$work/cost.rounds")" "$rounds"

run() { # run on|off: one app run, prints its median iteration time
    local -a env=(env -u BINDLAB_COUNTERS) pass=()
    if [ "$1" = off ]; then env=(env BINDLAB_COUNTERS=off); pass=(-x BINDLAB_COUNTERS); fi
    "${env[@]}" OMP_NUM_THREADS="$threads" OMP_PLACES=cores OMP_PROC_BIND=close \
        mpirun -np 1 --bind-to none -x OMP_NUM_THREADS -x OMP_PLACES \
        -x OMP_PROC_BIND "${pass[@]}" "$app" --kernel triad --size "$size" \
        --iters 20 --out "$work/run.h5" 2>"$work/err" |
        sed -n 's/.* median_s=\([0-9.e-]*\) .*/\1/p'
}
for _ in $(seq 1 "$rounds"); do
    a=$(run on)
    b=$(run off)
    if [ -z "$a" ] || [ -z "$b" ]; then cat "$work/err" >&2; echo "a run failed" >&2; exit 1; fi
    echo "$a $b $(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')" >>"$work/ab"
done
awk -v n="$rounds" -v s="$size" -v t="$threads" \
    -v on="$(median_of_column 1 <"$work/ab")" -v off="$(median_of_column 2 <"$work/ab")" \
    -v ratio="$(median_of_column 3 <"$work/ab")" 'BEGIN {
    printf "triad %s, %d threads, %d interleaved rounds: median iteration %.6f s with counters, %.6f s with BINDLAB_COUNTERS=off; median ratio of the pairs %.3f (target <= 1.01)\n", s, t, n, on, off, ratio }'
echo "bench-result counters.on_vs_off $(median_of_column 3 <"$work/ab")"   # for bench/all.sh
