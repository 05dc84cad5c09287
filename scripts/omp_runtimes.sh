#!/usr/bin/env bash
# The OpenMP runtimes bindlab is tested with besides GCC's libgomp:
#   DIR/intel-openmp   Intel's libiomp5 2026.2.0, PyPI package intel-openmp,
#                      in its own Python venv: DIR/intel-openmp/lib/libiomp5.so
#   LLVM's libomp      Debian's libomp-dev (scripts/deps.sh); bindlab-app is
#                      built with clang into build-omp-libomp/ by
#                      scripts/test.sh (bl_build_omp_libomp_app)
# docs/openmp-runtimes.md says how each runs (omp_runtime: in a sweep).
#   scripts/omp_runtimes.sh [DIR]   install what is missing, print the paths
#                                   (DIR default: build-omp/ of the source tree)
# Sourced by scripts/deps.sh (bl_install_omp_runtimes DIR). Never the
# system Python.

BL_OMP_DEFAULT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-omp
BL_INTEL_OPENMP_PACKAGE="intel-openmp==2026.2.0"

# The libiomp5 of an installed DIR, or nothing.
bl_libiomp5_path() {
    local lib=$1/intel-openmp/lib/libiomp5.so
    [ -f "$lib" ] && echo "$lib"
}

bl_install_omp_runtimes() {
    local dir=${1:-build-omp} py=${BINDLAB_PYTHON:-python3} prefix
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    prefix=$dir/intel-openmp
    if [ -z "$(bl_libiomp5_path "$dir")" ]; then
        echo "== installing $BL_INTEL_OPENMP_PACKAGE into $prefix"
        if ! { "$py" -m venv "$prefix" &&
               "$prefix/bin/python" -m pip install -q --no-deps \
                   --disable-pip-version-check "$BL_INTEL_OPENMP_PACKAGE"; } ||
           [ -z "$(bl_libiomp5_path "$dir")" ]; then
            echo "bindlab: could not install $BL_INTEL_OPENMP_PACKAGE into" \
                 "$prefix (see pip's message above); the tests of Intel's" \
                 "runtime fail" >&2
            return 1
        fi
    fi
    echo "intel $(bl_libiomp5_path "$dir")"
}

# bl_build_omp_libomp_app SRC TREE: bindlab-app built with clang (LLVM's
# libomp) into TREE, configured when missing, rebuilt when stale; the
# output goes to TREE/build.log, printed on failure.
bl_build_omp_libomp_app() {
    local src=$1 tree=$2
    mkdir -p "$tree"
    echo "== bindlab-app with clang + libomp in $tree"
    { [ -f "$tree/CMakeCache.txt" ] ||
          cmake -S "$src" -B "$tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
              -DCMAKE_C_COMPILER=clang -DBINDLAB_NATIVE=OFF; } \
        >"$tree/build.log" 2>&1 &&
        cmake --build "$tree" -j"$(nproc)" --target bindlab-app \
            >>"$tree/build.log" 2>&1 ||
        { tail -30 "$tree/build.log"; echo "bindlab: building $tree failed" >&2
          return 1; }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    bl_install_omp_runtimes "${1:-$BL_OMP_DEFAULT_DIR}"
fi
