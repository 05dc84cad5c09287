#!/usr/bin/env bash
# make_h5_seeds.sh DIR BUILD_DIR: HDF5 seed inputs for fuzz_h5_readers,
# written by the project's own writer: the per-run sweep files of
# report_fixture (a made-up 12-run sweep), one run of another sweep, and
# their merge by `bindlab merge`.
set -euo pipefail
dir=$1 build=$2
rm -rf "$dir"
mkdir -p "$dir/runs" "$dir/other"
"$build/tests/report_fixture" "$dir/runs" >/dev/null
"$build/tests/report_fixture" "$dir/other" other >/dev/null
"$build/bindlab" merge -o "$dir/merged.h5" "$dir/runs" >/dev/null
mv "$dir/other/r0000.h5" "$dir/other-r0000.h5"
for f in "$dir"/runs/r000[0-3].h5; do mv "$f" "$dir/"; done
# matrices: a c2c run file (/run/matrices/c2c) and a matrix file
# (/matrices/c2c); they need two PUs, and are left out without them
if [ "$(nproc)" -ge 2 ]; then
    "$build/bindlab" matrix c2c --round-trips 64 --iters 1 --warmup 0 \
        -o "$dir/matrix.h5" --runs "$dir/matrix.d" >/dev/null 2>&1 &&
        mv "$dir/matrix.d/c2c.h5" "$dir/c2c-run.h5"
    rm -rf "$dir/matrix.d"
fi
rm -rf "$dir/runs" "$dir/other"
ls "$dir" | wc -l
