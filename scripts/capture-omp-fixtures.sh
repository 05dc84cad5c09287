#!/usr/bin/env bash
# Re-captures tests/fixtures/omp/: what each OpenMP runtime prints about
# thread placement, from bindlab-app on this machine:
#   scripts/capture-omp-fixtures.sh BUILD_DIR LIBOMP_APP IOMP5_SO OUT_DIR
# BUILD_DIR holds the gcc build's bindlab-app (libgomp); LIBOMP_APP is the
# clang build's bindlab-app (LLVM libomp, cmake -DCMAKE_C_COMPILER=clang);
# IOMP5_SO is Intel's libiomp5.so (PyPI intel-openmp), run by LD_PRELOAD
# into the gcc build. Each file starts with a '#' line naming the runtime,
# its version and the exact command.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR LIBOMP_APP IOMP5_SO OUT_DIR}
libomp_app=${2:?usage: $0 BUILD_DIR LIBOMP_APP IOMP5_SO OUT_DIR}
iomp5=${3:?usage: $0 BUILD_DIR LIBOMP_APP IOMP5_SO OUT_DIR}
out=${4:?usage: $0 BUILD_DIR LIBOMP_APP IOMP5_SO OUT_DIR}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS KMP_AFFINITY KMP_HW_SUBSET
app_args=(--kernel triad --size 64KiB --iters 1 --warmup 0 --show-placement)
gomp_v="libgomp (gcc $(gcc -dumpfullversion))"
llvm_v="LLVM libomp $(KMP_VERSION=1 OMP_NUM_THREADS=1 "$libomp_app" \
    "${app_args[@]}" 2>&1 | sed -n 's/^LLVM OMP version: //p')"
intel_v="Intel libiomp5 $(KMP_VERSION=1 OMP_NUM_THREADS=1 LD_PRELOAD="$iomp5" \
    "$build/bindlab-app" "${app_args[@]}" 2>&1 |
    sed -n 's/^Intel(R) OMP version: //p')"

# cap FILE "RUNTIME" VAR=VALUE... -- PROGRAM...: stores '# captured on
# this machine, RUNTIME: VARS PROGRAM' and the program's output. The app
# names the runtime it loaded by its resolved path: that path is written
# as IOMP5_SO was given, so no fixture names the capturing machine's tree.
iomp5_real=$(readlink -f "$iomp5")
cap() {
    local file=$1 rt=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    { printf '# captured on the development VM (%s CPUs), %s: %s %s\n' \
        "$(nproc)" "$rt" "${envs[*]}" "$*"
      env "${envs[@]}" timeout 60 "$@" 2>&1 || true; } |
        sed "s|$iomp5_real|$iomp5|g" >"$out/$file"
}
gomp=("$build/bindlab-app" "${app_args[@]}")
llvm=("$libomp_app" "${app_args[@]}")
intel=(env LD_PRELOAD="$iomp5" "$build/bindlab-app" "${app_args[@]}")

# OMP_DISPLAY_AFFINITY, default format
cap display-libgomp.txt "$gomp_v" OMP_DISPLAY_AFFINITY=true \
    OMP_NUM_THREADS=3 OMP_PROC_BIND=spread -- "${gomp[@]}"
cap display-libomp.txt "$llvm_v" OMP_DISPLAY_AFFINITY=true \
    OMP_NUM_THREADS=3 KMP_AFFINITY=scatter -- "${llvm[@]}"
cap display-intel.txt "$intel_v" OMP_DISPLAY_AFFINITY=true \
    OMP_NUM_THREADS=3 KMP_AFFINITY=scatter -- "${intel[@]}"
# Both runtimes of the clang build react to OMP_PROC_BIND: libgomp (there
# for OpenBLAS) pins the initial thread to its first place when it loads,
# and libomp then sees one CPU.
cap display-libomp-two-runtimes.txt "$llvm_v and libgomp in one process" \
    OMP_DISPLAY_AFFINITY=true OMP_NUM_THREADS=3 OMP_PROC_BIND=spread \
    -- "${llvm[@]}"
# KMP_AFFINITY=verbose with several settings
for rt in libomp intel; do
    if [ $rt = libomp ]; then cmd=("${llvm[@]}") v=$llvm_v; else cmd=("${intel[@]}") v=$intel_v; fi
    cap kmp-$rt-compact.txt "$v" OMP_NUM_THREADS=3 \
        KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-scatter-fine.txt "$v" OMP_NUM_THREADS=4 \
        KMP_AFFINITY=verbose,granularity=fine,scatter -- "${cmd[@]}"
    cap kmp-$rt-balanced-core.txt "$v" OMP_NUM_THREADS=3 \
        KMP_AFFINITY=verbose,granularity=core,balanced -- "${cmd[@]}"
    cap kmp-$rt-hw-subset.txt "$v" OMP_NUM_THREADS=2 KMP_HW_SUBSET=1c \
        KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    # KMP_HW_SUBSET forms (bindlab plan --kmp-hw-subset): an offset, the
    # socket/core/thread form, more cores than exist (libomp: "ignored:
    # too many requested"; Intel's keeps them all), nothing left, a bad
    # value, no binding (the threads float over the subset), and a
    # process limited by taskset (units counted among its CPUs)
    cap kmp-$rt-hw-subset-offset.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=1c@1 KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-sct.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=1s,2c,1t KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-too-many.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=3c KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-none-left.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=1s@1 KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-invalid.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=0c KMP_AFFINITY=verbose,compact -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-unbound.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=1c@1 OMP_DISPLAY_AFFINITY=true -- "${cmd[@]}"
    cap kmp-$rt-hw-subset-taskset.txt "$v" OMP_NUM_THREADS=2 \
        KMP_HW_SUBSET=1c KMP_AFFINITY=verbose,compact -- taskset -c 1 "${cmd[@]}"
    cap kmp-$rt-explicit-invalid.txt "$v" OMP_NUM_THREADS=3 \
        "KMP_AFFINITY=verbose,granularity=fine,explicit,proclist=[1,0,7]" \
        -- "${cmd[@]}"
    cap kmp-$rt-places-ignored.txt "$v" OMP_NUM_THREADS=2 \
        OMP_PLACES=cores OMP_PROC_BIND=close KMP_AFFINITY=verbose,scatter \
        -- "${cmd[@]}"
    cap kmp-$rt-places-reduced.txt "$v" OMP_NUM_THREADS=2 \
        "OMP_PLACES={0},{7}" KMP_AFFINITY=verbose -- "${cmd[@]}"
done
