#!/usr/bin/env bash
# bindlab report and report --html of a run over many nodes: a run record
# of N nodes x 8 ranks x 16 threads on the 2x EPYC 7763 topology (80,000
# rank rows and 1.28 M thread rows at 10,000 nodes), made once per N by
# bindlab-gen-record with two odd nodes (--odd). Rounds interleave the node
# counts; each figure is the median over rounds of the wall time, the CPU
# time (user + system: on a loaded machine the steadier of the two) and the
# peak RSS (/usr/bin/time -v), with the page's size, the text's lines and
# the growth ratio time(2N)/time(N) for each doubling. The peak RSS counts
# the record's pages while the byte check before reading maps it.
# Goal (issue "full-machine scale"): report --html of 10,000 nodes <= 10 s
# and <= 20 MB.
# usage: bench/report_scale.sh [ROUNDS [N ...]]
#        (default 3 rounds of 256 512 1024 2048 4096 8192 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_lib.sh
rounds=${1:-3}
shift $(( $# > 0 ? 1 : 0 )); sizes=${*:-"256 512 1024 2048 4096 8192 10000"}
build=${BUILD:-build}
bindlab=$build/bindlab
gen=$build/bench/bindlab-gen-record
topo=configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml
[ -x "$bindlab" ] && [ -x "$gen" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
    "$(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
    "$gen" "$work/n$n.h5" "$topo" "$n" 8 16 --odd
    echo "# record of $n nodes: $(stat -c %s "$work/n$n.h5") bytes"
done

# one KIND N CMD...: the command timed, "KIND N wall peak_kb cpu" appended
one() {
    local kind=$1 n=$2; shift 2
    /usr/bin/time -v -o "$work/time" "$@" >"$work/out.$kind.$n" 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
    awk -v k="$kind" -v n="$n" '/Elapsed \(wall clock\)/ { split($NF, t, ":"); s = t[1] * 60 + t[2];
                    if (length(t) == 3) s = t[1] * 3600 + t[2] * 60 + t[3] }
                   /Maximum resident/ { kb = $NF }
                   /User time|System time/ { cpu += $NF }
                   END { print k, n, s, kb, cpu }' "$work/time" >>"$work/rows"
}
for _ in $(seq 1 "$rounds"); do
    for n in $sizes; do
        one text "$n" "$bindlab" report "$work/n$n.h5"
        one html "$n" "$bindlab" report "$work/n$n.h5" --html "$work/n$n.html"
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %8s %8s %8s %9s %11s %10s %12s\n' kind nodes wall_s cpu_s peak_MiB ratio_wall ratio_cpu output
for kind in text html; do
    prev_n="" prev_t="" prev_c="" worst=0
    for n in $sizes; do
        t=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $3 }' "$work/rows" | median)
        kb=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $4 }' "$work/rows" | median)
        cpu=$(awk -v k="$kind" -v n="$n" '$1 == k && $2 == n { print $5 }' "$work/rows" | median)
        ratio=- ratio_cpu=-
        if [ -n "$prev_n" ] && [ "$n" = $((2 * prev_n)) ]; then
            ratio=$(awk -v a="$prev_t" -v b="$t" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
            ratio_cpu=$(awk -v a="$prev_c" -v b="$cpu" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
            worst=$(awk -v a="$worst" -v b="$ratio_cpu" 'BEGIN { print (b > a ? b : a) }')
        fi
        if [ "$kind" = html ]; then out="$(stat -c %s "$work/n$n.html") B"
        else out="$(wc -l <"$work/out.text.$n") lines"; fi
        printf '%-5s %8d %8.2f %8.2f %9.1f %11s %10s %12s\n' "$kind" "$n" "$t" "$cpu" \
            "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$ratio" "$ratio_cpu" "$out"
        prev_n=$n prev_t=$t prev_c=$cpu
    done
    echo "bench-result report.nodes$n.${kind}_wall_s $t"
    [ "$kind" = text ] || echo "bench-result report.nodes$n.html_bytes $(stat -c %s "$work/n$n.html")"
    echo "bench-result report.${kind}_worst_cpu_ratio $worst"
done
