#!/usr/bin/env bash
# LU GFLOP/s against DGEMM's own GFLOP/s on the same cores, threads and
# binding (issue 7's benchmark; not a test). For each layout and N, each
# round runs bindlab-dgemm (an N x N x N multiply on every rank) and then
# bindlab-app --kernel lu, so that the machine's drift hits both alike;
# it prints every round and then the median of each column and the ratio
# of the medians, LU / DGEMM (issue 16's goal, kept in bench/all.sh: >= 0.88).
# Its last line per layout and N is "bench-result lu.nN.RxT RATIO" for
# bench/all.sh.
#
#   bench/lu_vs_dgemm.sh BUILD_DIR [N ...]      (default N: 10000)
#   env: NB        block size (default 256)
#        ROUNDS    rounds per layout and N (default 3)
#        DGEMM_N   size of the DGEMM (default: the LU's N; OpenBLAS's rate
#                  is flat above N ~ 3000, and N = 10000 takes ~1 min/rank)
#        COMPARE_APP  a second bindlab-app (e.g. an older build) run in the
#                  same rounds right after the first: A/B with one DGEMM
#
# Layouts: "1r x 2t" = 1 rank x 2 threads (OMP_PLACES=cores,
# OMP_PROC_BIND=close, rank bound to the socket), "2r x 1t" = 2 ranks x 1
# thread (--map-by core --bind-to core, grid 1x2). Edit LAYOUTS for bigger
# machines. Per round, `wait_s` is the LU's panel_bcast_s (time spent
# waiting for panels), largest over ranks, from the run file (needs
# python3-h5py; "-" without it).
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [N ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000)
nb=${NB:-256}
rounds=${ROUNDS:-3}
app=$build/bindlab-app
dgemm=$build/bench/bindlab-dgemm
apps=("$app")
[ -z "${COMPARE_APP:-}" ] || apps+=("$COMPARE_APP")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | ranks | threads | grid | mpirun mapping | key for bench/all.sh
LAYOUTS=(
    "1r x 2t|1|2|1x1|--map-by socket --bind-to socket|1x2"
    "2r x 1t|2|1|1x2|--map-by core --bind-to core|2x1"
)

median() { sort -g | awk '{ v[NR] = $1 } END {
    print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# the largest panel_bcast_s over ranks in a run file
wait_s() {
    /usr/bin/python3 - "$1" 2> /dev/null <<'EOF' || echo -
import sys, h5py
m = h5py.File(sys.argv[1], "r")["/run/metrics"][()]
name = lambda v: v.decode() if isinstance(v, bytes) else v
print("%.3f" % max(r["value"] for r in m if name(r["name"]) == "panel_bcast_s"))
EOF
}

echo "# $(uptime)"
for spec in "${LAYOUTS[@]}"; do
    IFS='|' read -r name np th grid map key <<< "$spec"
    read -r -a mapping <<< "$map"
    for n in "${sizes[@]}"; do
        dn=${DGEMM_N:-$n}
        printf '%-8s %6s %4s %5s %10s' layout N NB round dgemm_GFLOPs
        for a in "${!apps[@]}"; do printf ' %9s %7s %6s' "lu$a" wait_s ratio; done
        echo
        dg_rates=() lu_rates=() lu2_rates=()
        for ((r = 1; r <= rounds; r++)); do
            out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                  mpirun -np "$np" "${mapping[@]}" "$dgemm" "$dn" 1)
            dg=$(sed -n 's/.* gflops=\([^ ]*\).*/\1/p' <<< "$out")
            dg_rates+=("$dg")
            printf '%-8s %6d %4d %5d %10.2f' "$name" "$n" "$nb" "$r" "$dg"
            for a in "${!apps[@]}"; do
                out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                      mpirun -np "$np" "${mapping[@]}" "${apps[$a]}" --kernel lu \
                      --n "$n" --nb "$nb" --grid "$grid" --iters 1 --warmup 0 \
                      --out "$tmp/lu.h5")
                grep -q 'verified=yes' <<< "$out" || { echo "$out" >&2; exit 1; }
                lu=$(sed -n 's/^bindlab-app: result .* rate=\([^ ]*\).*/\1/p' <<< "$out")
                if [ "$a" = 0 ]; then lu_rates+=("$lu"); else lu2_rates+=("$lu"); fi
                printf ' %9.2f %7s %6.3f' "$lu" "$(wait_s "$tmp/lu.h5")" \
                       "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')"
            done
            echo
        done
        dg=$(printf '%s\n' "${dg_rates[@]}" | median)
        lu=$(printf '%s\n' "${lu_rates[@]}" | median)
        ratio=$(awk -v a="$lu" -v b="$dg" 'BEGIN { printf "%.4f", a / b }')
        printf '%-8s %6d %4d %5s %10.2f %9.2f %7s %6.3f' "$name" "$n" "$nb" median \
               "$dg" "$lu" "" "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')"
        if [ ${#lu2_rates[@]} -gt 0 ]; then
            lu=$(printf '%s\n' "${lu2_rates[@]}" | median)
            printf ' %9.2f %7s %6.3f' "$lu" "" \
                   "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')"
        fi
        printf '   (ratio of medians)\n'
        echo "bench-result lu.n$n.$key $ratio"
    done
done
