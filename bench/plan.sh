#!/usr/bin/env bash
# bindlab plan on a big node: 100 distinct layouts of a sweep file planned on
# the 2x EPYC 9654 topology (2 packages, 24 L3 domains, 192 cores, 384 PUs).
# Every layout is one mpirun start (Open MPI's mapper on the foreign
# topology, the ranks only recording their binding) plus the OpenMP places
# model and the outputs. Goal (bench/all.sh) <= 5 s for the 100. Prints the figure.
# usage: bench/plan.sh [ROUNDS]   (default 3; the median is reported)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bindlab=${BINDLAB:-build/bindlab}
topo=configs/topologies/AMD-19h-Zen4-2xEpyc-9654.xml
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 100 layouts, all different placements: 6 rank layouts x 4 OMP_PLACES x
# 2 OMP_PROC_BIND x 2 thread counts = 96, plus 4 pure-MPI layouts.
{
    echo "name: plan-bench"
    echo "kernels: [triad]"
    echo "layouts:"
    n=0
    for rl in "2 ppr:1:package:PE=96" "4 ppr:2:package:PE=48" \
              "8 ppr:4:package:PE=24" "24 ppr:1:l3cache:PE=8" \
              "48 ppr:2:l3cache:PE=4" "2 package"; do
        set -- $rl
        for places in cores threads ll_caches numa_domains; do
            for bind in close spread; do
                for t in fill 4; do
                    echo "  - {name: l$n, np: $1, map_by: \"$2\", bind_to: $([ "$2" = package ] && echo package || echo core), omp_places: $places, omp_proc_bind: $bind, threads: $t}"
                    n=$((n + 1))
                done
            done
        done
    done
    echo "  - {name: mpi192, np: 192, map_by: core, bind_to: core, threads: 1}"
    echo "  - {name: mpi192rr, np: 192, map_by: socket, rank_by: socket, bind_to: core, threads: 1}"
    echo "  - {name: mpi384, np: 384, map_by: hwthread, bind_to: hwthread, threads: 1}"
    echo "  - {name: none2, np: 2, map_by: package, bind_to: none, threads: 96, omp_places: cores, omp_proc_bind: spread}"
} >"$work/bench.yaml"
layouts=$(grep -c '^  - {name:' "$work/bench.yaml")

for r in $(seq 1 "$rounds"); do
    start=$(date +%s.%N)
    rc=0
    "$bindlab" plan "$work/bench.yaml" --topology "$topo" --format tsv \
        >"$work/out.tsv" 2>"$work/err" || rc=$?
    end=$(date +%s.%N)
    if [ "$rc" -ne 0 ]; then
        echo "bindlab plan failed (exit $rc):" >&2
        grep -v ': warning: ' "$work/err" | head -5 >&2
        exit 1
    fi
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
done >"$work/times"
rows=$(($(wc -l <"$work/out.tsv") - 1))
sort -n "$work/times" | awk -v n="$layouts" -v rows="$rows" -v r="$rounds" '
    { t[NR] = $1 }
    END {
        m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
        printf "bindlab plan: %d layouts on 2x EPYC 9654 (384 PUs), %d rank.thread rows: median %.2f s over %d rounds (%.0f ms per layout; min %.2f, max %.2f); goal <= 5 s (bench/all.sh)\n", n, rows, m, r, 1000 * m / n, t[1], t[NR]
        printf "bench-result plan.layouts100_s %.3f\n", m
    }'
