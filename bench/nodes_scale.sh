#!/usr/bin/env bash
# The other verbs on a job of N nodes (8 ranks x 16 threads a node, the
# 2x EPYC 7763 topology): `bindlab merge` of its run record (made once per
# N by bindlab-gen-record, two odd nodes), `bindlab sweep --dry-run` of a
# layout with nodes: N inside a made-up Slurm allocation of N nodes
# (bl[1-N], expanded by the real scontrol with a config that is never
# served; each node's topology the EPYC's through --node-topologies), and
# `bindlab slurm --nodes N` (the batch script). Rounds interleave the N;
# each figure is the median over rounds of the wall time, the CPU time
# (user + system: on a loaded machine the steadier of the two) and the
# peak RSS (/usr/bin/time -v), with the output's size and the growth
# ratio time(2N)/time(N) for each doubling. Then the default text of
# `bindlab plan --nodes N` at the largest N: its line count.
# Goals (bench/all.sh): merge of 10,000 nodes <= 10 s and <= 1 GiB, growth
# <= 2.2 per doubling; the plan's default text under 100 lines.
# usage: bench/nodes_scale.sh [ROUNDS [N ...]]
#        (default 3 rounds of 256 512 1024 2048 4096 8192 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_lib.sh
scale_args "$@"
build=${BUILD:-build}
bindlab=$build/bindlab
app=$build/bindlab-app
gen=$build/bench/bindlab-gen-record
topo=$PWD/configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml
[ -x "$bindlab" ] && [ -x "$gen" ] && [ -x "$app" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 1; }
command -v scontrol >/dev/null || { echo "needs scontrol (slurm-client)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

max=0
for n in $sizes; do [ "$n" -gt "$max" ] && max=$n; done
echo "# CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
    "$(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# every node's topology file: one, linked under each name
mkdir "$work/topos"
cp "$topo" "$work/topos/bl1.xml"
python3 -c 'import os, sys
for k in range(2, int(sys.argv[2]) + 1): os.symlink("bl1.xml", "%s/bl%d.xml" % (sys.argv[1], k))' \
    "$work/topos" "$max"
for n in $sizes; do
    "$gen" "$work/n$n.h5" "$topo" "$n" 8 16 --odd
    printf 'ClusterName=bench\nSlurmctldHost=localhost\nNodeName=bl[1-%d] CPUs=128\nPartitionName=p Nodes=bl[1-%d]\n' \
        "$n" "$n" >"$work/slurm$n.conf"
    cat >"$work/s$n.yaml" <<YAML
name: s$n
kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]
layouts: [{name: full, np: $((8 * n)), nodes: $n, map_by: "ppr:8:node:PE=16", bind_to: core, threads: 16}]
YAML
    echo "# record of $n nodes: $(stat -c %s "$work/n$n.h5") bytes"
done

# one KIND N OUT CMD...: the command timed (its stdout in OUT),
# "KIND N wall peak_kb cpu" appended to rows
one() {
    local kind=$1 n=$2 out=$3; shift 3
    /usr/bin/time -v -o "$work/time" "$@" >"$out" 2>"$work/err" ||
        { echo "$kind $n failed:" >&2; cat "$work/err" >&2; exit 1; }
    time_v_row "$kind" "$n" "$work/time" >>"$work/rows"
}
for _ in $(seq 1 "$rounds"); do
    for n in $sizes; do
        one merge "$n" /dev/null "$bindlab" merge -o "$work/m$n.h5" "$work/n$n.h5"
        one dryrun "$n" "$work/dry$n.out" env SLURM_CONF="$work/slurm$n.conf" \
            SLURM_JOB_NODELIST="bl[1-$n]" "$bindlab" sweep --dry-run --app "$app" \
            --results "$work/res" --node-topologies "$work/topos" "$work/s$n.yaml"
        grep -q "^mpirun .* -np $((8 * n)) --host bl1:128,.*,bl$n:128 " "$work/dry$n.out" ||
            { cat "$work/dry$n.out" >&2; echo "dry run of $n nodes: no mpirun line" >&2; exit 1; }
        one slurm "$n" /dev/null "$bindlab" slurm "$work/s$n.yaml" \
            --nodes "$n" --app "$app" --topology "$topo" -o "$work/s$n.sbatch"
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %8s %8s %8s %9s %11s %10s %12s\n' verb nodes wall_s cpu_s peak_MiB ratio_wall ratio_cpu output
for kind in merge dryrun slurm; do
    scale_rows "$work/rows" "$kind" $sizes >"$work/table" # sets SCALE_*
    while read -r n t cpu mib ratio ratio_cpu; do
        case $kind in
            merge) out="$(stat -c %s "$work/m$n.h5") B" ;;
            dryrun) out="$(stat -c %s "$work/dry$n.out") B" ;;
            slurm) out="$(wc -l <"$work/s$n.sbatch") lines" ;;
        esac
        printf '%-7s %8d %8.2f %8.2f %9.1f %11s %10s %12s\n' "$kind" "$n" "$t" "$cpu" \
            "$mib" "$ratio" "$ratio_cpu" "$out"
    done <"$work/table"
    echo "bench-result nodes.$kind.n$max.wall_s $SCALE_WALL"
    echo "bench-result nodes.$kind.n$max.cpu_s $SCALE_CPU"
    echo "bench-result nodes.$kind.n$max.peak_mib $SCALE_MIB"
    echo "bench-result nodes.$kind.worst_cpu_ratio $SCALE_WORST"
done
"$bindlab" plan --topology "$topo" --nodes "$max" -np $((8 * max)) --map-by ppr:8:node:PE=16 \
    --bind-to core --threads 16 >"$work/text" 2>&1 || { cat "$work/text" >&2; exit 1; }
echo "default text of plan --nodes $max: $(wc -l <"$work/text") lines"
echo "bench-result nodes.plan.n$max.text_lines $(wc -l <"$work/text")"
