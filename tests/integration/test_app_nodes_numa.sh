#!/usr/bin/env bash
# A run over two nodes with different NUMA node counts records each rank's
# pages per NUMA node of its own node. One machine stands for both nodes:
# each rank runs in its own UTS namespace (hostnames pn-a and pn-b, so the
# app sees two hosts) with its own topology (HWLOC_XMLFILE, HWLOC_THISSYSTEM=1):
#   - an 8-NUMA EPYC 7763 NPS4 (configs/topologies) whose NUMA node with OS
#     index 0 is made logical 5 (os_index and nodeset swapped with node 5's,
#     checked with hwloc-calc), so a page on this machine's node 0 is a page
#     on logical NUMA node 5 of that node;
#   - a 1-NUMA Xeon 6140, where OS node 0 is logical 0.
# Every page is on this machine's NUMA node 0 (bound there with numactl when
# the machine has several). Expected, in both rank orders: /nodes/<k> of
# each host with its own numa_nodes (8 and 1), the EPYC rank's pages in one
# row on NUMA node 5 and the Xeon rank's on node 0, each row holding all the
# rank's located pages (its ranks row's pages_total), no other row.
# Before the fix (one MPI_Gather sized by rank 0's NUMA count), rank 0 on
# the Xeon died of MPI_ERR_TRUNCATE, and rank 0 on the EPYC read the Xeon
# rank's missing slots as rows of garbage.
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
TOPOS="$BINDLAB_SOURCE_DIR/configs/topologies"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
command -v hwloc-calc >/dev/null || { echo "SKIP: no hwloc-calc (hwloc package)"; exit 77; }
unshare --uts true 2>/dev/null ||
    { echo "SKIP: cannot create a UTS namespace (unshare --uts needs root or CAP_SYS_ADMIN)"; exit 77; }
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: no h5py for $PY (python3-h5py)"; exit 77; }

# NUMA node 0 of the NPS4 node swapped with node 5
"$PY" - "$TOPOS/AMD-EPYC-7763-2s-NPS4-SMT.xml" "$WORK/epyc8.xml" <<'EOF'
import re, sys
def swap(m):
    o = m.group(0)
    for a, b in (("0", "5"), ("5", "0")):
        if 'os_index="%s"' % a in o:
            bits = lambda k: 'nodeset="0x%08x"' % (1 << int(k))
            return o.replace('os_index="%s"' % a, 'os_index="%s"' % b).replace(bits(a), bits(b))
    return o
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'<object type="NUMANode"[^>]*>', swap, text))
EOF
EPYC=$WORK/epyc8.xml XEON=$TOPOS/Intel-Skylake-2xXeon6140.xml
numa_of_os0() { hwloc-calc --if xml --input "$1" --physical-input -I numa --logical-output node:0; }
[ "$(numa_of_os0 "$EPYC")" = 5 ] || fail "the edited EPYC's OS node 0 is logical $(numa_of_os0 "$EPYC"), not 5"
[ "$(numa_of_os0 "$XEON")" = 0 ] || fail "the Xeon's OS node 0 is not logical 0"
count() { hwloc-calc --if xml --input "$1" -N numa all; }
{ [ "$(count "$EPYC")" = 8 ] && [ "$(count "$XEON")" = 1 ]; } || fail "NUMA counts $(count "$EPYC") $(count "$XEON"), not 8 and 1"

# every page on this machine's NUMA node 0
BIND=()
if [ "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)" != 0 ]; then
    command -v numactl >/dev/null || { echo "SKIP: several NUMA nodes and no numactl to keep pages on node 0"; exit 77; }
    BIND=(numactl --membind=0)
fi

# rank_on HOST XML: PART = one MPMD part, the rank in its own UTS namespace
rank_on() {
    # shellcheck disable=SC2016 # the inner shell expands "$@" and $0
    PART=(-np 1 -x "HWLOC_XMLFILE=$2" -x HWLOC_THISSYSTEM=1 unshare --uts sh -c
        'hostname "$0" && exec "$@"' "$1" "${BIND[@]}" "$BINDLAB_APP" --kernel triad --size 8MiB --iters 2)
}
declare -A XML=([epyc]=$EPYC [xeon]=$XEON)

for order in "epyc xeon" "xeon epyc"; do
    read -r first second <<<"$order"
    out=$WORK/$first-$second
    rank_on "pn-$first" "${XML[$first]}"
    A=("${PART[@]}")
    rank_on "pn-$second" "${XML[$second]}"
    B=("${PART[@]}")
    rc=0
    timeout 120 mpirun --oversubscribe --bind-to none "${A[@]}" --out "$out.h5" : "${B[@]}" >"$out.log" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        bad "$order: exit $rc"; tail -n 8 "$out.log"; continue
    fi
    if ! "$PY" - "$out.h5" "$first" "$second" <<'EOF'
import sys, h5py
path, first, second = sys.argv[1:]
want = {"epyc": (8, 5), "xeon": (1, 0)}          # NUMA nodes, NUMA node of OS node 0
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    nodes = {int(k): (s(f["nodes"][k].attrs["hostname"]), int(f["nodes"][k].attrs["numa_nodes"])) for k in f["nodes"]}
    assert nodes == {0: ("pn-" + first, want[first][0]), 1: ("pn-" + second, want[second][0])}, nodes
    ranks = {int(r["rank"]): r for r in f["run/ranks"][()]}
    rows = sorted((int(m["rank"]), int(m["numa_node"]), int(m["pages"])) for m in f["run/memory"][()])
    exp = []
    for q, kind in ((0, first), (1, second)):
        assert int(ranks[q]["node"]) == q, (q, ranks[q]["node"])
        total = int(ranks[q]["pages_total"])
        assert total > 0, (q, total)
        exp.append((q, want[kind][1], total))
    assert rows == exp, ("memory rows", rows, "expected", exp)
    print("%s then %s: nodes %s, memory rows %s (as worked out)" % (first, second, nodes, rows))
EOF
    then
        bad "$order: the run file is not as worked out"
    fi
done
[ "$fails" = 0 ] || fail "$fails of 2 orders failed"
echo "PASS: pages per NUMA node of each rank's own node, 8 and 1 NUMA nodes, both orders"
