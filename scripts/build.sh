#!/usr/bin/env bash
# Configures and builds bindlab into build/ (or the directory given), with
# any extra CMake options after it: scripts/build.sh build-asan -DBINDLAB_SANITIZE=ON
# One tree per MPI: scripts/build.sh build-mpi-ompi5 -DMPI_C_COMPILER=$PWD/build-mpi/ompi5/bin/mpicc
# (or -DMPI_HOME=PREFIX; scripts/mpis.sh installs the tested MPIs; README "Your own MPI").
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
mkdir -p "$dir"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log" >&2; exit 1; }
grep -E '^-- bindlab:' "$dir/configure.log" || true
cmake --build "$dir" -j"$(nproc)"
