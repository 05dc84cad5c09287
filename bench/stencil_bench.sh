#!/usr/bin/env bash
# Side-by-side benchmark of bindlab-app's stencil (not a test: nothing here
# is asserted). Runs, interleaved in each round: stencil, triad, stencil,
# PRK; then the median of each side and three ratios:
#   honest roofline = stencil bytes that really move / triad bytes that
#       really move, per second. The stencil moves 16 B/point when it writes
#       its output with streaming stores (the run file's bytes_per_point
#       says which), else 24 (read, write, write-allocate). The app's triad
#       stores normally: 32 B/element really move (read b, c; write-allocate
#       and write a), not the 24 it reports as GB/s; a triad with streaming
#       stores would move 24.
#   old roofline    = stencil MLUP/s x 24 B / triad GB/s at 24 B/element (the
#       count of older builds: kept for comparison with older figures)
#   vs PRK          = stencil LUP/s / PRK MPIOPENMP stencil LUP/s (same grid,
#       radius, ranks, threads; each program's own timing)
# BASE_APP (another build of bindlab-app, e.g. the one before a change)
# adds its stencil to each round, with its own ratios and new / base.
# The goals are in bench/all.sh; the last lines are "bench-result KEY VALUE"
# for it.
#
# PRK is built from a ParRes/Kernels checkout given on the command line, in
# a scratch copy under ${TMPDIR:-/tmp}; nothing of it enters this repo and
# nothing is downloaded (offline machines: clone it elsewhere and copy it
# over). Without one ('-' or nothing), the PRK column is skipped.
#
# usage: bench/stencil_bench.sh [PRK_DIR|-] [BINDLAB_APP]
#   env: NP (2) THREADS (1) GRID (8000) RADIUS (2) ITERS (20) PAIRS (5)
#        TRIAD_SIZE (512MiB per rank) MPIRUN_FLAGS (--bind-to core)
#        STENCIL_ARGS (extra options for the app's stencil, e.g. --overlap)
#        BASE_APP (a second bindlab-app build run beside it: before / after)
#        CPUTIME (bindlab-kernel-cputime; default: bench/ of the app's build
#        directory, skipped when missing; '-' skips it)
# Last, bindlab-kernel-cputime (bench/kernel_cputime.c) times the stencil's
# sweep alone and the triad by the ranks' CPU time, which a machine busy
# with other work does not inflate: the memory side without the waits.
set -euo pipefail

prk_src=${1:--}
here=$(cd "$(dirname "$0")/.." && pwd)
app=${2:-$here/build/bindlab-app}
np=${NP:-2}
threads=${THREADS:-1}
grid=${GRID:-8000}
iters=${ITERS:-20}
pairs=${PAIRS:-5}
triad_size=${TRIAD_SIZE:-512MiB}
radius=${RADIUS:-2}
read -r -a mpirun_flags <<< "${MPIRUN_FLAGS:---bind-to core}"
read -r -a stencil_args <<< "${STENCIL_ARGS:-}"
base_app=${BASE_APP:-}
cputime=${CPUTIME:-$(dirname "$app")/bench/bindlab-kernel-cputime}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=$threads

[ -x "$app" ] || { echo "stencil_bench: no bindlab-app at $app" >&2; exit 2; }
[ -z "$base_app" ] || [ -x "$base_app" ] ||
    { echo "stencil_bench: BASE_APP: no bindlab-app at $base_app" >&2; exit 2; }
if [ "$prk_src" != - ] && [ ! -f "$prk_src/MPIOPENMP/Stencil/stencil.c" ]; then
    echo "stencil_bench: $prk_src is not a ParRes/Kernels checkout" >&2; exit 2
fi
py=
for p in python3 /usr/bin/python3; do
    "$p" -c 'import h5py' 2> /dev/null && { py=$p; break; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/bindlab-stencil.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- build PRK's MPI+OpenMP stencil (star, double) ---------------------------
prk=
if [ "$prk_src" != - ]; then
    cp -r "$prk_src/common" "$prk_src/include" "$work/"
    mkdir -p "$work/MPIOPENMP"
    cp -r "$prk_src/MPIOPENMP/Stencil" "$work/MPIOPENMP/"
    # PRK at -O3 -march=native: its best on this CPU, as bindlab's kernels
    # run at the best ISA level the CPU has (docs/kernels/isa.md).
    cat > "$work/common/make.defs" <<'EOF'
CC=gcc -std=c11
MPICC=mpicc -std=c11
DEFAULT_OPT_FLAGS=-O3 -march=native
OPENMPFLAG=-fopenmp
EOF
    make -s -C "$work/MPIOPENMP/Stencil" stencil RADIUS="$radius" > "$work/build.log" 2>&1 ||
        { cat "$work/build.log" >&2; exit 1; }
    prk=$work/MPIOPENMP/Stencil/stencil
fi

# --- one run of each program, printing its rate ------------------------------
bytes_per_point=
run_stencil() {  # [APP [RUN_FILE]]: MLUP/s from the app's result line
    local out
    out=$(mpirun -np "$np" "${mpirun_flags[@]}" "${1:-$app}" --kernel stencil \
              --grid "$grid" --radius "$radius" --iters "$iters" \
              ${stencil_args[@]+"${stencil_args[@]}"} \
              --out "${2:-$work/st.h5}") || return 0
    sed -n 's/^bindlab-app: result .*verified=yes.* rate=\([^ ]*\) unit=MLUP\/s.*/\1/p' <<< "$out"
}
run_triad() {    # GB/s at 24 B/element, as the app reports it
    mpirun -np "$np" "${mpirun_flags[@]}" "$app" --kernel triad \
        --size "$triad_size" --iters "$iters" |
        sed -n 's/^bindlab-app: result .*verified=yes.* rate=\([^ ]*\) unit=GB\/s.*/\1/p'
}
run_prk() {      # MLUP/s: interior points / PRK's average iteration time
    mpirun -np "$np" "${mpirun_flags[@]}" "$prk" "$threads" "$iters" "$grid" |
        awk -v n="$grid" -v r="$radius" '/Solution validates/ {ok = 1}
            /Avg time/ {t = $NF}
            END {if (ok && t > 0) printf "%.3f\n", (n - 2*r)^2 / t / 1e6}'
}
# The stencil's own count of bytes per point (16 with streaming stores, 24
# without), from its run file's metrics.
stencil_bytes() {  # [RUN_FILE]
    [ -n "$py" ] || { echo 24; return; }
    "$py" - "${1:-$work/st.h5}" <<'EOF'
import sys, h5py
m = h5py.File(sys.argv[1], "r")["/run/metrics"][()]
name = lambda v: v.decode() if isinstance(v, bytes) else v
print("%g" % [r["value"] for r in m if name(r["name"]) == "bytes_per_point"][0])
EOF
}
# shellcheck source=bench/bench_lib.sh
source "$here/bench/bench_lib.sh"   # median

s_file=$work/stencil.txt; t_file=$work/triad.txt; p_file=$work/prk.txt
b_file=$work/base.txt; r_file=$work/rounds.txt
: > "$s_file"; : > "$t_file"; : > "$p_file"; : > "$b_file"; : > "$r_file"
echo "stencil_bench: np=$np threads=$threads grid=$grid radius=$radius" \
     "iters=$iters pairs=$pairs triad --size $triad_size" \
     "${stencil_args[*]+stencil options: ${stencil_args[*]}}"
[ -z "$base_app" ] || echo "base build: $base_app"
echo "# $(uptime)"
for ((k = 1; k <= pairs; k++)); do
    s=$(run_stencil); t=$(run_triad)
    b=-; [ -z "$base_app" ] || b=$(run_stencil "$base_app" "$work/base.h5")
    s2=$(run_stencil)
    p=-; [ -z "$prk" ] || p=$(run_prk)
    for v in "$s" "$t" "$b" "$s2" "$p"; do
        [ -n "$v" ] || { echo "stencil_bench: a run failed to verify" >&2; exit 1; }
    done
    printf '%s\n%s\n' "$s" "$s2" >> "$s_file"
    echo "$t" >> "$t_file"; [ "$p" = - ] || echo "$p" >> "$p_file"
    [ "$b" = - ] || echo "$b" >> "$b_file"
    echo "$s $s2 $t $b $p" >> "$r_file"
    echo "  round $k: stencil $s, $s2 MLUP/s  triad $t GB/s (24 B)  PRK $p MLUP/s" \
         "${base_app:+ base $b MLUP/s}"
done
bytes_per_point=$(stencil_bytes) ||
    { echo "stencil_bench: cannot read bytes_per_point from the run file" >&2; exit 1; }
[ -n "$py" ] || echo "stencil_bench: no python3 h5py: assuming 24 B/point" >&2
base_bytes=-; bm=-
if [ -n "$base_app" ]; then
    base_bytes=$(stencil_bytes "$work/base.h5") ||
        { echo "stencil_bench: cannot read the base build's bytes_per_point" >&2; exit 1; }
    bm=$(median < "$b_file")
fi
sm=$(median < "$s_file"); tm=$(median < "$t_file")
pm=-; [ -z "$prk" ] || pm=$(median < "$p_file")
echo "# $(uptime)"
awk -v s="$sm" -v t="$tm" -v p="$pm" -v b="$bytes_per_point" \
    -v bm="$bm" -v bb="$base_bytes" 'BEGIN {
    st = s * b / 1e3; tt = t * 32 / 24
    printf "median: stencil %.1f MLUP/s = %.2f GB/s at %g B/point;" \
           " triad %.2f GB/s at 24 B/element = %.2f GB/s at the 32 B that move\n",
           s, st, b, t, tt
    printf "honest roofline ratio (stencil %g B/point / triad 32 B/element) = %.3f\n",
           b, st / tt
    printf "old roofline ratio (stencil 24 B/point / triad 24 B/element)  = %.3f\n",
           s * 24 / 1e3 / t
    if (p != "-") printf "stencil / PRK = %.3fx (PRK %.1f MLUP/s)\n", s / p, p
    else print "stencil / PRK: not run (no PRK checkout given)"
    if (bm != "-") {
        printf "base build: %.1f MLUP/s at %g B/point: honest ratio %.3f," \
               " old ratio %.3f; new / base = %.3fx", bm, bb,
               bm * bb / 1e3 / tt, bm * 24 / 1e3 / t, s / bm
        if (p != "-") printf "; base / PRK = %.3fx", bm / p
        printf "\n"
    }
    printf "bench-result stencil.roofline_honest %.4f\n", st / tt
    printf "bench-result stencil.roofline_old %.4f\n", s * 24 / 1e3 / t
    if (p != "-") printf "bench-result stencil.vs_prk %.4f\n", s / p }'
# Each round's own ratios (its two stencil runs' mean against its triad,
# its base and PRK run), and their medians: when the load changes within
# the run, the ratio of the medians above can pair quiet runs of one side
# with loaded runs of the other; these do not.
awk -v b="$bytes_per_point" -v bb="$base_bytes" '
    function med(v, n,   i, j, x) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) {
            x = v[j]; v[j] = v[j-1]; v[j-1] = x }
        return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2 }
    { s = ($1 + $2) / 2; tt = $3 * 32 / 24; h[NR] = s * b / 1e3 / tt
      line = sprintf("  round %d: honest %.3f", NR, h[NR])
      if ($5 != "-") { q[++nq] = s / $5; line = line sprintf("  vs PRK %.3fx", s / $5) }
      if ($4 != "-") { hb[++nb] = $4 * bb / 1e3 / tt
                       line = line sprintf("  base honest %.3f", hb[nb]) }
      print line }
    END { printf "median of the rounds'"'"' own ratios: honest %.3f", med(h, NR)
          if (nq) printf ", vs PRK %.3fx", med(q, nq)
          if (nb) printf ", base honest %.3f", med(hb, nb)
          printf "\n" }' "$r_file"
if [ "$cputime" != - ] && [ -x "$cputime" ]; then
    echo "CPU time (the stencil's sweep alone, the triad; $cputime):"
    mpirun -np "$np" "${mpirun_flags[@]}" "$cputime" "$grid" "$radius" \
        "$triad_size" "$pairs" "$iters" ||
        { echo "stencil_bench: bindlab-kernel-cputime failed" >&2; exit 1; }
else
    echo "CPU time: not run (no bindlab-kernel-cputime at $cputime)"
fi
