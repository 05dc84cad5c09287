#!/bin/bash
# bindlab matrix on this machine: latency and bandwidth as N x N over its
# NUMA nodes (N from sysfs), c2c over the PUs this process may use, all
# three kept in one file. Each cell agrees with the run file it came from
# (the latency metric, the triad rate, the app's own c2c matrix), and its
# pages are on its memory node by the run file's own page counts. The
# SVG is well-formed XML with one cell per value. The PNG, decoded here
# (png_compare.py, the standard library's zlib), has at every cell's centre
# the colour the documented scale gives its value (lowest #fff5eb, middle
# #fd8d3c, highest #7f2704, linear between; not measured #eeeeee), worked
# out from the values in the HDF5 file. show reads the file and a run
# file; bad usage exits 2.
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
BINDLAB="$BINDLAB_BUILD_DIR/bindlab"
cd "$WORK"

"$BINDLAB" matrix latency --size 4MiB --iters 3 -o m.h5 --svg lat.svg --png lat.png >lat.out 2>&1 ||
    { cat lat.out >&2; fail "matrix latency failed"; }
"$BINDLAB" matrix bandwidth --size 24MiB --iters 3 -o m.h5 >bw.out 2>&1 ||
    { cat bw.out >&2; fail "matrix bandwidth failed"; }
C2C_OK=0
# the CPUs this process may use (its affinity within its cgroup cpuset)
ALLOWED_PUS=$(hwloc-calc -N pu "$(hwloc-bind --get)")
if [ "$ALLOWED_PUS" -ge 2 ]; then
    "$BINDLAB" matrix c2c --round-trips 256 --iters 2 -o m.h5 --svg c2c.svg --png c2c.png >c2c.out 2>&1 ||
        { cat c2c.out >&2; fail "matrix c2c failed"; }
    C2C_OK=1
else
    # one CPU (taskset -c 0, a one-CPU allocation): c2c says why it
    # cannot run, naming the set, before launching anything
    rc=0
    "$BINDLAB" matrix c2c --round-trips 256 --iters 2 -o m.h5 >c2c.out 2>&1 || rc=$?
    [ "$rc" = 1 ] && grep -q "c2c measures pairs of CPUs, but this job may use 1: CPUs $(taskset -pc $$ | sed 's/.*: *//') (affinity" c2c.out ||
        fail "c2c on one CPU: exit $rc: $(cat c2c.out)"
    echo "ok: c2c on one CPU: $(cat c2c.out)"
fi
NODES=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
"$PY" - m.h5 m.d "$NODES" "$C2C_OK" "$(taskset -pc $$ | sed 's/.*: *//')" <<'PY'
import sys, os, h5py, numpy as np
import xml.etree.ElementTree as ET
path, runs, nodes, c2c_ok, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
def s(x): return x.decode() if isinstance(x, bytes) else x
def count_cpus(text):
    n = 0
    for part in text.split(","):
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n
node_ids = sorted(int(d[4:]) for d in os.listdir("/sys/devices/system/node") if d[4:].isdigit())
with h5py.File(path, "r") as f:
    assert s(f.attrs["file_kind"]) == "matrix"
    assert "machine" in f
    kinds = sorted(f["matrices"].keys())
    assert kinds == (["bandwidth", "c2c", "latency"] if c2c_ok else ["bandwidth", "latency"]), kinds
    for kind, metric in (("latency", "ns_per_load"), ("bandwidth", None)):
        g = f["matrices/" + kind]
        n = int(g.attrs["n"])
        assert n == nodes, (kind, n, nodes)
        order = g["order"][()]
        assert [int(r["os_index"]) for r in order] == node_ids, order
        v, pages = g["values"][()], g["pages_on_target"][()]
        for i, ri in enumerate(order):
            for j, rj in enumerate(order):
                run = "%s/%s-cpu%d-mem%d.h5" % (runs, kind, ri["os_index"], rj["os_index"])
                with h5py.File(run, "r") as r:
                    res = r["run/result"].attrs
                    assert int(res["verified"]) == 1
                    if metric:
                        want = [float(x["value"]) for x in r["run/metrics"][()] if s(x["name"]) == metric][0]
                    else:
                        want = float(res["rate"])
                        assert s(res["rate_unit"]) == "GB/s"
                    assert v[i, j] == want and want > 0, (kind, i, j, v[i, j], want)
                    # the pages the app counted per node: all on node j
                    mem = r["run/memory"][()]
                    total = sum(int(x["pages"]) for x in mem)
                    on_j = sum(int(x["pages"]) for x in mem if int(x["numa_node"]) == int(rj["logical"]))
                    assert total > 0 and on_j == total, (kind, i, j, mem)
                    assert pages[i, j] == 1.0
                    assert s(r["run"].attrs["mem_policy"]) == "bind:%d" % rj["os_index"]
    if c2c_ok:
        g = f["matrices/c2c"]
        with h5py.File(runs + "/c2c.h5", "r") as r:
            own = r["run/matrices/c2c/values"][()]
        v = g["values"][()]
        assert v.shape == (count_cpus(cpus),) * 2, v.shape
        assert np.array_equal(np.isnan(v), np.isnan(own)) and np.allclose(v[~np.isnan(v)], own[~np.isnan(own)])
for svg, n in (("lat.svg", nodes),) + ((("c2c.svg", count_cpus(cpus)),) if c2c_ok else ()):
    root = ET.parse(svg).getroot()
    cells = [t for t in root.iter("{http://www.w3.org/2000/svg}title") if " / " in (t.text or "")]
    assert len(cells) == n * n, (svg, len(cells))
print("ok: %dx%d latency and bandwidth, c2c %s, pages on their nodes, SVGs parse" % (nodes, nodes, c2c_ok))
PY

# the PNGs: each cell's centre pixel against its value on the scale
png_cells() { # FILE.png KIND
    "$PY" - "$1" m.h5 "$2" "$(dirname "$0")" <<'PY'
import math, sys, h5py
sys.path.insert(0, sys.argv[4])
from png_compare import decode_pixels
png, path, kind = sys.argv[1], sys.argv[2], sys.argv[3]
w, h, ch, rows, text = decode_pixels(png)
assert ch == 3, ch
with h5py.File(path, "r") as f:
    g = f["matrices/" + kind]
    v = g["values"][()]
    labels = [r["label"].decode() if isinstance(r["label"], bytes) else r["label"] for r in g["order"][()]]
n = v.shape[0]
x0, y0, cell, n_png = map(int, text["bindlab-map"].split())
assert n_png == n and x0 + n * cell <= w and y0 + n * cell <= h, (text, w, h)
assert text["bindlab-rows"] == ", ".join(labels), (text, labels)
assert text["Title"].startswith(kind + " matrix"), text
fin = [x for x in v.flat if not math.isnan(x)]
lo, hi = min(fin), max(fin)
stops = ((255, 245, 235), (253, 141, 60), (127, 39, 4))
def want(x):
    if math.isnan(x):
        return (0xee,) * 3
    t = (x - lo) / (hi - lo) if hi > lo else 0.5
    a, b, u = (stops[0], stops[1], 2 * t) if t < 0.5 else (stops[1], stops[2], 2 * t - 1)
    return tuple(round(a[c] + u * (b[c] - a[c])) for c in range(3))
for i in range(n):
    for j in range(n):
        x, y = x0 + j * cell + cell // 2, y0 + i * cell + cell // 2
        got = tuple(rows[y][3 * x:3 * x + 3])
        assert all(abs(p - q) <= 1 for p, q in zip(got, want(v[i, j]))), (png, i, j, v[i, j], got, want(v[i, j]))
print("ok: %s: %d x %d cells in the scale's colours (%g to %g)" % (png, n, n, lo, hi))
PY
}
png_cells lat.png latency || fail "lat.png"
if [ "$C2C_OK" = 1 ]; then png_cells c2c.png c2c || fail "c2c.png"; fi

"$BINDLAB" matrix show m.h5 --kind latency --svg again.svg --png again.png >show.out 2>&1 ||
    fail "show: $(cat show.out)"
grep -q "^latency (ns)" show.out && [ -s again.svg ] && cmp -s again.png lat.png ||
    fail "show output (the PNG should be lat.png again): $(cat show.out)"
rc=0
"$BINDLAB" matrix show m.h5 >show2.out 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "holds several matrices" show2.out || fail "show without --kind: exit $rc: $(cat show2.out)"
if [ "$C2C_OK" = 1 ]; then
    "$BINDLAB" matrix show m.d/c2c.h5 >show3.out 2>&1 && grep -q "^c2c (ns)" show3.out || fail "show of a run file: $(cat show3.out)"
fi

usage() { # EXPECTED-MESSAGE ARGS...: exit 2 with that message
    local want=$1 rc=0
    shift
    "$BINDLAB" matrix "$@" >bad.out 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -q -- "$want" bad.out || fail "matrix $*: exit $rc: $(cat bad.out)"
}
usage "'speed' is not a matrix" speed -o x.h5
usage "-o FILE.h5 is required" latency
usage "--huge-pages: not an option of 'bindlab matrix bandwidth'" bandwidth --huge-pages thp -o x.h5
usage "--size: not an option of 'bindlab matrix c2c'" c2c --size 1GiB -o x.h5
usage "/dev/null" latency -o /dev/null
usage "/dev/null" show m.h5 --kind latency --png /dev/null
usage "show takes --kind, --svg and --png only" show m.h5 --size 1MiB
RUNFILE=$(ls m.d/*.h5 | head -1) # a run file, not a matrix file
usage "exists and is not a matrix file" latency -o "$RUNFILE" --size 1MiB --iters 1 --app /bin/true
rc=0
"$BINDLAB" matrix latency --size 1MiB --iters 1 -o never.h5 --app /bin/false >false.out 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "no cell could be measured" false.out && [ ! -e never.h5 ] ||
    fail "an app that fails: exit $rc: $(cat false.out)"
echo "ok: bindlab matrix"
