#!/bin/bash
# bindlab plan: golden outputs on shipped topologies (hwloc's style: run the
# tool on a known topology, compare with the stored output), bad input
# (exit 2, one line), the sweep-file mode and the lstopo picture.
#
# The golden rank placements are Open MPI 4.1.4's answers: on another Open
# MPI version the golden part is skipped with a message. To write new golden
# files after checking the output by eye: BINDLAB_UPDATE_GOLDEN=1 ctest -R plan_cli
set -u
: "${BINDLAB:?BINDLAB not set (is the bindlab target built?)}"
: "${BINDLAB_SOURCE_DIR:?}" "${BINDLAB_FIXTURES:?}"
G=$BINDLAB_FIXTURES/plan/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Paths in the output are relative to the source tree, as users type them.
cd "$BINDLAB_SOURCE_DIR" || fail "no source dir"
EPYC=configs/topologies/AMD-19h-Zen4-2xEpyc-9654.xml
XEON=configs/topologies/Intel-CascadeLake-2xXeon6230.xml
SKYLAKE=configs/topologies/Intel-Skylake-2xXeon6140.xml
NPS4="pack:2 numa:4 l3:2 core:8 pu:2"
skipped=0

# --- bad input: exit 2 and one line on stderr, no Open MPI needed ----------
one_line_exit2() {  # NAME EXPECTED-WORDS ARGS...
    local name=$1 words=$2 rc; shift 2
    "$BINDLAB" plan "$@" >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$T/err"))"
    [ "$(grep -cv '^(see ' "$T/err")" = 1 ] || fail "$name: not one line: $(cat "$T/err")"
    grep -qi -- "$words" "$T/err" || fail "$name: '$words' not in: $(cat "$T/err")"
}
one_line_exit2 missing-topology "no such file" --topology "$T/none.xml" -np 2
one_line_exit2 malformed-topology "hwloc XML file" \
    --topology "$BINDLAB_FIXTURES/plan/malformed.xml" -np 2
one_line_exit2 unknown-omp-places "omp_places 'sockets2'" \
    --topology "$NPS4" -np 2 --omp-places sockets2
one_line_exit2 bad-format "accepted: text, tsv" --topology "$NPS4" -np 2 --format csv
one_line_exit2 bad-picture ".png, .svg or .pdf" --topology "$NPS4" -np 2 --picture p.gif
one_line_exit2 no-np "give -np" --topology "$NPS4"
"$BINDLAB" plan --help | grep -q '^usage: bindlab plan' || fail "--help"
"$BINDLAB" --help | grep -q '^  plan ' || fail "plan missing from bindlab --help"

# --- Open MPI's mapper ------------------------------------------------------
ompi=$(mpirun --version 2>/dev/null | head -n 1)
case $ompi in
*"Open MPI) 4.1.4"*) ;;
*)  echo "golden plans were taken with Open MPI 4.1.4, this is '$ompi': skipped"
    exit 77 ;;
esac

# An impossible layout: Open MPI's refusal, trimmed to one line.
one_line_exit2 impossible-layout "refuses this layout" \
    --topology "pack:1 core:4 pu:1" -np 8 --map-by slot:PE=4

# golden NAME ARGS...: stdout must equal $G/NAME.out (after its comment line)
golden() {
    local name=$1 rc; shift
    "$BINDLAB" plan "$@" >"$T/$name.out" 2>"$T/$name.err"; rc=$?
    if [ -n "${BINDLAB_UPDATE_GOLDEN:-}" ]; then
        { echo "# bindlab plan $* (Open MPI 4.1.4, libgomp model); exit $rc"
          cat "$T/$name.out"; } >"$G/$name.out"
        return
    fi
    [ -f "$G/$name.out" ] || fail "$name: no golden file $G/$name.out"
    want_rc=$(head -n 1 "$G/$name.out" | sed -n 's/.*; exit \([0-9]*\)$/\1/p')
    [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, golden says $want_rc: $(cat "$T/$name.err")"
    tail -n +2 "$G/$name.out" | diff -u - "$T/$name.out" >"$T/diff" ||
        { cat "$T/diff" >&2; fail "$name: output differs from $G/$name.out"; }
}

# One rank per package with 96 cores each, 8 threads spread one per 12 cores.
golden epyc9654-package-pe96-spread --topology "$EPYC" -np 2 \
    --map-by ppr:1:package:PE=96 --bind-to core --threads 8 \
    --omp-places cores --omp-proc-bind spread
# One rank per L3 (CCD), 8 threads close on its cores: 132-column map.
golden epyc9654-l3cache-pe8-close --topology "$EPYC" -np 24 \
    --map-by ppr:1:l3cache:PE=8 --threads 1 --width 132
# Xeon 6230, 2 ranks per package, every hardware thread, TSV.
golden xeon6230-ppr2package-fill-threads --topology "$XEON" -np 4 \
    --map-by ppr:2:package:PE=10 --threads fill --omp-places threads \
    --omp-proc-bind close --format tsv
# Synthetic NPS4: one rank per NUMA node, 4 threads spread.
golden nps4-numa-pe16-spread --topology "$NPS4" -np 8 \
    --map-by ppr:1:numa:PE=16 --threads 4 --omp-places cores --omp-proc-bind spread
# Pure MPI by core: fills package 0 first.
golden nps4-core-np20 --topology "$NPS4" -np 20 --map-by core --bind-to core
# bind-to none, OpenMP unset: everything floats.
golden skylake-bind-none --topology "$SKYLAKE" -np 2 --map-by package \
    --bind-to none --threads 4
# A sweep file: a duplicate placement, and a refused layout (exit 2).
golden sweep-nps4 tests/fixtures/plan/sweep.yaml --topology "$NPS4"
[ -n "${BINDLAB_UPDATE_GOLDEN:-}" ] && { echo "golden files written to $G"; exit 0; }

# TSV is what scripts read: 7 tab-separated fields on every line.
awk -F'\t' 'NF != 7 { exit 1 }' "$T/xeon6230-ppr2package-fill-threads.out" ||
    fail "tsv: a line without 7 fields"
[ "$(wc -l <"$T/xeon6230-ppr2package-fill-threads.out")" = 81 ] || fail "tsv: not 80 rows"
# The refused layout of the sweep file is named on stderr, in one line.
grep -q '^bindlab plan: r[0-9]*: Open MPI .* refuses this layout' "$T/sweep-nps4.err" ||
    fail "sweep: refusal not reported: $(cat "$T/sweep-nps4.err")"

# --- the picture ------------------------------------------------------------
lstopo --of png "$T/probe.png" >/dev/null 2>&1 ||
    { echo "lstopo cannot write PNG here: picture part skipped"; exit 77; }
mkdir "$T/pic"
"$BINDLAB" plan --topology "$NPS4" -np 2 --map-by ppr:1:package:PE=16 \
    --threads 2 --omp-places cores --omp-proc-bind close \
    --picture "$T/pic/plan.png" >/dev/null 2>"$T/err" || fail "picture png: $(cat "$T/err")"
[ "$(head -c 8 "$T/pic/plan.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "plan.png is not a PNG"
"$BINDLAB" plan --topology "$NPS4" -np 2 --map-by ppr:1:package:PE=16 \
    --threads 2 --omp-places cores --omp-proc-bind close \
    --picture "$T/pic/plan.svg" >/dev/null 2>"$T/err" || fail "picture svg: $(cat "$T/err")"
# Each pinned thread is named on its core; nothing else is left behind.
for label in 0.0 0.1 1.0 1.1; do
    grep -q ">$label<" "$T/pic/plan.svg" || fail "plan.svg: no label $label"
done
[ "$(ls "$T/pic")" = "$(printf 'plan.png\nplan.svg')" ] || fail "picture: stray files: $(ls "$T/pic")"
echo "ok"
