#!/usr/bin/env bash
# bindlab matrix on a real NUMA kernel: tests/numa/guest_matrix.sh ran in
# the emulated 2s node's one boot (numa.boot.2s; two packages, one NUMA node
# each, 2 cores x 2 SMT threads per package); judged here: 2x2 latency
# and bandwidth matrices whose every cell's pages are on its memory node by
# the run file's own page counts (and its memory policy as the kernel
# reported it is bind to that node), each row's threads on that node's
# CPUs; an 8x8 c2c matrix over every PU, its core and package columns
# agreeing with the guest's sysfs. Times are the emulator's: never judged.
# About 5 minutes: nine starts of the app under emulation (2s rather than
# snc2, whose 4 nodes would need 33).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
guest_results 2s matrix
for k in latency bandwidth c2c; do
    [ "$(cat "$share/$k.rc")" = 0 ] || { cat "$share/$k.out" >&2; fail "matrix $k: exit $(cat "$share/$k.rc")"; }
done
expect_line "$share/hardware.txt" "available: 2 nodes (0-1)"

"$PY" - "$share" <<'PY'
import sys, h5py, numpy as np, re
share = sys.argv[1]
def s(x): return x.decode() if isinstance(x, bytes) else x
def cpulist(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
node_cpus = {}
for line in open(share + "/hardware.txt"):
    m = re.match(r"node (\d+) cpus: (.*)", line)
    if m:
        node_cpus[int(m.group(1))] = [int(c) for c in m.group(2).split()]
cpus = {}
for line in open(share + "/cpus.txt"):
    cpu, pkg, sib = line.split()
    cpus[int(cpu)] = (int(pkg), cpulist(sib))
with h5py.File(share + "/m.h5", "r") as f:
    assert "emulated" in s(f["machine"].attrs["virtualization"])
    for kind in ("latency", "bandwidth"):
        g = f["matrices/" + kind]
        n = int(g.attrs["n"])
        assert n == 2, n
        order = g["order"][()]
        assert [int(r["os_index"]) for r in order] == [0, 1]
        v, pages = g["values"][()], g["pages_on_target"][()]
        assert np.all(np.isfinite(v)) and np.all(v > 0), v
        for i, ri in enumerate(order):
            assert int(ri["cpu"]) in node_cpus[i], (kind, ri)
            assert int(ri["package"]) == cpus[node_cpus[i][0]][0], (kind, ri)
            for j, rj in enumerate(order):
                run = "%s/m.d/%s-cpu%d-mem%d.h5" % (share, kind, i, j)
                with h5py.File(run, "r") as r:
                    mem = r["run/memory"][()]
                    total = sum(int(x["pages"]) for x in mem)
                    on_j = sum(int(x["pages"]) for x in mem if int(x["numa_node"]) == int(rj["logical"]))
                    assert total > 0 and on_j == total, (kind, i, j, mem)
                    assert pages[i, j] == 1.0
                    ranks = r["run/ranks"][()]
                    assert [s(x["mem_policy"]) for x in ranks] == ["bind:%d" % j], ranks
                    # the threads ran on node i's CPUs, one per core for
                    # the triad (2 cores per node here)
                    threads = r["run/placement"][()]
                    assert len(threads) == (2 if kind == "bandwidth" else 1), threads
                    for t in threads:
                        assert int(t["cpu_first"]) in node_cpus[i], (kind, i, j, t)
    g = f["matrices/c2c"]
    v, order = g["values"][()], g["order"][()]
    n = len(cpus)
    assert v.shape == (n, n) and n == 8, v.shape
    assert sorted(int(r["os_index"]) for r in order) == sorted(cpus)
    for i in range(n):
        assert np.isnan(v[i, i])
        for j in range(n):
            if i == j: continue
            assert v[i, j] == v[j, i] and v[i, j] > 0
            a, b = int(order[i]["os_index"]), int(order[j]["os_index"])
            assert (order[i]["core"] == order[j]["core"]) == (b in cpus[a][1]), (a, b)
            assert (order[i]["package"] == order[j]["package"]) == (cpus[a][0] == cpus[b][0]), (a, b)
print("ok: 2x2 latency and bandwidth with every page on its node, 8x8 c2c")
PY
for k in latency bandwidth c2c; do
    "$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$share/$k.svg" ||
        fail "$k.svg is not well-formed"
done
echo "ok: bindlab matrix in the emulated NUMA node"
