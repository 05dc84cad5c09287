#!/usr/bin/env bash
# sweep --node-topologies DIR: a layout with nodes: 2 is checked node by
# node against each node's own topology (shipped hwloc XMLs: bl1 a 2x EPYC
# 7763, 128 cores; bl2 a 2x Xeon E5-2680 v3, 24 cores), inside a made-up
# allocation (SLURM_JOB_NODELIST=bl[1-2], expanded by the real scontrol
# with a config naming those nodes, never served). --dry-run only: the
# verdicts and mpirun's --host lines are compared with ones worked out by
# hand. Exit 77 only when scontrol or mpirun is missing.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
SRC=$BINDLAB_SOURCE_DIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (openmpi-bin, scripts/deps.sh)"; exit 77; }
fake_slurm_allocation             # bl1, bl2 (common.sh); NC: this machine's cores
EPYC=$SRC/configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml
XEON=$SRC/configs/topologies/Intel-Haswell-2xXeon-E5-2680v3.xml
BL2="node bl2 (Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz, 24 cores)"
BL1="bl1 (AMD EPYC 7763 64-Core Processor, 128 cores)"

cat >"$WORK/nodes.yaml" <<'YAML'
name: nodes
kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]
defaults: {bind_to: core, threads: 1}
layouts:
  - {name: ppr32, np: 64, nodes: 2, map_by: "ppr:32:node"}
  - {name: rr, np: 56, nodes: 2, map_by: node}
  - {name: fill, np: 140, nodes: 2, map_by: core}
  - {name: full, np: 160, nodes: 2, map_by: core}
YAML
# dry MODE DIR...: the dry run's lines in $WORK/MODE.out (stdout), .err
dry() {
    local mode=$1 rc=0
    shift
    "$BINDLAB" sweep --dry-run --app "$BINDLAB_APP" --results "$WORK/res" "$@" \
        "$WORK/nodes.yaml" >"$WORK/$mode.out" 2>"$WORK/$mode.err" || rc=$?
    echo "$rc"
}
hosts_of() { sed -n "/^# $1 /{n;s/.* --host \([^ ]*\) .*/\1/p}" "$2"; }

# bl1 the EPYC, bl2 the Xeon: by hand, ppr:32:node puts 32 on bl2 (24
# cores); round robin 28 on each; by core bl1's 128 cores, then 12 of
# bl2's 24; 160 ranks do not fit in 128 + 24
mkdir -p "$WORK/mixed" "$WORK/epyc"
cp "$EPYC" "$WORK/mixed/bl1.xml"
cp "$XEON" "$WORK/mixed/bl2.xml"
rc=$(dry mixed --node-topologies "$WORK/mixed")
[ "$rc" = 2 ] || { cat "$WORK/mixed.out" "$WORK/mixed.err"; fail "mixed nodes: exit $rc, not 2"; }
expect_line "$WORK/mixed.out" "# r0000 invalid: $BL2 with 32 of np 64 over 2 nodes: map_by 'ppr:32:node': 32 ranks x 1 core = 32 cores on one node, but it has 24 (add oversubscribe to share cores)"
expect_line "$WORK/mixed.out" "# r0001 invalid: $BL2 with 28 of np 56 over 2 nodes: np 28 needs 28 slots, but this node has 24 (one per core; add oversubscribe to share cores)"
expect_line "$WORK/mixed.out" "# r0003 invalid: np 160 over 2 nodes, but they hold 152 ranks with map_by 'core' ($BL1: 128; ${BL2#node }: 24); give a smaller np, more nodes, or oversubscribe"
[ "$(hosts_of r0002 "$WORK/mixed.out")" = "bl1:128,bl2:24" ] ||
    { cat "$WORK/mixed.out"; fail "fill over the EPYC and the Xeon: not --host bl1:128,bl2:24"; }
[ ! -s "$WORK/mixed.err" ] || grep -q 'cannot run' "$WORK/mixed.err" ||
    { cat "$WORK/mixed.err"; fail "mixed nodes: unexpected stderr"; }
echo "ok: bl2 (24 cores) refuses ppr:32:node and 28 round robin, by core it takes 12, 160 do not fit"

# the same files as a bindlab slurm job saves them: DIR/nodes/HOST/lstopo.xml
mkdir -p "$WORK/job/nodes/bl1" "$WORK/job/nodes/bl2"
cp "$EPYC" "$WORK/job/nodes/bl1/lstopo.xml"
cp "$XEON" "$WORK/job/nodes/bl2/lstopo.xml"
rc=$(dry job --node-topologies "$WORK/job")
if [ "$rc" != 2 ] || ! diff "$WORK/mixed.out" "$WORK/job.out" >/dev/null; then
    diff "$WORK/mixed.out" "$WORK/job.out"
    fail "a slurm job's nodes/HOST/lstopo.xml read otherwise than HOST.xml (exit $rc)"
fi
echo "ok: a bindlab slurm job's record (nodes/HOST/lstopo.xml) gives the same verdicts"

# both EPYC: every layout runs, each node with its 128 slots
cp "$EPYC" "$WORK/epyc/bl1.xml"
cp "$EPYC" "$WORK/epyc/bl2.xml"
rc=$(dry epyc --node-topologies "$WORK/epyc")
[ "$rc" = 0 ] || { cat "$WORK/epyc.out" "$WORK/epyc.err"; fail "two EPYC nodes: exit $rc"; }
for r in r0000 r0001 r0002 r0003; do
    [ "$(hosts_of $r "$WORK/epyc.out")" = "bl1:128,bl2:128" ] ||
        { cat "$WORK/epyc.out"; fail "two EPYC nodes: $r not on --host bl1:128,bl2:128"; }
done
echo "ok: two EPYC nodes take all four layouts"

# bl2 missing from DIR: this machine stands in for it, said on stderr
rm "$WORK/mixed/bl2.xml"
rc=$(dry missing --node-topologies "$WORK/mixed")
grep -qxF "bindlab sweep: --node-topologies: no $WORK/mixed/bl2.xml (nor nodes/bl2/lstopo.xml): node bl2 is checked with this machine's topology" \
    "$WORK/missing.err" || { cat "$WORK/missing.err"; fail "no note for the missing bl2"; }
[ "$(grep -c 'node bl2 is checked' "$WORK/missing.err")" = 1 ] || fail "the note is not one line"
if [ "$NC" -lt 32 ]; then
    grep -q "^# r0000 invalid: node bl2 (.*, $NC cores) with 32 of np 64" "$WORK/missing.out" ||
        { cat "$WORK/missing.out"; fail "missing bl2: not checked as this machine ($NC cores)"; }
fi
echo "ok: a host missing from DIR is checked as this machine, with a one-line note"

# an XML hwloc cannot read is bad input, named
echo '<not hwloc' >"$WORK/mixed/bl2.xml"
rc=$(dry bad --node-topologies "$WORK/mixed")
if [ "$rc" != 2 ] || ! grep -qF "bindlab sweep: --node-topologies: node bl2 ($WORK/mixed/bl2.xml)" "$WORK/bad.err"; then
    cat "$WORK/bad.err"
    fail "an unreadable XML: exit $rc, no message naming it"
fi
echo "ok: an unreadable XML is refused, naming the node and the file"

# without --node-topologies: every node is this machine, as before
rc=$(dry plain)
grep -q 'node bl[12] (' "$WORK/plain.out" && fail "without --node-topologies a node was named"
grep -q 'node-topologies' "$WORK/plain.err" && fail "without --node-topologies: a note"
for r in r0000 r0001 r0002 r0003; do
    h=$(hosts_of $r "$WORK/plain.out")
    [ -z "$h" ] || [ "$h" = "bl1:$NC,bl2:$NC" ] || fail "without --node-topologies $r: --host $h"
done
if [ "$NC" -lt 32 ]; then
    [ "$rc" = 2 ] || fail "without --node-topologies: exit $rc on $NC cores"
    expect_line "$WORK/plain.out" "# r0000 invalid: np 64 over 2 nodes = 32 per node: map_by 'ppr:32:node': 32 ranks x 1 core = 32 cores on one node, but it has $NC (add oversubscribe to share cores)"
fi
echo "ok: without --node-topologies every node is checked as this machine"

# one_per_node N NAME [OPTIONS]: a dry run of N ranks, one a node, over a
# made-up allocation of N nodes (bl[1-N]) into $WORK/NAME.out; fails
# unless it exits 0
one_per_node() {
    local n=$1 name=$2 rc=0
    shift 2
    printf 'ClusterName=plan\nSlurmctldHost=localhost\nNodeName=bl[1-%d] CPUs=%s\nPartitionName=p Nodes=bl[1-%d]\n' \
        "$n" "$NC" "$n" >"$WORK/slurm.conf"
    printf '%s\n' "name: $name" "kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]" \
        "layouts: [{name: one, np: $n, nodes: $n, map_by: \"ppr:1:node\", bind_to: core, threads: 1}]" \
        >"$WORK/$name.yaml"
    SLURM_JOB_NODELIST="bl[1-$n]" "$BINDLAB" sweep --dry-run --app "$BINDLAB_APP" \
        --results "$WORK/res" "$@" "$WORK/$name.yaml" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/$name.err"; fail "$n nodes: exit $rc"; }
    hosts_of r0000 "$WORK/$name.out" | tr ',' '\n' >"$WORK/$name.hosts"
}

# a big allocation: 1,000 nodes, all one file (linked), one rank each: the
# host list (some 9,000 characters, once cut at 4,095) is whole in the
# dry run's command, every node named once with its cores
mkdir -p "$WORK/big"
cp "$EPYC" "$WORK/big/bl1.xml"
for k in $(seq 2 1000); do ln -s bl1.xml "$WORK/big/bl$k.xml"; done
one_per_node 1000 big --node-topologies "$WORK/big"
seq -f 'bl%g:128' 1 1000 | diff - "$WORK/big.hosts" >/dev/null ||
    fail "1,000 nodes: the --host list is not bl1:128 ... bl1000:128"
echo "ok: 1,000 nodes named in full, their one topology file parsed once"

# 10,000 nodes, each this machine (no --node-topologies): the dry run is
# one run's two lines, the --host list whole
one_per_node 10000 huge
[ "$(wc -l <"$WORK/huge.out")" = 2 ] || fail "10,000 nodes: $(wc -l <"$WORK/huge.out") lines, not 2"
seq -f "bl%g:$NC" 1 10000 | diff - "$WORK/huge.hosts" >/dev/null ||
    fail "10,000 nodes: the --host list is not bl1:$NC ... bl10000:$NC"
echo "ok: 10,000 nodes in a dry run of two lines, every node named"
