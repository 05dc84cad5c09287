#!/usr/bin/env bash
# What libbindlab-probe.so costs a program it is preloaded into, at the
# default sampling period (5 ms): LAMMPS's Lennard-Jones melt and GROMACS's
# water box (tests/apps/), 2 ranks bound to cores (mpirun of Debian's Open
# MPI, which they are built against), each run plain and under the probe,
# interleaved and alternating which goes first (A B, B A, ...), ROUNDS
# rounds. Per program: the median of the rate each prints (LAMMPS tau/day,
# GROMACS ns/day), of the wall time and of the CPU time (mpirun and the
# ranks), plain and probed; the ratios probed / plain of the medians (rate
# ratio 1.00 = no cost; the goal is >= 0.99, at most 1 %), and the median
# of the per-round rate ratios (less moved by a load that changes between
# rounds). Names the CPU model, its x86-64 ISA level and the load before
# and after: on a shared machine the spread of the runs can be larger
# than what is measured. So it also gives what load does not move: the
# sampler thread's own CPU time (the probe's "sampler" line, getrusage of
# that thread) as a share of the ranks' wall time, and per sample round
# in microseconds.
# usage: bench/probe_overhead.sh [ROUNDS]   (default 5; needs build/ and
#        scripts/apps.sh's programs; BINDLAB_PROBE or build/libbindlab-probe.so)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
probe=$(realpath "${BINDLAB_PROBE:-build/libbindlab-probe.so}")
[ -f "$probe" ] || { echo "build first: scripts/build.sh (needs $probe)" >&2; exit 1; }
for p in lmp gmx gmx_mpi; do
    command -v "$p" >/dev/null || { echo "$p is missing: run scripts/apps.sh" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GMX_MAXBACKUP=-1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh # median_of_column

mpirun=(mpirun -np 2 --bind-to core)
[ "$(id -u)" != 0 ] || mpirun+=(--allow-run-as-root)
bash tests/apps/gromacs/prepare.sh "$work/gmx" >/dev/null

isa=$(/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null |
      awk '/\(supported, searched\)/ { print $1; exit }')
echo "# $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs," \
     "ISA ${isa:-unknown}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# one PROGRAM plain|probe: one run in a fresh directory; prints
# "RATE WALL_S CPU_S" (the rate line's first number; CPU: user + system
# of mpirun and the ranks, which the probe's sampler adds to).
one() {
    local d=$work/run.$1.$2 rate TIMEFORMAT='%R %U %S'
    local -a pre=() times
    rm -rf "$d" && mkdir -p "$d/probe"
    [ "$2" = plain ] || pre=(-x LD_PRELOAD="$probe" -x BINDLAB_PROBE_DIR="$d/probe")
    [ "$1" = lammps ] || cp "$work/gmx/topol.tpr" "$d/"
    { time (cd "$d" && case $1 in
        lammps) "${mpirun[@]}" "${pre[@]}" lmp -in "$OLDPWD/tests/apps/lammps/in.lj" -log none ;;
        gromacs) "${mpirun[@]}" "${pre[@]}" gmx_mpi -quiet mdrun -s topol.tpr -ntomp 1 -nb cpu ;;
        esac >out 2>&1); } 2>"$d/time" ||
        { tail -20 "$d/out" >&2; echo "$1 ($2) failed" >&2; exit 1; }
    read -r -a times <"$d/time"
    rate=$(sed -n 's/^Performance: *\([0-9.]*\).*/\1/p' "$d/out" | head -1)
    [ -n "$rate" ] || { tail -20 "$d/out" >&2; echo "$1 ($2): no rate line" >&2; exit 1; }
    if [ "$2" = probe ] && [ "$(find "$d/probe" -name 'bindlab-probe.*' ! -name '*.part' | wc -l)" != 2 ]; then
        echo "$1: the probe wrote no 2 complete files: $(ls "$d/probe")" >&2; exit 1
    fi
    # the sampler's own CPU time (its "sampler" lines: getrusage of its
    # thread), summed over the ranks, and its cost per sample round
    local own="0 0 0"
    [ "$2" = plain ] || own=$(cat "$d"/probe/bindlab-probe.* | awk '$1 == "sampler" {
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        cpu += v["cpu_s"]; rounds += v["rounds"] }
        END { printf "%.6f %d %.2f", cpu, rounds, rounds ? cpu * 1e6 / rounds : 0 }')
    echo "$rate ${times[0]} $(awk -v u="${times[1]}" -v s="${times[2]}" 'BEGIN { print u + s }') $own"
}

for prog in lammps gromacs; do
    for r in $(seq 1 "$rounds"); do
        if [ $((r % 2)) = 1 ]; then order="plain probe"; else order="probe plain"; fi
        for v in $order; do echo "$(one "$prog" "$v")" >>"$work/$prog.$v"; done
    done
    # per round: probed rate / plain rate (6 columns each: rate wall cpu own)
    paste -d' ' "$work/$prog.plain" "$work/$prog.probe" | awk '{ print $7 / $1 }' >"$work/$prog.pairs"
    awk -v p="$prog" -v n="$rounds" -v pr="$(median_of_column 1 <"$work/$prog.pairs")" \
        -v r0="$(median_of_column 1 <"$work/$prog.plain")" -v r1="$(median_of_column 1 <"$work/$prog.probe")" \
        -v w0="$(median_of_column 2 <"$work/$prog.plain")" -v w1="$(median_of_column 2 <"$work/$prog.probe")" \
        -v c0="$(median_of_column 3 <"$work/$prog.plain")" -v c1="$(median_of_column 3 <"$work/$prog.probe")" 'BEGIN {
        printf "%s, %d interleaved rounds: median rate %g plain, %g with the probe (ratio %.3f);", p, n, r0, r1, r1 / r0
        printf " median wall %.2f s plain, %.2f s with the probe (ratio %.3f);", w0, w1, w1 / w0
        printf " median CPU %.2f s plain, %.2f s with the probe (ratio %.3f)\n", c0, c1, c1 / c0
        printf "  median of the per-round rate ratios %.3f\n", pr
        printf "bench-result probe.%s.rate_ratio %.4f\n", p, r1 / r0 }'
    # load-independent: the sampler's CPU time against the ranks' wall time
    # (what it takes from a rank that has its CPU to itself), and per round
    awk -v p="$prog" -v w="$(median_of_column 2 <"$work/$prog.probe")" \
        -v c="$(median_of_column 4 <"$work/$prog.probe")" -v us="$(median_of_column 6 <"$work/$prog.probe")" 'BEGIN {
        printf "  the probe sampler CPU (median): %.4f s over the ranks, %.3f %% of 2 ranks x %.2f s wall;", c, 100 * c / (2 * w), w
        printf " %.1f us per sample round\n", us
        printf "bench-result probe.%s.sampler_cpu_fraction %.5f\n", p, c / (2 * w)
        printf "bench-result probe.%s.sampler_round_us %.2f\n", p, us }'
    echo "# $prog rates, plain: $(cut -d' ' -f1 "$work/$prog.plain" | paste -sd' ');" \
         "probe: $(cut -d' ' -f1 "$work/$prog.probe" | paste -sd' ')"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
