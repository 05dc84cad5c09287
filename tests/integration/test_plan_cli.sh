#!/bin/bash
# bindlab plan, the part that needs no MPI: bad input is exit 2 with one
# line naming the problem, and the verb is listed in the help.
# test_plan_openmpi.sh (any Open MPI), test_plan_golden.sh (the Open MPI
# the golden files were made with) and test_plan_picture.sh (lstopo
# pictures) cover the rest, each skipping on its own with its reason.
. "$(dirname "$0")/plan_common.sh"

one_line_exit2 missing-topology "no such file" --topology "$T/none.xml" -np 2
one_line_exit2 malformed-topology "malformed.xml:6:1: not well-formed XML" \
    --topology "$BINDLAB_FIXTURES/plan/malformed.xml" -np 2
one_line_exit2 unknown-omp-places "omp_places 'sockets2'" \
    --topology "$NPS4" -np 2 --omp-places sockets2
one_line_exit2 bad-format "accepted: text, tsv" --topology "$NPS4" -np 2 --format csv
one_line_exit2 bad-picture ".png, .svg or .pdf" --topology "$NPS4" -np 2 --picture p.gif
one_line_exit2 no-np "give -np" --topology "$NPS4"
one_line_exit2 cpuset-and-allocation "give one" --topology "$NPS4" -np 2 --cpuset 0 --allocation
one_line_exit2 cpuset-outside "none of this topology's" --topology "pack:1 core:2 pu:1" -np 1 --cpuset 8
one_line_exit2 cpuset-bad "--cpuset: cpuset 'x'" --topology "$NPS4" -np 1 --cpuset x
"$BINDLAB" plan --help | grep -q '^usage: bindlab plan' || fail "--help"
"$BINDLAB" --help | grep -q '^  plan ' || fail "plan missing from bindlab --help"
echo "ok"
