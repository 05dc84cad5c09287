#!/usr/bin/env bash
# `bindlab plan --node-topologies` against a real launch on a cluster whose
# nodes have different shapes. Each namespaced node has its own DIR/local
# (tests/slurm/nodes.sh), so HWLOC_XMLFILE=DIR/local/topo.xml gives every
# node's Open MPI daemon its own topology: bl1 a 2x EPYC 7763, bl2 a 2x Xeon
# Gold 6140 (configs/topologies). mpirun inside salloc then maps and binds
# across them as on real nodes of those shapes, each daemon with its node's
# topology; the preload library (as bindlab plan uses it) records each
# binding instead of applying it, and the ranks are /bin/true. Open MPI's
# --report-bindings lines, read node by node with that node's XML (bindlab
# bindings --topology), must equal the plan: node, rank and PUs of every
# rank, for ppr:2:package:PE=4 (np 8) and round robin by node (np 6, 2).
# Then two EPYC nodes with --map-by node and ppr:3:node --bind-to numa (np
# 6) and ppr:2:package:PE=4: the real launch starts each node at NUMA node
# 0, as the plan node by node does, with --node-topologies and with
# --topology --nodes 2 (Open MPI 4.1's --do-not-launch map of the whole
# job carries its per-object counts from node 1 to node 2, so bindlab
# plans node by node; see docs/plan.md).
source "$(dirname "$0")/cluster_common.sh"
: "${BINDLAB:?run through ctest}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TOPOS=$BINDLAB_SOURCE_DIR/configs/topologies
EPYC=$TOPOS/AMD-19h-Zen3-2xEpyc-7763.xml XEON=$TOPOS/Intel-Skylake-2xXeon6140.xml
PRELOAD=$(dirname "$BINDLAB")/libbindlab_preload.so
[ -r "$PRELOAD" ] || fail "no $PRELOAD (target bindlab-affinity-preload)"
cd "$WORK" || fail "no work dir"

start_cluster 2

# shapes XML1 XML2: node blK's topology (and its directory for the plan)
shapes() {
    mkdir -p "$WORK/topos"
    rm -f "$WORK/topos"/*.xml
    cp "$1" "$CL/nodes/bl1/topo.xml"
    cp "$2" "$CL/nodes/bl2/topo.xml"
    cp "$1" "$WORK/topos/bl1.xml"
    cp "$2" "$WORK/topos/bl2.xml"
    # mpirun on the login node: its own topology is never a rank's
    cp "$1" "$CL/nodes/head/topo.xml"
}

# compare NAME LAYOUT...: the real launch's bindings, node by node, against
# the plan's thread-0 rows
compare() {
    local name=$1 k host
    shift
    # One launch: /bin/true never reaches MPI_Init, so Open MPI 4.1's
    # MPI_Init race (the only cause the cluster tests launch again for)
    # cannot strike here; any failure is one.
    timeout 120 bash "$NODES_SH" exec "$CL" head env HWLOC_XMLFILE="$CL/local/topo.xml" \
        HWLOC_THISSYSTEM=1 LD_PRELOAD="$PRELOAD" BINDLAB_PRELOAD_CPUS=0-127 \
        salloc -N2 mpirun --oversubscribe "$@" --report-bindings /bin/true >"$WORK/launch.out" 2>&1 &&
        grep -q "MCW rank" "$WORK/launch.out" ||
        { tail -n 20 "$WORK/launch.out"; fail "$name: the launch failed"; }
    : >"$WORK/real"
    for k in 1 2; do
        host=bl$k
        grep "^\[$host:" "$WORK/launch.out" >"$WORK/lines$k" || true
        "$BINDLAB" bindings --topology "$WORK/topos/$host.xml" "$WORK/lines$k" >"$WORK/b$k" ||
            { cat "$WORK/b$k"; fail "$name: $host's lines unreadable with its topology"; }
        awk -v k="$k" '{ print k, $2, $6 }' "$WORK/b$k" >>"$WORK/real"
    done
    sort -n -k2 "$WORK/real" -o "$WORK/real"
    "$BINDLAB" plan --node-topologies "$WORK/topos" "$@" --format tsv >"$WORK/plan.tsv" 2>"$WORK/plan.err" ||
        { cat "$WORK/plan.err"; fail "$name: plan failed"; }
    awk -F'\t' 'NR > 1 && $3 == 0 { print $1, $2, $4 }' "$WORK/plan.tsv" | sort -n -k2 >"$WORK/planned"
    [ -s "$WORK/real" ] || fail "$name: no binding read from the launch"
    diff "$WORK/real" "$WORK/planned" ||
        fail "$name: plan --node-topologies differs from the real launch (< launch, > plan)"
    # both nodes of one shape: `plan --topology XML --nodes 2` too
    if [ -n "${ONE_TOPOLOGY:-}" ]; then
        "$BINDLAB" plan --topology "$ONE_TOPOLOGY" --nodes 2 "$@" --format tsv >"$WORK/one.tsv" 2>"$WORK/one.err" ||
            { cat "$WORK/one.err"; fail "$name: plan --nodes 2 failed"; }
        awk -F'\t' 'NR > 1 && $3 == 0 { print $1, $2, $4 }' "$WORK/one.tsv" | sort -n -k2 >"$WORK/one"
        diff "$WORK/real" "$WORK/one" ||
            fail "$name: plan --topology --nodes 2 differs from the real launch (< launch, > plan)"
    fi
    echo "ok: $name: $(wc -l <"$WORK/real") ranks where the real launch put them${ONE_TOPOLOGY:+ (--node-topologies and --nodes 2)}"
}

shapes "$EPYC" "$XEON"
compare "EPYC + Xeon, ppr:2:package:PE=4" -np 8 --map-by ppr:2:socket:PE=4 --bind-to core
compare "EPYC + Xeon, round robin" -np 6 --map-by node --bind-to core
shapes "$EPYC" "$EPYC"
ONE_TOPOLOGY=$EPYC
compare "2 EPYCs, round robin bound to NUMA nodes" -np 6 --map-by node --bind-to numa
compare "2 EPYCs, 3 a node bound to NUMA nodes" -np 6 --map-by ppr:3:node --bind-to numa
compare "2 EPYCs, ppr:2:package:PE=4" -np 8 --map-by ppr:2:socket:PE=4 --bind-to core
echo "PASS"
