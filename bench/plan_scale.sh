#!/usr/bin/env bash
# bindlab plan at full-machine scale: N nodes of the 2x EPYC 7763 topology,
# 8 ranks a node x 16 threads (ppr:8:node:PE=16, --bind-to core), TSV of
# every thread row. Rounds interleave the node counts (each round runs
# every N once, so drift in the machine's load hits them alike); each
# figure is the median over rounds of the wall time (and of the CPU time,
# user + system: on a loaded machine the steadier of the two), the peak RSS
# (/usr/bin/time -v) and the growth ratio time(2N)/time(N) for each
# doubling. Then the default text output of the largest N: its line count.
# Goals (issue "full-machine scale"): 10,000 nodes <= 10 s and <= 1 GiB;
# ratio <= 2.2; the default text under 100 lines.
# usage: bench/plan_scale.sh [ROUNDS [N ...]]
#        (default 3 rounds of 256 512 1024 2048 4096 8192 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_lib.sh
scale_args "$@"
bindlab=${BINDLAB:-build/bindlab}
topo=configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

args() { # N: the plan of N nodes, as bindlab's arguments (one a line)
    printf '%s\n' plan --topology "$topo" --nodes "$1" -np $((8 * $1)) \
        --map-by ppr:8:node:PE=16 --bind-to core --threads 16
}

echo "# CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
    "$(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for n in $sizes; do
        mapfile -t a < <(args "$n")
        /usr/bin/time -v -o "$work/time" "$bindlab" "${a[@]}" --format tsv \
            >"$work/out.tsv" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        rows=$(($(wc -l <"$work/out.tsv") - 1))
        [ "$rows" = $((128 * n)) ] || { echo "N=$n: $rows rows, expected $((128 * n))" >&2; exit 1; }
        awk -v n="$n" '/Elapsed \(wall clock\)/ { split($NF, t, ":"); s = t[1] * 60 + t[2];
                        if (length(t) == 3) s = t[1] * 3600 + t[2] * 60 + t[3] }
                       /Maximum resident/ { kb = $NF }
                       /User time|System time/ { cpu += $NF }
                       END { print n, s, kb, cpu }' "$work/time" >>"$work/rows"
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %10s %8s %8s %10s %11s %10s\n' nodes rows wall_s cpu_s peak_MiB ratio_wall ratio_cpu
prev_n="" prev_t="" prev_c="" worst=0
for n in $sizes; do
    t=$(awk -v n="$n" '$1 == n { print $2 }' "$work/rows" | median)
    kb=$(awk -v n="$n" '$1 == n { print $3 }' "$work/rows" | median)
    cpu=$(awk -v n="$n" '$1 == n { print $4 }' "$work/rows" | median)
    ratio=- ratio_cpu=-
    if [ -n "$prev_n" ] && [ "$n" = $((2 * prev_n)) ]; then
        ratio=$(awk -v a="$prev_t" -v b="$t" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
        ratio_cpu=$(awk -v a="$prev_c" -v b="$cpu" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
        worst=$(awk -v a="$worst" -v b="$ratio_cpu" 'BEGIN { print (b > a ? b : a) }')
    fi
    printf '%8d %10d %8.2f %8.2f %10.1f %11s %10s\n' "$n" $((128 * n)) "$t" "$cpu" \
        "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$ratio" "$ratio_cpu"
    prev_n=$n prev_t=$t prev_c=$cpu
done
echo "bench-result plan.nodes$n.wall_s $t"
echo "bench-result plan.nodes$n.peak_mib $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')"
echo "bench-result plan.worst_cpu_ratio $worst"
last=${sizes##* }
mapfile -t a < <(args "$last")
"$bindlab" "${a[@]}" >"$work/text" 2>&1 || { cat "$work/text" >&2; exit 1; }
echo "default text output of $last nodes: $(wc -l <"$work/text") lines"
echo "bench-result plan.nodes$last.text_lines $(wc -l <"$work/text")"
