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
scale_args "$@"
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
    time_v_row "$kind" "$n" "$work/time" >>"$work/rows"
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
    scale_rows "$work/rows" "$kind" $sizes >"$work/table" # sets SCALE_*
    while read -r n t cpu mib ratio ratio_cpu; do
        if [ "$kind" = html ]; then out="$(stat -c %s "$work/n$n.html") B"
        else out="$(wc -l <"$work/out.text.$n") lines"; fi
        printf '%-5s %8d %8.2f %8.2f %9.1f %11s %10s %12s\n' "$kind" "$n" "$t" "$cpu" \
            "$mib" "$ratio" "$ratio_cpu" "$out"
    done <"$work/table"
    echo "bench-result report.nodes${sizes##* }.${kind}_wall_s $SCALE_WALL"
    echo "bench-result report.nodes${sizes##* }.${kind}_cpu_s $SCALE_CPU"
    [ "$kind" = text ] ||
        echo "bench-result report.nodes${sizes##* }.html_bytes $(stat -c %s "$work/n${sizes##* }.html")"
    echo "bench-result report.${kind}_worst_cpu_ratio $SCALE_WORST"
done
