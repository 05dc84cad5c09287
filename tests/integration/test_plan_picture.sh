#!/bin/bash
# bindlab plan --picture: lstopo draws the plan as PNG and SVG, each pinned
# thread named on its core, nothing else left in the directory. Needs
# Open MPI (the plan) and an lstopo that can write PNG.
. "$(dirname "$0")/plan_common.sh"
need_openmpi
command -v lstopo >/dev/null || { echo "SKIP: no lstopo in PATH"; exit 77; }
lstopo --of png "$T/probe.png" >/dev/null 2>&1 ||
    { echo "SKIP: this lstopo cannot write PNG (built without cairo)"; exit 77; }

mkdir "$T/pic"
for ext in png svg; do
    "$BINDLAB" plan --topology "$NPS4" -np 2 --map-by ppr:1:package:PE=16 \
        --threads 2 --omp-places cores --omp-proc-bind close \
        --picture "$T/pic/plan.$ext" >/dev/null 2>"$T/err" ||
        fail "picture $ext: $(cat "$T/err")"
done
[ "$(head -c 8 "$T/pic/plan.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "plan.png is not a PNG"
for label in 0.0 0.1 1.0 1.1; do
    grep -q ">$label<" "$T/pic/plan.svg" || fail "plan.svg: no label $label"
done
[ "$(ls "$T/pic")" = "$(printf 'plan.png\nplan.svg')" ] || fail "picture: stray files: $(ls "$T/pic")"
echo "ok"
