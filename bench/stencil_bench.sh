#!/usr/bin/env bash
# Side-by-side benchmark of bindlab-app's stencil (not a test: nothing here
# is asserted). Two ratios, each from interleaved A B A B ... runs and the
# median of each side:
#   roofline  = stencil MLUP/s x 24 B / triad GB/s   (same ranks x threads)
#   vs PRK    = stencil LUP/s / PRK MPIOPENMP stencil LUP/s (same grid,
#               radius 2, ranks, threads; each program's own timing)
# PRK is built from a ParRes/Kernels checkout given on the command line,
# in a scratch copy under ${TMPDIR:-/tmp}; nothing of it enters this repo.
#
# usage: bench/stencil_bench.sh PRK_DIR [BINDLAB_APP] 
#   env: NP (2) THREADS (1) GRID (8000) ITERS (20) PAIRS (5)
#        TRIAD_SIZE (512MiB per rank) MPIRUN_FLAGS (--bind-to core)
set -euo pipefail

prk_src=${1:?usage: $0 PRK_DIR [BINDLAB_APP]}
here=$(cd "$(dirname "$0")/.." && pwd)
app=${2:-$here/build/bindlab-app}
np=${NP:-2}
threads=${THREADS:-1}
grid=${GRID:-8000}
iters=${ITERS:-20}
pairs=${PAIRS:-5}
triad_size=${TRIAD_SIZE:-512MiB}
radius=2
read -r -a mpirun_flags <<< "${MPIRUN_FLAGS:---bind-to core}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=$threads

[ -x "$app" ] || { echo "stencil_bench: no bindlab-app at $app" >&2; exit 2; }
[ -f "$prk_src/MPIOPENMP/Stencil/stencil.c" ] ||
    { echo "stencil_bench: $prk_src is not a ParRes/Kernels checkout" >&2; exit 2; }

# --- build PRK's MPI+OpenMP stencil (radius 2, star, double) ------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/bindlab-prk.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$prk_src/common" "$prk_src/include" "$work/"
mkdir -p "$work/MPIOPENMP"
cp -r "$prk_src/MPIOPENMP/Stencil" "$work/MPIOPENMP/"
# Same optimisation flags as bindlab's own build (-O3 -march=native).
cat > "$work/common/make.defs" <<'EOF'
CC=gcc -std=c11
MPICC=mpicc -std=c11
DEFAULT_OPT_FLAGS=-O3 -march=native
OPENMPFLAG=-fopenmp
EOF
make -s -C "$work/MPIOPENMP/Stencil" stencil RADIUS=$radius > "$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; exit 1; }
prk=$work/MPIOPENMP/Stencil/stencil

# --- one run of each program, printing its rate ------------------------------
run_stencil() {  # MLUP/s from the app's result line
    mpirun -np "$np" "${mpirun_flags[@]}" "$app" --kernel stencil \
        --grid "$grid" --radius $radius --iters "$iters" |
        sed -n 's/^bindlab-app: result .*verified=yes.* rate=\([^ ]*\) unit=MLUP\/s.*/\1/p'
}
run_triad() {    # GB/s
    mpirun -np "$np" "${mpirun_flags[@]}" "$app" --kernel triad \
        --size "$triad_size" --iters "$iters" |
        sed -n 's/^bindlab-app: result .*verified=yes.* rate=\([^ ]*\) unit=GB\/s.*/\1/p'
}
run_prk() {      # MLUP/s: interior points / PRK's average iteration time
    mpirun -np "$np" "${mpirun_flags[@]}" "$prk" "$threads" "$iters" "$grid" |
        awk -v n="$grid" -v r=$radius '/Solution validates/ {ok = 1}
            /Avg time/ {t = $NF}
            END {if (ok && t > 0) printf "%.3f\n", (n - 2*r)^2 / t / 1e6}'
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR+1)/2];
                            else print (v[NR/2] + v[NR/2+1]) / 2}'; }

s_file=$work/stencil.txt; t_file=$work/triad.txt; p_file=$work/prk.txt
: > "$s_file"; : > "$t_file"; : > "$p_file"
echo "stencil_bench: np=$np threads=$threads grid=$grid radius=$radius" \
     "iters=$iters pairs=$pairs triad --size $triad_size"
for ((k = 1; k <= pairs; k++)); do
    s=$(run_stencil); t=$(run_triad); s2=$(run_stencil); p=$(run_prk)
    for v in "$s" "$t" "$s2" "$p"; do
        [ -n "$v" ] || { echo "stencil_bench: a run failed to verify" >&2; exit 1; }
    done
    printf '%s\n%s\n' "$s" "$s2" >> "$s_file"
    echo "$t" >> "$t_file"; echo "$p" >> "$p_file"
    echo "  round $k: stencil $s, $s2 MLUP/s  triad $t GB/s  PRK $p MLUP/s"
done
sm=$(median < "$s_file"); tm=$(median < "$t_file"); pm=$(median < "$p_file")
awk -v s="$sm" -v t="$tm" -v p="$pm" 'BEGIN {
    printf "median: stencil %.1f MLUP/s (%.2f GB/s at 24 B/point)," \
           " triad %.2f GB/s, PRK %.1f MLUP/s\n", s, s * 24 / 1e3, t, p
    printf "roofline ratio (stencil x 24 B / triad) = %.2f   (target >= 0.80)\n",
           s * 24 / 1e3 / t
    printf "stencil / PRK = %.2fx   (target >= 1.5)\n", s / p }'
