#!/usr/bin/env bash
# bindlab merge keeps every machine (docs/schema.md, "Machine records"): a
# real 2-run sweep on this node, a 3-run sweep recorded on the 2x EPYC 9654
# of configs/topologies (nodes_fixture, the harness's own writer) whose run
# ids collide with the real ones, and 2 runs in the layout written before
# /nodes (/machine only). Counts and numbering worked out by hand below.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
FIX="$BINDLAB_BUILD_DIR/tests/nodes_fixture"
[ -x "$FIX" ] || fail "$FIX not built (it is part of every build)"
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py is missing (scripts/deps.sh installs it)"
XML="${BINDLAB_SOURCE_DIR:?run through ctest}/configs/topologies/AMD-19h-Zen4-2xEpyc-9654.xml"
[ -r "$XML" ] || fail "$XML missing"
T=$WORK

# 1. a real sweep on this node: r0000, r0001
cat >"$T/real.yaml" <<'YAML'
name: real
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
defaults: {np: 1, threads: 1}
layouts:
  - {name: a}
  - {name: b, bind_to: none}
YAML
"$BINDLAB" sweep --results "$T/res" "$T/real.yaml" >"$T/sweep.out" 2>&1 ||
    fail "sweep: $(cat "$T/sweep.out")"
HOST=$("$PY" -c 'import socket; print(socket.gethostname())')

# 2. the EPYC sweep: r0000 (np2), r0001 (np1), r0002 (invalid, never ran)
mkdir "$T/epyc.d" "$T/old.d"
"$FIX" write "$T/epyc.d" "$XML" epyc-9654 || fail "nodes_fixture write"
# 3. two runs in the old layout on "vm-old": r0100, r0101 (np2 each)
"$FIX" legacy "$T/old.d" || fail "nodes_fixture legacy"
# the old files really are old: no /nodes, no "node" column
"$PY" - "$T/old.d/r0100.h5" <<'EOF' || fail "legacy fixture has /nodes"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert "nodes" not in f and "machine" in f
assert "node" not in f["runs/r0100/ranks"].dtype.names
assert "nodes" not in f["summary"].dtype.names
EOF

# 2 + 3 + 2 = 7 runs, none a duplicate: the EPYC r0000 and r0001 are other
# runs than the real ones (another machine), r0002 exists once.
"$BINDLAB" merge -o "$T/all.h5" "$T/res/real.h5" "$T/epyc.d" "$T/old.d" >"$T/merge.out" ||
    fail "merge: $(cat "$T/merge.out")"
expect_line "$T/merge.out" "$T/all.h5: 7 runs (6 ok, 1 invalid), 0 duplicates kept once, 0 unreadable inputs"
"$FIX" dump "$T/all.h5" >"$T/dump" || fail "dump"
cat "$T/dump"
# machines in the order first met: this node (the real sweep came first),
# the EPYC (its CPU model and 384 PUs as the XML says), the old file's
CPU=$(grep -o 'name="CPUModel" value="[^"]*"' "$XML" | head -1 | sed 's/.*value="//; s/"$//')
PUS=$(grep -c 'type="PU"' "$XML")
[ "$PUS" = 384 ] || fail "the XML has $PUS PUs, expected 2 x 96 cores x 2"
[ "$(grep -c '^node ' "$T/dump")" = 3 ] || fail "3 machine records expected"
grep -q "^node 0 $HOST | " "$T/dump" || fail "node 0 is not this node"
expect_line "$T/dump" "node 1 epyc-9654 | $CPU | 384"
expect_line "$T/dump" "node 2 vm-old | AMD EPYC 7B13 | 2"
expect_line "$T/dump" "machine $HOST"
# runs: the real ones on node 0 (np1: one rank row), the EPYC ones renamed
# after their host and on node 1 (r0000 np2: two rank rows), the invalid
# one on no node, the old ones on node 2 (their rank rows had no column)
expect_line "$T/dump" "run r0000 nodes 0 ranks 0"
expect_line "$T/dump" "run r0001 nodes 0 ranks 0"
expect_line "$T/dump" "run r0000@epyc-9654 nodes 1 ranks 1,1"
expect_line "$T/dump" "run r0001@epyc-9654 nodes 1 ranks 1"
expect_line "$T/dump" "run r0002 nodes - ranks -"
expect_line "$T/dump" "run r0100 nodes 2 ranks 2,2"
expect_line "$T/dump" "run r0101 nodes 2 ranks 2,2"
[ "$(grep -c '^run ' "$T/dump")" = 7 ] || fail "7 summary rows expected"

# An independent reader: /machine is the very object /nodes/0 (a hard
# link), and the renamed run says its new id.
"$PY" - "$T/all.h5" <<'EOF' || fail "h5py view of the merged file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f["machine"] == f["nodes/0"], "machine is not a hard link to nodes/0"
assert sorted(f["nodes"].keys()) == ["0", "1", "2"], list(f["nodes"].keys())
r = f["runs/r0000@epyc-9654"]
assert r.attrs["run_id"] == "r0000@epyc-9654" and r.attrs["nodes"] == "1"
assert f["nodes/1"].attrs["hostname"] == "epyc-9654"
EOF

# Merging again with inputs already in it: the same 7 runs; the 3 EPYC and
# 2 real runs are each found a second time (5 duplicates).
"$BINDLAB" merge -o "$T/again.h5" "$T/all.h5" "$T/epyc.d" "$T/res/real.h5" >"$T/again.out" ||
    fail "merge again: $(cat "$T/again.out")"
expect_line "$T/again.out" "$T/again.h5: 7 runs (6 ok, 1 invalid), 5 duplicates kept once, 0 unreadable inputs"
"$FIX" dump "$T/again.h5" | grep '^run ' | sort >"$T/again.runs"
grep '^run ' "$T/dump" | sort | cmp -s - "$T/again.runs" || fail "merging again changed the runs: $(cat "$T/again.runs")"

# The other order: the EPYC becomes node 0 and keeps its ids; the real
# runs take the renamed ones. 3 + 2 = 5 runs.
"$BINDLAB" merge -o "$T/swap.h5" "$T/epyc.d" "$T/res/real.h5" >"$T/swap.out" || fail "merge swapped"
expect_line "$T/swap.out" "$T/swap.h5: 5 runs (4 ok, 1 invalid), 0 duplicates kept once, 0 unreadable inputs"
"$FIX" dump "$T/swap.h5" >"$T/swap.dump"
expect_line "$T/swap.dump" "node 0 epyc-9654 | $CPU | 384"
expect_line "$T/swap.dump" "run r0000 nodes 0 ranks 0,0"
expect_line "$T/swap.dump" "run r0000@$HOST nodes 1 ranks 1"
expect_line "$T/swap.dump" "run r0001@$HOST nodes 1 ranks 1"

# Old files alone still merge, report and read as one machine.
"$BINDLAB" merge -o "$T/old.h5" "$T/old.d" >/dev/null || fail "merge old files"
"$FIX" dump "$T/old.h5" >"$T/old.dump"
expect_line "$T/old.dump" "node 0 vm-old | AMD EPYC 7B13 | 2"
expect_line "$T/old.dump" "run r0100 nodes 0 ranks 0,0"
"$BINDLAB" report "$T/old.d/r0100.h5" >"$T/old.report" || fail "report of an old file"
grep -q 'r0100' "$T/old.report" || fail "old report: $(cat "$T/old.report")"
"$BINDLAB" report "$T/all.h5" >"$T/all.report" || fail "report of the merged file"
cat "$T/all.report"
for id in r0000 r0001 r0000@epyc-9654 r0001@epyc-9654 r0002 r0100 r0101; do
    grep -q -- "^$id " "$T/all.report" || fail "report lacks $id"
done
# each machine ranked on its own: the EPYC's best is its np2 run (the
# fixture's rate is 10 GB/s per rank), the old VM's two runs tie at 20
grep -Eq "^r0000@epyc-9654 +1 .* 20\.00 +GB/s +1\.00 " "$T/all.report" || fail "EPYC row"
expect_line "$T/all.report" "triad on node 1: best r0000@epyc-9654 'triad np2 map=core bind=core' 20.00 GB/s; no bind_to none baseline that is ok and verified"
NUMA=$(grep -c 'type="NUMANode"' "$XML")
CORES=$(grep -c 'type="Core"' "$XML")
expect_line "$T/all.report" "node 1: epyc-9654 ($CPU), 2 packages, $NUMA NUMA nodes, $CORES cores, Open MPI v4.1.4"
expect_line "$T/all.report" "node 2: vm-old (AMD EPYC 7B13), 1 package, 1 NUMA node, 2 cores, Open MPI v4.1.4"
# one machine: no node column, no machine list (as before /nodes)
grep -q '^node ' "$T/old.report" && fail "machine list for one machine"
head -1 "$T/old.report" | grep -q '^run  *label ' || fail "node column for one machine: $(head -1 "$T/old.report")"
# Written straight to the disk under a temporary name, renamed at the end
# (merges at scale): none is left beside the outputs, and a merge that writes
# nothing (no readable input) leaves its output as it was.
ls "$T" | grep -q '\.tmp\.' && fail "temporary left: $(ls "$T")"
cp "$T/all.h5" "$T/keep.h5"
printf 'not an HDF5 file\n' >"$T/junk.h5"
"$BINDLAB" merge -o "$T/all.h5" "$T/junk.h5" >"$T/junk.out" 2>&1 &&
    fail "a merge of no readable input succeeded: $(cat "$T/junk.out")"
grep -q "no readable input; $T/all.h5 not written" "$T/junk.out" ||
    fail "no readable input: $(cat "$T/junk.out")"
cmp -s "$T/all.h5" "$T/keep.h5" || fail "a failed merge changed its output"
ls "$T" | grep -q '\.tmp\.' && fail "temporary left after a failed merge: $(ls "$T")"
echo "ok: merge keeps every machine"
