#!/usr/bin/env bash
# Builds bindlab for the emulated NUMA node: software emulation has no
# AVX-512, so -march=native binaries die there with "Illegal instruction".
# A baseline x86-64-v2 build (SSE4.2, no AVX) runs on any x86-64 QEMU CPU.
# Targets: the app, the harness, and the probe with its test program
# (probe_target) for bindlab run inside the node; or the TARGETs named
# ("all" for the tests too, scripts/suite-in-guest.sh).
#   scripts/numa/guest-build.sh BUILD_DIR [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: scripts/numa/guest-build.sh BUILD_DIR [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bindlab-app bindlab probe_target)
mkdir -p "$dir"
# One build at a time in DIR: the numa tests' boots start together.
exec 9>"$dir/.build-lock"
flock 9
if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBINDLAB_NATIVE=OFF \
        -DCMAKE_C_FLAGS=-march=x86-64-v2 >"$dir/configure.log" 2>&1 ||
        { cat "$dir/configure.log" >&2; exit 1; }
fi
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >"$dir/build.log" 2>&1 ||
    { tail -n 30 "$dir/build.log" >&2; exit 1; }
