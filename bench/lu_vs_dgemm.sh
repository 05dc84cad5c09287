#!/usr/bin/env bash
# LU GFLOP/s against DGEMM's own GFLOP/s on the same cores, threads and
# binding (issue 7's benchmark; not a test). For each layout and N, runs
# bindlab-dgemm (an N x N x N multiply on every rank) and bindlab-app
# --kernel lu interleaved, REPS times, and prints the best of each and the
# ratio LU / DGEMM.
#
#   bench/lu_vs_dgemm.sh BUILD_DIR [N ...]      (default N: 6000 8000 10000)
#   env: NB (default 256), REPS (default 2)
#
# Layouts: "1r x 2t" = 1 rank x 2 threads (OMP_PLACES=cores,
# OMP_PROC_BIND=close, rank bound to the socket), "2r x 1t" = 2 ranks x 1
# thread (--map-by core --bind-to core, grid 1x2). Edit LAYOUTS for bigger
# machines.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [N ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(6000 8000 10000)
nb=${NB:-256}
reps=${REPS:-2}
app=$build/bindlab-app
dgemm=$build/bench/bindlab-dgemm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# name | ranks | threads | grid | mpirun mapping
LAYOUTS=(
    "1r x 2t|1|2|1x1|--map-by socket --bind-to socket"
    "2r x 1t|2|1|1x2|--map-by core --bind-to core"
)

best() { awk 'NR == 1 || $1 > m { m = $1 } END { print m }'; }

printf '%-8s %6s %4s %10s %12s %7s\n' layout N NB lu_GFLOPs dgemm_GFLOPs ratio
for spec in "${LAYOUTS[@]}"; do
    IFS='|' read -r name np th grid map <<< "$spec"
    read -r -a mapping <<< "$map"
    for n in "${sizes[@]}"; do
        lu_rates=() dg_rates=()
        for ((r = 0; r < reps; r++)); do
            out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                  mpirun -np "$np" "${mapping[@]}" "$dgemm" "$n" 1)
            dg_rates+=("$(sed -n 's/.* gflops=\([^ ]*\).*/\1/p' <<< "$out")")
            out=$(OMP_NUM_THREADS=$th OMP_PLACES=cores OMP_PROC_BIND=close \
                  mpirun -np "$np" "${mapping[@]}" "$app" --kernel lu \
                  --n "$n" --nb "$nb" --grid "$grid" --iters 1 --warmup 0)
            grep -q 'verified=yes' <<< "$out" || { echo "$out" >&2; exit 1; }
            lu_rates+=("$(sed -n 's/^bindlab-app: result .* rate=\([^ ]*\).*/\1/p' <<< "$out")")
        done
        lu=$(printf '%s\n' "${lu_rates[@]}" | best)
        dg=$(printf '%s\n' "${dg_rates[@]}" | best)
        printf '%-8s %6d %4d %10.2f %12.2f %7.3f\n' "$name" "$n" "$nb" "$lu" \
               "$dg" "$(awk -v a="$lu" -v b="$dg" 'BEGIN { print a / b }')"
    done
done
