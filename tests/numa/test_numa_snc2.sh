#!/usr/bin/env bash
# Every NUMA claim on a real NUMA kernel: tests/numa/guest_snc2.sh ran in the
# emulated snc2 node's one boot (numa.boot.snc2; 2 packages x 2 NUMA nodes,
# 2 cores per node, 2 threads per core); this checks on the host what came
# back (tests/numa/check_numa.py). test_numa_plan.sh reads the same runs.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
# Debian's python3 has python3-h5py (a bindlab dependency, scripts/deps.sh);
# a python3 earlier on PATH (pyenv, conda) may not.
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"

guest_results snc2 snc2

# The node is exactly the snc2 shape, and what configs/topologies ships.
picture() { lstopo-no-graphics -i "$1" --of console --no-io | sed -E 's/[0-9]+MB/xMB/g'; }
diff <(picture "$src/configs/topologies/qemu-snc2.xml") <(picture "$share/topo.xml") ||
    fail "lstopo inside differs from configs/topologies/qemu-snc2.xml"
expect_line <(grep -c '<object type="Package"' "$share/topo.xml") 2
expect_line <(grep -c '<object type="NUMANode"' "$share/topo.xml") 4
expect_line <(grep -c '<object type="Core"' "$share/topo.xml") 8
expect_line <(grep -c '<object type="PU"' "$share/topo.xml") 16
for line in "  0:  10  12  32  32 " "  1:  12  10  32  32 " "  2:  32  32  10  12 " "  3:  32  32  12  10 "; do
    expect_line "$share/numactl.txt" "$line"
done

# Each sweep and report in the guest exited 0 (every run ok).
for step in sweep-first-touch sweep sweep-memory report report-memory; do
    out=$share/$step.out
    case $step in report*) out=$share/$step.txt ;; esac
    [ -f "$share/$step.rc" ] || fail "guest step $step left no exit status"
    [ "$(cat "$share/$step.rc")" = 0 ] ||
        { cat "$out" >&2; fail "guest step $step exited $(cat "$share/$step.rc")"; }
done

# The merged sweep file came back to the host and reads here.
[ -s "$share/numa-snc2.h5" ] || { cat "$share/sweep.out" >&2; fail "no merged sweep file came back"; }
"$BINDLAB" report "$share/numa-snc2.h5" >"$WORK/report.txt" || fail "bindlab report on the host failed"
cat "$WORK/report.txt"
grep -q '^note: rates are not meaningful for speed: these runs ran on an emulated machine' \
    "$WORK/report.txt" || fail "bindlab report does not say that the rates come from an emulated machine"

"$PY" "$src/tests/numa/check_numa.py" "$share"
