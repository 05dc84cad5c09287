#!/usr/bin/env bash
# What libbindlab-probe.so costs a program it is preloaded into, at the
# default sampling period (5 ms), against the goal: at most 1 % of the run
# time. LAMMPS's Lennard-Jones melt and GROMACS's water box (tests/apps/),
# 2 ranks bound to cores (mpirun of Debian's Open MPI, which they are built
# against), each run plain and under the probe, interleaved and alternating
# which goes first (A B, B A, ...), ROUNDS rounds.
#
# The probe's cost has two parts, reported apart because a run's length
# weighs them differently:
#   fixed      its start (before main), its MPI_Finalize hook (pages, a
#              last sample) and its end (thread ends, the record written),
#              once per process whatever the run's length: timed by the
#              probe where it is done (its "cost" line), per rank, the
#              ranks' largest (they run side by side);
#   per second the sampler, every period, for as long as the run lasts:
#              its thread's own CPU time (the "sampler" line, getrusage)
#              over the ranks' wall time, which is what it takes from a
#              rank bound to one core (the sampler inherits the binding).
# Their sum for this run length (fixed / plain wall + per-second share) is
# the overhead the goal speaks of; the fixed part shrinks as runs get
# longer. The runs are made long (some 5-10 s plain on a quiet machine:
# LAMMPS_STEPS, GROMACS_STEPS) so that start-up is not most of the wall
# time: with 1 s runs mpirun's own start and the round-to-round spread are
# larger than the effect measured.
#
# Also, as before: medians of the rate each program prints (LAMMPS tau/day,
# GROMACS ns/day), of the wall time and of the CPU time (mpirun and the
# ranks), plain and probed, their ratios, and the median of the per-round
# rate ratios. These move with the machine's load (other jobs on the same
# CPUs) far more than by 1 %: the load before and after is printed, and on
# a shared machine only the two parts above mean something.
# usage: bench/probe_overhead.sh [ROUNDS]   (default 3; needs build/ and
#        scripts/apps.sh's programs; BINDLAB_PROBE or build/libbindlab-probe.so;
#        LAMMPS_STEPS default 5000, GROMACS_STEPS default 8000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
lammps_steps=${LAMMPS_STEPS:-5000}
gromacs_steps=${GROMACS_STEPS:-8000}
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
# the melt, longer: its one run command given the steps
sed "s/^run .*/run             $lammps_steps/" tests/apps/lammps/in.lj >"$work/in.lj"

isa=$(/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null |
      awk '/\(supported, searched\)/ { print $1; exit }')
echo "# $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs," \
     "ISA ${isa:-unknown}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# LAMMPS $lammps_steps steps, GROMACS $gromacs_steps steps, $rounds rounds"

# probe_costs DIR: "SAMPLER_CPU ROUNDS US_PER_ROUND FIXED START FINAL_END"
# from the probe files of one run: the sampler's CPU summed over the ranks,
# its rounds and CPU per round; the fixed work of the rank that did most
# (start + finalize + end), and its start and finalize + end parts.
probe_costs() {
    cat "$1"/bindlab-probe.* | awk '
        { delete v; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        $1 == "sampler" { cpu += v["cpu_s"]; rounds += v["rounds"] }
        $1 == "cost" { f = v["start_s"] + v["finalize_s"] + v["end_s"]
                       if (f > fixed) { fixed = f; st = v["start_s"]; fe = v["finalize_s"] + v["end_s"] } }
        END { printf "%.6f %d %.2f %.6f %.6f %.6f", cpu, rounds,
              rounds ? cpu * 1e6 / rounds : 0, fixed, st, fe }'
}

# one PROGRAM plain|probe: one run in a fresh directory; prints
# "RATE WALL_S CPU_S" and, probed, probe_costs (zeros plain). CPU: user +
# system of mpirun and the ranks, which the probe's sampler adds to.
one() {
    local d=$work/run.$1.$2 rate TIMEFORMAT='%R %U %S'
    local -a pre=() times
    rm -rf "$d" && mkdir -p "$d/probe"
    [ "$2" = plain ] || pre=(-x LD_PRELOAD="$probe" -x BINDLAB_PROBE_DIR="$d/probe")
    [ "$1" = lammps ] || cp "$work/gmx/topol.tpr" "$d/"
    { time (cd "$d" && case $1 in
        lammps) "${mpirun[@]}" "${pre[@]}" lmp -in "$work/in.lj" -log none ;;
        gromacs) "${mpirun[@]}" "${pre[@]}" gmx_mpi -quiet mdrun -s topol.tpr -ntomp 1 -nb cpu \
                     -nsteps "$gromacs_steps" ;;
        esac >out 2>&1); } 2>"$d/time" ||
        { tail -20 "$d/out" >&2; echo "$1 ($2) failed" >&2; exit 1; }
    read -r -a times <"$d/time"
    rate=$(sed -n 's/^Performance: *\([0-9.]*\).*/\1/p' "$d/out" | head -1)
    [ -n "$rate" ] || { tail -20 "$d/out" >&2; echo "$1 ($2): no rate line" >&2; exit 1; }
    local costs="0 0 0 0 0 0"
    if [ "$2" = probe ]; then
        [ "$(find "$d/probe" -name 'bindlab-probe.*' ! -name '*.part' | wc -l)" = 2 ] ||
            { echo "$1: the probe wrote no 2 complete files: $(ls "$d/probe")" >&2; exit 1; }
        costs=$(probe_costs "$d/probe")
    fi
    echo "$rate ${times[0]} $(awk -v u="${times[1]}" -v s="${times[2]}" 'BEGIN { print u + s }') $costs"
}

# col FILE N: the median of column N of $work/FILE
col() { median_of_column "$2" <"$work/$1"; }

# report PROGRAM: the medians of its rounds. Columns of each run line:
# 1 rate 2 wall 3 cpu 4 sampler_cpu 5 rounds 6 us_per_round 7 fixed
# 8 start 9 finalize+end.
report() {
    local p=$1
    paste -d' ' "$work/$p.plain" "$work/$p.probe" | awk '{ print $10 / $1 }' >"$work/$p.pairs"
    awk -v p="$p" -v n="$rounds" -v pr="$(median_of_column 1 <"$work/$p.pairs")" \
        -v r0="$(col "$p.plain" 1)" -v r1="$(col "$p.probe" 1)" -v w0="$(col "$p.plain" 2)" -v w1="$(col "$p.probe" 2)" \
        -v c0="$(col "$p.plain" 3)" -v c1="$(col "$p.probe" 3)" -v sc="$(col "$p.probe" 4)" -v us="$(col "$p.probe" 6)" \
        -v fx="$(col "$p.probe" 7)" -v st="$(col "$p.probe" 8)" -v fe="$(col "$p.probe" 9)" 'BEGIN {
        printf "%s, %d interleaved rounds: median rate %g plain, %g with the probe (ratio %.3f,", p, n, r0, r1, r1 / r0
        printf " median of the per-round ratios %.3f);", pr
        printf " wall %.2f s / %.2f s (ratio %.3f); CPU %.2f s / %.2f s (ratio %.3f)\n", w0, w1, w1 / w0, c0, c1, c1 / c0
        fixed = fx / w0; persec = sc / (2 * w1)
        printf "  fixed cost per rank: %.1f ms (start %.1f ms, finalize + end %.1f ms), %.3f %% of the plain wall time\n",
               1e3 * fx, 1e3 * st, 1e3 * fe, 100 * fixed
        printf "  per-second cost: the sampler %.4f s CPU over 2 ranks x %.2f s, %.3f %% of the ranks time (%.1f us per round)\n",
               sc, w1, 100 * persec, us
        printf "  overhead at this length: %.3f %% (goal <= 1 %%); the fixed part is under 0.1 %% from runs of %.0f s\n",
               100 * (fixed + persec), fx / 0.001
        printf "bench-result probe.%s.rate_ratio %.4f\n", p, r1 / r0
        printf "bench-result probe.%s.fixed_s %.6f\n", p, fx
        printf "bench-result probe.%s.sampler_cpu_fraction %.5f\n", p, persec
        printf "bench-result probe.%s.overhead_fraction %.5f\n", p, fixed + persec
        printf "bench-result probe.%s.sampler_round_us %.2f\n", p, us }'
    echo "# $p rates, plain: $(cut -d' ' -f1 "$work/$p.plain" | paste -sd' ');" \
         "probe: $(cut -d' ' -f1 "$work/$p.probe" | paste -sd' ')"
}

for prog in lammps gromacs; do
    for r in $(seq 1 "$rounds"); do
        if [ $((r % 2)) = 1 ]; then order="plain probe"; else order="probe plain"; fi
        for v in $order; do one "$prog" "$v" >>"$work/$prog.$v"; done
    done
    report "$prog"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
