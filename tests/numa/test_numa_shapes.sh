#!/usr/bin/env bash
# The emulated node's other shapes are what scripts/numa-node.sh says and
# what configs/topologies/qemu-SHAPE.xml ships (snc2 is checked by
# test_numa_snc2.sh); on the memory-only shape, pages asked onto the node
# without CPUs are recorded there, under hwloc's logical index.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"

# lstopo's picture in text, memory sizes masked (the kernel keeps a few MB
# per node that may differ between boots).
picture() { lstopo-no-graphics -i "$1" --of console --no-io | sed -E 's/[0-9]+MB/xMB/g'; }

for shape in 2s 2s-memonly; do
    guest_results "$shape" shapes
    diff <(picture "$src/configs/topologies/qemu-$shape.xml") <(picture "$share/topo.xml") ||
        fail "$shape: lstopo inside differs from configs/topologies/qemu-$shape.xml"
    case $shape in
    2s)
        expect_line "$share/numactl.txt" "node 0 cpus: 0 1 2 3"
        expect_line "$share/numactl.txt" "node 1 cpus: 4 5 6 7"
        expect_line "$share/numactl.txt" "  0:  10  32 "
        ;;
    2s-memonly)
        expect_line "$share/numactl.txt" "node 2 cpus:"
        expect_line "$share/numactl.txt" "  0:  10  32  20 "
        expect_line "$share/numactl.txt" "  2:  20  26  10 "
        "$PY" - "$share" <<'PYEOF' || fail "2s-memonly: pages not where numactl put them"
import sys
import xml.etree.ElementTree as ET
import h5py
share = sys.argv[1]
memnode = int(open(f"{share}/memnode").read())
# hwloc's logical NUMA order is the XML's document order.
nodes = [int(o.get("os_index")) for o in ET.parse(f"{share}/topo.xml").iter("object")
         if o.get("type") == "NUMANode"]
logical = nodes.index(memnode)
print(f"NUMA nodes by logical index (OS indexes): {nodes}; memory-only node {memnode} is logical {logical}")
bad = 0
for name in ("membind", "interleave"):
    f = h5py.File(f"{share}/memonly{name}.h5", "r")
    counts = {int(r["numa_node"]): int(r["pages"]) for r in f["run/memory"][()]}
    present = sum(v for n, v in counts.items() if 0 <= n < len(nodes))
    lpf = f["run/result"].attrs["local_page_fraction"]
    if name == "membind":
        ok = counts.get(logical, 0) == present and lpf == 0.0
        print(f"{'ok  ' if ok else 'FAIL'} membind={memnode}: {counts.get(logical, 0)} of {present} pages on logical node {logical}, local fraction {lpf:.4f} (expect 0)")
    else:
        fracs = [counts.get(n, 0) / present for n in range(len(nodes))]
        ok = all(abs(x - 1 / len(nodes)) < 0.01 for x in fracs)
        print(f"{'ok  ' if ok else 'FAIL'} interleave=all: fractions by logical node {[round(x, 4) for x in fracs]} (expect 1/{len(nodes)} each)")
    bad += not ok
sys.exit(1 if bad else 0)
PYEOF
        ;;
    esac
    echo "ok $shape"
done
