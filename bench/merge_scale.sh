#!/usr/bin/env bash
# bindlab merge and report at scale: 100, 1,000 and 10,000 per-run sweep
# files merged into one, then the 10,000-run file reported. The files are
# made cheaply: one real run of a tiny sweep on this node, then
# N copies of its record under other run ids (tests/nodes_fixture copies;
# each copy is a full 33 KB record with its machine, placement, counters).
# Rounds are interleaved (100, 1,000, 10,000, 100, ...); medians of wall
# and CPU (user + sys) time, with the load at the time. Goals (bench/all.sh):
# merge of 10,000 <= 20 s, report of 10,000 <= 2 s; per-file cost flat
# (10,000 vs 100).
# usage: bench/merge_scale.sh [ROUNDS [SIZE ...]]   (default 3 100 1000 10000)
# env: BUILD (default build), REF_BINDLAB (another bindlab to run side by
#      side, interleaved, e.g. a build of an older commit: ratio printed)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift $(( $# > 0 ? 1 : 0 )); sizes=${*:-"100 1000 10000"}
build=${BUILD:-build}
bindlab=$build/bindlab
fixture=$build/tests/nodes_fixture
if [ ! -x "$bindlab" ] || [ ! -x "$fixture" ]; then echo "build first: scripts/build.sh" >&2; exit 1; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/one.yaml" <<'YAML'
name: one
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
layouts: [{name: a, np: 1, threads: 1}]
YAML
"$bindlab" sweep --results "$work/res" "$work/one.yaml" >"$work/sweep.out" 2>&1 ||
    { cat "$work/sweep.out" >&2; exit 1; }
max=0
for n in $sizes; do [ "$n" -gt "$max" ] && max=$n; done
mkdir "$work/all"
"$fixture" copies "$work/res/one.d/r0000.h5" "$work/all" "$max"
# each size its own directory of links to the first N copies
copies=("$work"/all/*.h5)
for n in $sizes; do
    mkdir "$work/d$n"
    # one ln per few thousand links, not one per link (minutes under load)
    printf '%s\0' "${copies[@]:0:n}" | xargs -0 ln -s -t "$work/d$n"
done
echo "# one record: $(stat -c %s "$work/res/one.d/r0000.h5") bytes; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME CMD...: appends "NAME wall cpu" (seconds) to $work/times
run() {
    local name=$1; shift
    local t0 t1 c0 c1
    t0=$(date +%s.%N)
    c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%s %.3f %.3f\n", n, b - a, (d - c) / hz }' >>"$work/times"
}

for _ in $(seq 1 "$rounds"); do
    for n in $sizes; do
        run "merge$n" "$bindlab" merge -o "$work/m$n.h5" "$work/d$n"
        [ -n "${REF_BINDLAB:-}" ] && run "refmerge$n" "$REF_BINDLAB" merge -o "$work/r$n.h5" "$work/d$n"
    done
    run "report$max" "$bindlab" report "$work/m$max.h5"
    [ -n "${REF_BINDLAB:-}" ] && run "refreport$max" "$REF_BINDLAB" report "$work/m$max.h5"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; wall times are inflated by the load, CPU times less so)"

# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh   # median
med() { awk -v k="$1" -v c="$2" '$1 == k {print $c}' "$work/times" | median; }
for n in $sizes; do
    w=$(med "merge$n" 2); c=$(med "merge$n" 3)
    printf "merge of %6d files: median wall %7.2f s (%.2f ms per file), CPU %7.2f s (%.2f ms per file)\n" \
        "$n" "$w" "$(echo "$w * 1000 / $n" | bc -l)" "$c" "$(echo "$c * 1000 / $n" | bc -l)"
    echo "bench-result merge.n$n.wall_s $w"
    echo "bench-result merge.n$n.cpu_s $c"
    if [ -n "${REF_BINDLAB:-}" ]; then
        rw=$(med "refmerge$n" 2); rc=$(med "refmerge$n" 3)
        echo "  reference: median wall $rw s, CPU $rc s; ours / reference: wall $(echo "$w / $rw" | bc -l | cut -c1-5), CPU $(echo "$c / $rc" | bc -l | cut -c1-5)"
    fi
done
first=${sizes%% *}
w1=$(med "merge$first" 2); wn=$(med "merge$max" 2)
c1=$(med "merge$first" 3); cn=$(med "merge$max" 3)
echo "per-file cost, $max files vs $first: wall $(echo "($wn / $max) / ($w1 / $first)" | bc -l | cut -c1-5), CPU $(echo "($cn / $max) / ($c1 / $first)" | bc -l | cut -c1-5)"
echo "bench-result merge.per_file_ratio $(echo "($cn / $max) / ($c1 / $first)" | bc -l | cut -c1-6)"
w=$(med "report$max" 2); c=$(med "report$max" 3)
echo "report of $max runs: median wall $w s, CPU $c s"
if [ -n "${REF_BINDLAB:-}" ]; then
    rw=$(med "refreport$max" 2); rc=$(med "refreport$max" 3)
    echo "  reference: median wall $rw s, CPU $rc s; ours / reference: wall $(echo "$w / $rw" | bc -l | cut -c1-5), CPU $(echo "$c / $rc" | bc -l | cut -c1-5)"
fi
echo "bench-result report.n$max.wall_s $w"
echo "bench-result report.n$max.cpu_s $c"
