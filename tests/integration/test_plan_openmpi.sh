#!/bin/bash
# bindlab plan with the installed Open MPI's mapper, any version: a layout
# Open MPI refuses is exit 2 with its message in one line; the TSV form
# has 7 fields on each of its rows, one per thread (4 ranks x 20 = 80); a
# sweep file names its refused layout. Exact outputs: test_plan_golden.sh.
. "$(dirname "$0")/plan_common.sh"
need_openmpi

one_line_exit2 impossible-layout "refuses this layout" \
    --topology "pack:1 core:4 pu:1" -np 8 --map-by slot:PE=4

"$BINDLAB" plan --topology "$XEON" -np 4 --map-by ppr:2:package:PE=10 \
    --threads fill --omp-places threads --omp-proc-bind close --format tsv \
    >"$T/tsv" 2>"$T/err" || fail "tsv: $(cat "$T/err")"
awk -F'\t' 'NF != 7 { exit 1 }' "$T/tsv" || fail "tsv: a line without 7 fields"
# The Xeon 6230 node: 20 cores x 2 hardware threads per package; 2 ranks
# per package with 10 cores each, threads fill = 20 per rank; + a header.
[ "$(wc -l <"$T/tsv")" = 81 ] || fail "tsv: $(wc -l <"$T/tsv") lines, expected 80 rows and a header"

"$BINDLAB" plan tests/fixtures/plan/sweep.yaml --topology "$NPS4" \
    >"$T/sweep" 2>"$T/err"; rc=$?
[ "$rc" = 2 ] || fail "sweep: exit $rc, expected 2 (one layout is refused)"
grep -q '^bindlab plan: r[0-9]*: Open MPI .* refuses this layout' "$T/err" ||
    fail "sweep: refusal not reported: $(cat "$T/err")"
# inside an allocation: Open MPI's mapper asked on the node cut to the
# set (as a cgroup cpuset shows it), its logical cores read back as OS PUs
"$BINDLAB" plan --topology "pack:2 core:4 pu:2" --cpuset 4-7 -np 2 --map-by core \
    --format tsv >"$T/allowed" 2>"$T/err" || fail "--cpuset: $(cat "$T/err")"
[ "$(awk -F'\t' 'NR > 1 { printf "%s:%s ", $1, $3 }' "$T/allowed")" = "0:4-5 1:6-7 " ] ||
    fail "--cpuset 4-7: ranks not on the allowed cores: $(cat "$T/allowed")"
rc=0
"$BINDLAB" plan --topology "pack:2 core:4 pu:2" --cpuset 4-7 -np 3 --map-by core \
    >"$T/allowed" 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q '^does not fit the allowed CPUs 4-7 (--cpuset 4-7): np 3 needs 3 slots, but this node has 2' "$T/allowed" ||
    fail "--cpuset 4-7 -np 3: exit $rc, not said not to fit: $(cat "$T/allowed" "$T/err")"
# A topology without packages (Group objects under the machine): Open MPI
# 4.1 prints no map, the text names each rank's cores; 5 prints packages.
"$BINDLAB" plan --topology "numa:2 group:2 core:2 pu:2" -np 2 --map-by numa \
    --bind-to numa --format tsv >"$T/groups" 2>"$T/err" ||
    fail "groups: $(cat "$T/err")"
awk -F'\t' 'NR > 1 { print $1, $3 }' "$T/groups" >"$T/groups.pus"
expect_line "$T/groups.pus" "0 0-7"
expect_line "$T/groups.pus" "1 8-15"
# Open MPI 4 cuts each rank's binding map at 1023 characters: a node whose
# map is longer (2 x (1 + 600 PUs + 300 cores) = 1802) is refused before
# mpirun starts, saying why, not after a minute's wait
if [ "${OMPI_VERSION%%.*}" = 4 ]; then
    "$BINDLAB" plan --topology "pack:2 core:300 pu:2" -np 2 --format tsv \
        >"$T/big" 2>"$T/err"; rc=$?
    [ "$rc" = 1 ] || fail "big node: exit $rc, expected 1: $(cat "$T/err")"
    grep -q 'would take 1802 characters (1200 PUs) and Open MPI 4 cuts it at 1023' "$T/err" ||
        fail "big node: not refused for its map: $(cat "$T/err")"
fi
echo "ok (Open MPI $OMPI_VERSION)"
