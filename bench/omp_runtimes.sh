#!/usr/bin/env bash
# bindlab-app's triad and stencil on one layout under each OpenMP runtime:
# libgomp (the app as built with GCC), libomp (the app built with clang)
# and intel (the GCC app with Intel's libiomp5 preloaded), interleaved in
# each round (libgomp, libomp, intel, libgomp, ...), then each runtime's
# median and its ratio to libgomp's. Not a test: nothing is asserted. Each
# run's own record names the runtime that served it; a run that names
# another one stops the script. libomp and intel get libgomp.so.1 aliased
# to their runtime, as `bindlab sweep` does (docs/openmp-runtimes.md: else
# libgomp, loaded for OpenBLAS, binds the main thread to one CPU first).
# The first lines name the CPU, the kernels' ISA level and the load
# average, and the last the load after: figures from a busy machine are
# noise. Last lines: "bench-result omp.RUNTIME.KERNEL_vs_libgomp RATIO".
#
# usage: bench/omp_runtimes.sh [BINDLAB_APP]
#   env: APP_LIBOMP (clang-built app; default build-omp-libomp/bindlab-app)
#        LIBIOMP5 (default build-omp/intel-openmp/lib/libiomp5.so)
#        NP (1) THREADS (2) MAP_BY (slot:PE=$THREADS) ROUNDS (5)
#        TRIAD_SIZE (256MiB) GRID (4000) ITERS (10)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench_lib.sh"
app=${1:-$here/build/bindlab-app}
app_libomp=${APP_LIBOMP:-${BINDLAB_APP_LIBOMP:-$here/build-omp-libomp/bindlab-app}}
libiomp5=${LIBIOMP5:-${BINDLAB_LIBIOMP5:-$here/build-omp/intel-openmp/lib/libiomp5.so}}
np=${NP:-1} threads=${THREADS:-2} rounds=${ROUNDS:-5} iters=${ITERS:-10}
map_by=${MAP_BY:-slot:PE=$threads}
[ -x "$app" ] || { echo "omp_runtimes.sh: no $app" >&2; exit 2; }
[ -x "$app_libomp" ] || { echo "omp_runtimes.sh: no clang-built app at $app_libomp (scripts/omp_runtimes.sh: bl_build_omp_libomp_app)" >&2; exit 2; }
[ -f "$libiomp5" ] || { echo "omp_runtimes.sh: no libiomp5 at $libiomp5 (scripts/omp_runtimes.sh)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libomp=$("$app_libomp" --version | sed -n 's/^openmp runtime: libomp [^ ]* //p')
[ -n "$libomp" ] || { echo "omp_runtimes.sh: $app_libomp does not run on libomp" >&2; exit 2; }
mkdir -p "$work/alias/libomp" "$work/alias/intel"
ln -s "$(readlink -f "$libomp")" "$work/alias/libomp/libgomp.so.1"
ln -s "$(readlink -f "$libiomp5")" "$work/alias/intel/libgomp.so.1"

mpirun=(mpirun -np "$np" --map-by "$map_by" --bind-to core)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
omp=(-x OMP_NUM_THREADS="$threads" -x OMP_PLACES=cores -x OMP_PROC_BIND=close)
declare -A kernel_args=(
    [triad]="--kernel triad --size ${TRIAD_SIZE:-256MiB}"
    [stencil]="--kernel stencil --grid ${GRID:-4000}x${GRID:-4000}"
)
runtimes=(libgomp libomp intel)

# run RUNTIME KERNEL: one run; its rate appended to work/RUNTIME.KERNEL
run() {
    local rt=$1 k=$2 env=() bin=$app out
    case $rt in
    libomp) bin=$app_libomp; env=(-x LD_LIBRARY_PATH="$work/alias/libomp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
    intel) env=(-x LD_LIBRARY_PATH="$work/alias/intel${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" -x LD_PRELOAD="$libiomp5") ;;
    esac
    # shellcheck disable=SC2086 # the kernel's arguments are words
    out=$("${mpirun[@]}" "${omp[@]}" "${env[@]}" "$bin" ${kernel_args[$k]} \
          --iters "$iters" --warmup 2 --show-placement --out "$work/r.h5" 2>&1) ||
        { echo "$out" >&2; echo "omp_runtimes.sh: $rt $k failed" >&2; exit 1; }
    grep -q "^openmp runtime: $rt " <<<"$out" ||
        { grep '^openmp runtime' <<<"$out" >&2; echo "omp_runtimes.sh: $rt asked, another ran" >&2; exit 1; }
    if grep -q "two-omp-runtimes" <<<"$out"; then
        echo "omp_runtimes.sh: $rt: two runtimes in the process" >&2; exit 1
    fi
    sed -n 's/^bindlab-app: result .* rate=\([^ ]*\).*/\1/p' <<<"$out" >>"$work/$rt.$k"
    isa=$(sed -n 's/^bindlab-app: result .* isa=\([^ ]*\).*/\1/p' <<<"$out")
}

echo "cpu: $(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)," \
     "$(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "layout: np $np, map-by $map_by, bind-to core, $threads threads, OMP_PLACES=cores OMP_PROC_BIND=close; $rounds rounds, $iters iterations"
for rt in "${runtimes[@]}"; do
    case $rt in
    libgomp) echo "libgomp: $("$app" --version | sed -n 's/^openmp runtime: //p')" ;;
    libomp) echo "libomp:  $("$app_libomp" --version | sed -n 's/^openmp runtime: //p')" ;;
    intel) echo "intel:   $(LD_PRELOAD=$libiomp5 LD_LIBRARY_PATH=$work/alias/intel "$app" --version | sed -n 's/^openmp runtime: //p')" ;;
    esac
done
isa=-
for ((r = 1; r <= rounds; r++)); do
    for k in triad stencil; do
        for rt in "${runtimes[@]}"; do run "$rt" "$k"; done
    done
done
echo "kernels' ISA level: $isa"
printf '%-8s %-8s %12s %8s\n' kernel runtime median vs_libgomp
for k in triad stencil; do
    base=$(median <"$work/libgomp.$k")
    for rt in "${runtimes[@]}"; do
        m=$(median <"$work/$rt.$k")
        ratio=$(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
        unit=GB/s; [ "$k" = stencil ] && unit=MLUP/s
        printf '%-8s %-8s %12s %8s  %s\n' "$k" "$rt" "$m" "$ratio" "$unit"
        [ "$rt" = libgomp ] || echo "bench-result omp.$rt.${k}_vs_libgomp $ratio"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
