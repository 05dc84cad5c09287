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
rm -rf "$dir/runs" "$dir/other"
ls "$dir" | wc -l
