#!/usr/bin/env bash
# LU GFLOP/s against DGEMM's own GFLOP/s on the same cores, threads and
# binding (not a test). For each layout and N, each round runs
# bindlab-dgemm (an N x N x N multiply on every rank) and then
# bindlab-app --kernel lu (then COMPARE_APP, if given), so that the
# machine's drift hits both alike; it prints every round with the LU's
# time split (from the run file), then the median of each column and the
# ratio of the medians, LU / DGEMM. When HPC Challenge is installed
# (Debian's `hpcc`), each round also runs its HPL on the same N, NB, ranks
# (grid), threads and binding: a real HPL as the second peer, LU / HPL.
# A third peer, the BLAS library's own LU: each round also runs
# `bindlab-dgemm --getrf` (OpenBLAS's LAPACK dgetrf of N on every rank, its
# threads, no communication between ranks), LU / getrf.
# The goals (>= 0.88 of DGEMM, >= 1.0 of HPL) live in bench/all.sh; the
# last lines per layout and N are "bench-result lu.nN.RxT RATIO",
# "bench-result lu_hpl.nN.RxT RATIO" and "bench-result lu_getrf.nN.RxT
# RATIO" for them.
#
#   bench/lu_vs_dgemm.sh BUILD_DIR [N ...]      (default N: 10000)
#   env: NB        block size (default: the kernel's own choice for N)
#        ROUNDS    rounds per layout and N (default 3)
#        DGEMM_N   size of the DGEMM (default: the LU's N; OpenBLAS's rate
#                  is flat above N ~ 3000, and N = 10000 takes ~1 min/rank)
#        COMPARE_APP  a second bindlab-app (e.g. an older build) run in the
#                  same rounds right after the first: A/B with one DGEMM
#        LAYOUTS_ONLY  e.g. "1x2" to run one layout
#        HPL=0     leave HPC Challenge's HPL out
#        GETRF=0   leave the library's dgetrf out (left out by itself when
#                  bindlab-dgemm was built without OpenBLAS)
#
# Layouts: "1r x 2t" = 1 rank x 2 threads (OMP_PLACES=cores,
# OMP_PROC_BIND=close, rank bound to the socket), "2r x 1t" = 2 ranks x 1
# thread (--map-by core --bind-to core, grid 1x2). Edit LAYOUTS for bigger
# machines. The split column: per rank, the percent of its step in panel /
# bcast / swap / update / wait / solve (/run/time_split, the master
# thread's timeline; needs python3-h5py, "-" without it).
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [N ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000)
nb_opt=()
[ -z "${NB:-}" ] || nb_opt=(--nb "$NB")
rounds=${ROUNDS:-3}
app=$build/bindlab-app
dgemm=$build/bench/bindlab-dgemm
apps=("$app")
[ -z "${COMPARE_APP:-}" ] || apps+=("$COMPARE_APP")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=
for p in python3 /usr/bin/python3; do
    "$p" -c 'import h5py' 2> /dev/null && { py=$p; break; }
done

# name | ranks | threads | grid | mpirun mapping | key for bench/all.sh
LAYOUTS=(
    "1r x 2t|1|2|1x1|--map-by socket --bind-to socket|1x2"
    "2r x 1t|2|1|1x2|--map-by core --bind-to core|2x1"
)

# shellcheck source=bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"   # median
hpl_input=$(dirname "$0")/../tests/apps/hpcc/hpccinf.txt
use_hpl=0
[ "${HPL:-1}" = 0 ] || ! command -v hpcc > /dev/null || use_hpl=1
use_getrf=1
[ "${GETRF:-1}" != 0 ] || use_getrf=0

# HPL GFLOP/s of one hpcc run: N NB P Q NP THREADS MAPPING...; hpcc reads
# hpccinf.txt from its working directory and appends to hpccoutf.txt
# there, so each run gets a fresh one. Only HPL's problem (lines 6, 8, 11,
# 12) changes; the other kernels of hpcc run on their own small sizes.
hpl_gflops() {
    local n=$1 nb=$2 p=$3 q=$4 np=$5 th=$6 dir
    shift 6
    dir=$(mktemp -d "$tmp/hpl.XXXX")
    awk -v n="$n" -v nb="$nb" -v p="$p" -v q="$q" '
        NR == 6 { $1 = n } NR == 8 { $1 = nb } NR == 11 { $1 = p }
        NR == 12 { $1 = q } { print }' "$hpl_input" > "$dir/hpccinf.txt"
    (cd "$dir" && OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
        mpirun -np "$np" "$@" hpcc > hpcc.log 2>&1) ||
        { cat "$dir/hpcc.log" >&2; return 1; }
    awk -F= '$1 == "HPL_Tflops" { printf "%.2f\n", $2 * 1000 }' "$dir/hpccoutf.txt"
}

# "r0 pa/bc/sw/up/wa/so=5/1/2/88/3/1 r1 ..." from a run file's time split
split_of() {
    [ -n "$py" ] || { echo -; return; }
    "$py" - "$1" 2> /dev/null <<'EOF' || echo -
import sys, h5py
t = h5py.File(sys.argv[1], "r")["/run/time_split"][()]
name = lambda v: v.decode() if isinstance(v, bytes) else v
out = []
for r in sorted(set(int(x["rank"]) for x in t)):
    rows = [x for x in t if int(x["rank"]) == r]
    tot = rows[0]["total_s"]
    out.append("r%d %s" % (r, "/".join("%.0f" % (100 * x["seconds"] / tot) for x in rows)))
print(" ".join(out))
EOF
}
# the NB the run used, from its result line's detail
nb_of() { sed -n 's/.*(N=[0-9]* NB=\([0-9]*\) .*/\1/p' <<< "$1" | head -n 1; }

echo "# $(uptime)"
echo "# split: per rank, % of its step in panel/bcast/swap/update/wait/solve"
for spec in "${LAYOUTS[@]}"; do
    IFS='|' read -r name np th grid map key <<< "$spec"
    [ -z "${LAYOUTS_ONLY:-}" ] || [[ " $LAYOUTS_ONLY " == *" $key "* ]] || continue
    read -r -a mapping <<< "$map"
    for n in "${sizes[@]}"; do
        dn=${DGEMM_N:-$n}
        printf '%-8s %6s %4s %5s %10s' layout N NB round dgemm_GFLOPs
        for a in "${!apps[@]}"; do printf ' %9s %6s' "lu$a" ratio; done
        [ "$use_hpl" = 0 ] || printf ' %9s %6s' hpl lu/hpl
        [ "$use_getrf" = 0 ] || printf ' %9s %6s' getrf lu/getrf
        printf '  split (lu0)\n'
        dg_rates=() lu_rates=() lu2_rates=() hpl_rates=() getrf_rates=() nb=-
        for ((r = 1; r <= rounds; r++)); do
            out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                  mpirun -np "$np" "${mapping[@]}" "$dgemm" "$dn" 1)
            dg=$(sed -n 's/.* gflops=\([^ ]*\).*/\1/p' <<< "$out")
            dg_rates+=("$dg")
            line=
            split=-
            for a in "${!apps[@]}"; do
                out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                      mpirun -np "$np" "${mapping[@]}" "${apps[$a]}" --kernel lu \
                      --n "$n" ${nb_opt[@]+"${nb_opt[@]}"} --grid "$grid" --iters 1 \
                      --warmup 0 --out "$tmp/lu.h5")
                grep -q 'verified=yes' <<< "$out" || { echo "$out" >&2; exit 1; }
                lu=$(sed -n 's/^bindlab-app: result .* rate=\([^ ]*\).*/\1/p' <<< "$out")
                if [ "$a" = 0 ]; then
                    lu_rates+=("$lu"); split=$(split_of "$tmp/lu.h5"); nb=$(nb_of "$out")
                else
                    lu2_rates+=("$lu")
                fi
                line+=$(printf ' %9.2f %6.3f' "$lu" \
                        "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')")
            done
            if [ "$use_hpl" = 1 ]; then
                # HPL on the LU's own block size and process grid
                hpl=$(hpl_gflops "$n" "$nb" "${grid%x*}" "${grid#*x}" "$np" "$th" \
                      "${mapping[@]}")
                hpl_rates+=("$hpl")
                line+=$(printf ' %9.2f %6.3f' "$hpl" "$(awk -v a="${lu_rates[-1]}" \
                        -v b="$hpl" 'BEGIN { print a / b }')")
            fi
            if [ "$use_getrf" = 1 ]; then
                # exit 2: built without OpenBLAS's LAPACK (says so itself)
                if out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                         mpirun -np "$np" "${mapping[@]}" "$dgemm" --getrf "$n" 1); then
                    gf=$(sed -n 's/.* gflops=\([^ ]*\).*/\1/p' <<< "$out")
                    getrf_rates+=("$gf")
                    line+=$(printf ' %9.2f %6.3f' "$gf" "$(awk -v a="${lu_rates[-1]}" \
                            -v b="$gf" 'BEGIN { print a / b }')")
                else
                    use_getrf=0
                fi
            fi
            printf '%-8s %6d %4s %5d %10.2f%s  %s\n' "$name" "$n" "$nb" "$r" "$dg" \
                   "$line" "$split"
        done
        dg=$(printf '%s\n' "${dg_rates[@]}" | median)
        lu=$(printf '%s\n' "${lu_rates[@]}" | median)
        ratio=$(awk -v a="$lu" -v b="$dg" 'BEGIN { printf "%.4f", a / b }')
        printf '%-8s %6d %4s %5s %10.2f %9.2f %6.3f' "$name" "$n" "$nb" median \
               "$dg" "$lu" "$ratio"
        if [ ${#lu2_rates[@]} -gt 0 ]; then
            lu=$(printf '%s\n' "${lu2_rates[@]}" | median)
            printf ' %9.2f %6.3f' "$lu" \
                   "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')"
        fi
        if [ ${#hpl_rates[@]} -gt 0 ]; then
            hpl=$(printf '%s\n' "${hpl_rates[@]}" | median)
            lu=$(printf '%s\n' "${lu_rates[@]}" | median)
            hpl_ratio=$(awk -v a="$lu" -v b="$hpl" 'BEGIN { printf "%.4f", a / b }')
            printf ' %9.2f %6.3f' "$hpl" "$hpl_ratio"
        fi
        if [ ${#getrf_rates[@]} -gt 0 ]; then
            gf=$(printf '%s\n' "${getrf_rates[@]}" | median)
            lu=$(printf '%s\n' "${lu_rates[@]}" | median)
            getrf_ratio=$(awk -v a="$lu" -v b="$gf" 'BEGIN { printf "%.4f", a / b }')
            printf ' %9.2f %6.3f' "$gf" "$getrf_ratio"
        fi
        printf '   (ratio of medians)\n'
        echo "bench-result lu.n$n.$key $ratio"
        [ ${#hpl_rates[@]} = 0 ] || echo "bench-result lu_hpl.n$n.$key $hpl_ratio"
        [ ${#getrf_rates[@]} = 0 ] || echo "bench-result lu_getrf.n$n.$key $getrf_ratio"
    done
done
