#!/usr/bin/env bash
# bindlab plan --node-topologies DIR: nodes of different shapes, with the
# mpirun in PATH (Debian's Open MPI 4). Each rank's node and PUs against an
# answer worked out by hand (which node, which logical cores of it), turned
# into PU OS indexes by hwloc-calc on that node's own XML, not by bindlab.
# Node 1 "epyc" is a 2x EPYC 7763 (2 x 64 cores, 1 PU each), node 2 "xeon"
# a 2x Xeon Gold 6140 (2 x 18 cores, 2 PUs each), from configs/topologies.
#   - np 8 --map-by ppr:2:package:PE=4: each node holds 2 x 2 ranks of 4
#     cores, so ranks 0-3 on the EPYC (0: cores 0-3 of package 0, 1: 4-7,
#     2: the first 4 of package 1 = cores 64-67, 3: 68-71), ranks 4-7 on
#     the Xeon (4: 0-3, 5: 4-7, 6: package 1's first = 18-21, 7: 22-25);
#   - np 6 --map-by node --bind-to core: round robin, 0 2 4 on the EPYC's
#     cores 0 1 2, 1 3 5 on the Xeon's cores 0 1 2;
#   - np 40 --map-by core: the EPYC takes all 40 (128 slots), the Xeon none.
# Refused, naming the node: ppr:20:package np 76 (40 on the EPYC, 36 on the
# Xeon, whose packages have 18 cores: Open MPI refuses to bind 20 ranks to
# them); np 200 by core (164 cores in all); --nodes 3 with 2 files;
# --topology with --node-topologies.
# Then a second method for which ranks go to which node (bindlab's model):
# with both nodes EPYCs, each rank's node equals the node Open MPI's own
# map of the whole job gives it (mpirun --do-not-launch over two made-up
# hosts, run here, not by bindlab), and `--topology --nodes 2` (planned
# node by node too, plan_ranks.h) equals the plan of two copies line for
# line.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --version 2>/dev/null | head -1 | grep -q 'Open MPI' ||
    fail "the mpirun in PATH is not Open MPI (scripts/deps.sh installs it)"
command -v hwloc-calc >/dev/null || fail "no hwloc-calc (hwloc package; scripts/deps.sh installs it)"
TOPOS=$BINDLAB_SOURCE_DIR/configs/topologies
EPYC=$TOPOS/AMD-19h-Zen3-2xEpyc-7763.xml XEON=$TOPOS/Intel-Skylake-2xXeon6140.xml
mkdir -p "$WORK/mix" "$WORK/same"
cp "$EPYC" "$WORK/mix/epyc.xml"
cp "$XEON" "$WORK/mix/xeon.xml"

# "0-2,5" -> "0 1 2 5" sorted
expand() {
    tr ',' '\n' <<<"$1" | awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next } { print }' |
        sort -n | paste -sd' '
}

# check NAME WANT -- plan args: WANT holds "node rank first-last" (logical
# cores of that node); the plan's thread-0 rows must be those PUs
check() {
    local name=$1 want=$2 node rank cores xml
    shift 3
    "$BINDLAB" plan --node-topologies "$WORK/mix" "$@" --format tsv </dev/null \
        >"$WORK/plan.tsv" 2>"$WORK/plan.err" || { cat "$WORK/plan.err"; fail "$name: plan failed"; }
    grep -q "modelled by bindlab" "$WORK/plan.err" || { cat "$WORK/plan.err"; fail "$name: no word on what is modelled"; }
    awk -F'\t' 'NR > 1 && $3 == 0 { print $1, $2, $4 }' "$WORK/plan.tsv" |
        while read -r node rank pus; do echo "$node $rank $(expand "$pus")"; done >"$WORK/got"
    while read -r node rank cores; do
        xml=$EPYC
        [ "$node" = 2 ] && xml=$XEON
        echo "$node $rank $(expand "$(hwloc-calc --if xml --input "$xml" --physical-output \
            --intersect pu "core:$cores")")"
    done <"$want" >"$WORK/want"
    diff "$WORK/want" "$WORK/got" || fail "$name: ranks not where worked out by hand (< expected, > plan)"
    echo "ok: $name ($(wc -l <"$WORK/got") ranks)"
}

printf '1 0 0-3\n1 1 4-7\n1 2 64-67\n1 3 68-71\n2 4 0-3\n2 5 4-7\n2 6 18-21\n2 7 22-25\n' >"$WORK/w1"
check "EPYC + Xeon, np 8 ppr:2:package:PE=4" "$WORK/w1" -- -np 8 --map-by ppr:2:package:PE=4 --bind-to core

printf '1 0 0\n1 2 1\n1 4 2\n2 1 0\n2 3 1\n2 5 2\n' >"$WORK/w2"
check "EPYC + Xeon, np 6 round robin by node" "$WORK/w2" -- -np 6 --map-by node --bind-to core

for r in $(seq 0 39); do echo "1 $r $r"; done >"$WORK/w3"
check "EPYC + Xeon, np 40 by core (all on the EPYC)" "$WORK/w3" -- -np 40 --nodes 2 --map-by core --bind-to core

# the text output names each node and what answered
"$BINDLAB" plan --node-topologies "$WORK/mix" -np 6 --map-by node --bind-to core >"$WORK/text" 2>&1 ||
    { cat "$WORK/text"; fail "text plan failed"; }
for want in "  node 1: epyc " "  node 2: xeon " "-- node 2 of 2, xeon (Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz, 36 cores): ranks 1,3,5" \
    "own mapper on each node's own topology" "which ranks go to which node: modelled by bindlab (round robin by node"; do
    grep -qF -- "$want" "$WORK/text" || { cat "$WORK/text"; fail "text plan: no '$want'"; }
done

# refusals: exit 2, one line naming the node or the problem
refused() { # NAME WANT -- plan args
    local name=$1 want=$2 rc=0
    shift 3
    "$BINDLAB" plan "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
    [ "$rc" = 2 ] || { cat "$WORK/out" "$WORK/err"; fail "$name: exit $rc, expected 2"; }
    grep -qF -- "$want" "$WORK/err" || { cat "$WORK/err"; fail "$name: no '$want' in the message"; }
    echo "ok: $name refused: $(grep -F -- "$want" "$WORK/err" | head -1 | cut -c1-160)"
}
refused "20 per package on the Xeon" "node 2, xeon (Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz, 36 cores), with 36 of np 76 over 2 nodes" -- \
    --node-topologies "$WORK/mix" -np 76 --map-by ppr:20:package --bind-to core
grep -qF "binding more processes than cpus" "$WORK/err" || { cat "$WORK/err"; fail "no Open MPI reason"; }
refused "np 200 by core" "np 200 over 2 nodes, but they hold 164 ranks" -- \
    --node-topologies "$WORK/mix" -np 200 --map-by core
refused "3 nodes of 2" "has 2 nodes (epyc ... xeon); the layout asks for 3" -- \
    --node-topologies "$WORK/mix" -np 6 --nodes 3 --map-by node
refused "--topology too" "give one" -- --node-topologies "$WORK/mix" --topology "$EPYC" -np 2
refused "no such directory" "no such directory" -- --node-topologies "$WORK/none" -np 2

# a bindlab slurm job record (nodes/HOST/lstopo.xml): hosts in Slurm's order,
# bl2 before bl10
mkdir -p "$WORK/job/nodes/bl10" "$WORK/job/nodes/bl2"
cp "$EPYC" "$WORK/job/nodes/bl2/lstopo.xml"
cp "$XEON" "$WORK/job/nodes/bl10/lstopo.xml"
"$BINDLAB" plan --node-topologies "$WORK/job" -np 2 --map-by node >"$WORK/job.out" 2>&1 ||
    { cat "$WORK/job.out"; fail "plan of a job record failed"; }
{ grep -qF -- "-- node 1 of 2, bl2 (AMD EPYC 7763" "$WORK/job.out" &&
    grep -qF -- "-- node 2 of 2, bl10 (Intel(R) Xeon(R) Gold 6140" "$WORK/job.out"; } ||
    { cat "$WORK/job.out"; fail "job record: nodes not bl2 then bl10"; }
echo "ok: a job record's nodes/HOST/lstopo.xml, bl2 before bl10"

# second method: two EPYCs, each rank's node against Open MPI's own map of
# the whole job over two made-up hosts of that topology, one slot a core
# (as bindlab gives each node; Data for node: HOST, then its ranks)
whole_nodes() {
    # (4.1.4 prints the map, then may die freeing memory after it:
    # "munmap_chunk(): invalid pointer"; bindlab plan reads the map anyway)
    { HWLOC_XMLFILE=$EPYC HWLOC_THISSYSTEM=1 OMPI_MCA_orte_no_vm=1 OMPI_MCA_rmaps_base_oversubscribe=0 \
        mpirun --host plan-node1:128,plan-node2:128 "$@" --do-not-launch /bin/true 2>&1 || true; } |
        awk '/Data for node: plan-node/ { n = substr($4, 10) }
             /Process rank:/ { for (i = 1; i < NF; i++) if ($i == "rank:") print n, $(i + 1) }' | sort -n -k2
}
cp "$EPYC" "$WORK/same/bl1.xml"
cp "$EPYC" "$WORK/same/bl2.xml"
same=0
for lay in "-np 6 --map-by node --bind-to core" "-np 8 --map-by ppr:2:package:PE=4 --bind-to core" \
    "-np 6 --map-by ppr:3:node:PE=2" "-np 4 --map-by ppr:1:package" "-np 130 --map-by core --bind-to core" \
    "-np 5 --map-by numa --bind-to numa" "-np 6 --map-by node --bind-to numa" \
    "-np 4 --map-by ppr:2:node --threads 2 --omp-places cores --omp-proc-bind close"; do
    read -ra L <<<"$lay"
    "$BINDLAB" plan --format tsv --node-topologies "$WORK/same" "${L[@]}" >"$WORK/each.tsv" 2>/dev/null ||
        fail "same shapes, $lay: plan failed"
    "$BINDLAB" plan --format tsv --topology "$EPYC" --nodes 2 "${L[@]}" >"$WORK/one.tsv" 2>/dev/null ||
        fail "one topology, $lay: plan failed"
    diff "$WORK/one.tsv" "$WORK/each.tsv" ||
        fail "$lay: --topology --nodes 2 differs from two copies (< one topology, > copies)"
    read -ra M <<<"${lay%% --threads*}" # the ranks' part, for mpirun
    whole_nodes "${M[@]//package/socket}" >"$WORK/whole.nodes" # 4.1 says socket
    [ -s "$WORK/whole.nodes" ] || fail "$lay: no map from mpirun --do-not-launch"
    awk -F'\t' 'NR > 1 && $3 == 0 { print $1, $2 }' "$WORK/each.tsv" | sort -n -k2 >"$WORK/each.nodes"
    diff "$WORK/whole.nodes" "$WORK/each.nodes" ||
        fail "$lay: ranks on other nodes than Open MPI's own map of the whole job (< mpirun, > plan)"
    same=$((same + 1))
done
echo "ok: $same layouts: each rank on the node of Open MPI's own whole-job map; --nodes 2 equals two copies"
echo "PASS"
