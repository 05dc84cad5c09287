#!/bin/bash
# bindlab-app --kernel latency and --kernel c2c on this machine.
# latency: a chase that fits the L1 data cache and one four times the L2
# (sizes from sysfs), one thread pinned to the same PU: both verified, each
# one cycle through every line once per lap (what makes every load wait
# for the one before: the latency the kernel reports). Which is faster is
# the machine's and its load's, not asserted: both figures are printed.
# The kernel's own clock lies inside the app's step times. A broken cycle
# (--test-hook 1) fails verification; --huge-pages hugetlb without a
# reserved pool falls back to thp and says why. --access lines (one
# independent load per line, likwid-bench clload's pattern) verifies its
# sums, fails with one wrong line (--test-hook 1), and is refused by
# other kernels; cycles_per_load is ns_per_load at the measured clock.
# c2c: the rank's PUs (from the affinity mask) in order, an n x n matrix
# with NaN on the diagonal, symmetric, positive, its spread around its
# median, the sample count of the timed iterations, and the topology
# columns agreeing with sysfs; refusals for two ranks and for one PU.
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }

# half the L1d (bench/latency.sh's l1 size) and 4 x the L2: scripts/cache_sizes.sh
# shellcheck source=scripts/cache_sizes.sh
source "$BINDLAB_SOURCE_DIR/scripts/cache_sizes.sh"
if ! IN_L1=$(chase_bytes l1) || ! PAST_L2=$(chase_bytes past-l2); then
    echo "SKIP: sysfs names no L1d/L2 of cpu0"; exit 77
fi
CPU=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')

lat() { # NAME SIZE [ARGS...]
    local name=$1 size=$2
    shift 2
    OMP_NUM_THREADS=1 OMP_PLACES="{$CPU}" OMP_PROC_BIND=true \
        "$BINDLAB_APP" --kernel latency --size "$size" --iters 5 --warmup 1 "$@" \
        --out "$WORK/$name.h5" >"$WORK/$name.out" 2>&1
}
lat l1 "$IN_L1" || { cat "$WORK/l1.out" >&2; fail "latency in L1 failed"; }
lat l2 "$PAST_L2" --huge-pages hugetlb || { cat "$WORK/l2.out" >&2; fail "latency past L2 failed"; }
"$PY" - "$WORK/l1.h5" "$WORK/l2.h5" "$(cat /proc/sys/vm/nr_hugepages)" <<'PY'
import sys, h5py
def s(x): return x.decode() if isinstance(x, bytes) else x
def load(path):
    with h5py.File(path, "r") as f:
        res = f["run/result"].attrs
        assert int(res["verified"]) == 1, (path, s(res["verify_detail"]))
        m = {s(r["name"]): float(r["value"]) for r in f["run/metrics"][()]}
        detail = s(res["verify_detail"])
        lines = m["lines_per_thread"] * m["laps_per_step"]
        # the kernel's clock (inside the step) within the app's (around it)
        assert m["ns_per_load_min"] * 1e-9 * lines <= float(res["max_s"]) * 1.0001, (m, res["max_s"])
        assert m["ns_per_load_min"] <= m["ns_per_load"] <= m["ns_per_load_max"], m
        assert "1 cycle(s) of" in detail and "each line visited once per lap" in detail, detail
        return m, detail
l1, _ = load(sys.argv[1])
l2, detail = load(sys.argv[2])
if sys.argv[3] == "0":
    assert "MAP_HUGETLB failed" in detail and "fell back to thp" in detail, detail
else:
    assert "hugetlb (MAP_HUGETLB" in detail, detail
print("ok: latency L1 %.2f ns, past L2 %.2f ns per load (fastest steps)" %
      (l1["ns_per_load_min"], l2["ns_per_load_min"]))
PY

rc=0
lat broken 64KiB --test-hook 1 || rc=$?
[ "$rc" = 1 ] || fail "a broken cycle: exit $rc, expected 1"
grep -q "came back after" "$WORK/broken.out" || fail "broken cycle message: $(cat "$WORK/broken.out")"
rc=0
"$BINDLAB_APP" --kernel latency --huge-pages big >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--huge-pages: 'big' is not accepted" "$WORK/bad"; then fail "--huge-pages big: exit $rc: $(cat "$WORK/bad")"; fi
rc=0
"$BINDLAB_APP" --kernel latency --round-trips 100 >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--round-trips: --kernel latency does not take it" "$WORK/bad"; then fail "latency --round-trips: exit $rc"; fi
lat lines "$IN_L1" --access lines || { cat "$WORK/lines.out" >&2; fail "latency --access lines failed"; }
"$PY" - "$WORK/lines.h5" "$WORK/l1.h5" <<'PY'
import sys, h5py
def s(x): return x.decode() if isinstance(x, bytes) else x
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        res = f["run/result"].attrs
        assert int(res["verified"]) == 1, s(res["verify_detail"])
        m = {s(r["name"]): float(r["value"]) for r in f["run/metrics"][()]}
        assert m["core_clock_ghz"] > 0, m
        assert abs(m["cycles_per_load"] - m["ns_per_load"] * m["core_clock_ghz"]) <= 1e-9 * m["cycles_per_load"], m
        if path == sys.argv[1]:
            assert s(res["verify_detail"]).startswith("access lines:"), s(res["verify_detail"])
            assert "independent loads" in s(res["work_model"]), s(res["work_model"])
print("ok: --access lines verified; cycles_per_load = ns_per_load x the measured clock")
PY
rc=0
lat lines_broken 64KiB --access lines --test-hook 1 || rc=$?
[ "$rc" = 1 ] || fail "--access lines with a wrong line: exit $rc, expected 1"
grep -q "line 1 holds 0, not its index" "$WORK/lines_broken.out" || fail "wrong line message: $(cat "$WORK/lines_broken.out")"
rc=0
"$BINDLAB_APP" --kernel latency --access random >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--access: 'random' is not accepted" "$WORK/bad"; then fail "--access random: exit $rc: $(cat "$WORK/bad")"; fi
rc=0
"$BINDLAB_APP" --kernel triad --access lines >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--access: --kernel triad does not take it" "$WORK/bad"; then fail "triad --access: exit $rc: $(cat "$WORK/bad")"; fi
echo "ok: --kernel latency"

# ---- c2c -------------------------------------------------------------------
NPU=$(nproc)
if [ "$NPU" -lt 2 ]; then echo "ok: c2c not run (one PU)"; exit 0; fi
"$BINDLAB_APP" --kernel c2c --iters 3 --warmup 1 --round-trips 512 --out "$WORK/c2c.h5" \
    >"$WORK/c2c.out" 2>&1 || { cat "$WORK/c2c.out" >&2; fail "--kernel c2c failed"; }
"$PY" - "$WORK/c2c.h5" "$(taskset -pc $$ | sed 's/.*: *//')" <<'PY'
import sys, h5py, numpy as np
def s(x): return x.decode() if isinstance(x, bytes) else x
def cpulist(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
def sysfs(cpu, what):
    return open("/sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, what)).read().strip()
cpus = cpulist(sys.argv[2])
with h5py.File(sys.argv[1], "r") as f:
    assert int(f["run/result"].attrs["verified"]) == 1
    detail = s(f["run/result"].attrs["verify_detail"])
    assert "samples of 64 round trips each per pair" in detail, detail
    g = f["run/matrices/c2c"]
    n = int(g.attrs["n"])
    v, lo, hi, cnt = (g[k][()] for k in ("values", "spread_lo", "spread_hi", "samples"))
    order = g["order"][()]
    assert s(g.attrs["unit"]) == "ns" and s(g.attrs["axis"]) == "pu"
assert n == len(cpus), (n, cpus)
assert sorted(int(r["os_index"]) for r in order) == sorted(cpus), order
assert list(order["logical"]) == sorted(order["logical"]), order   # hwloc order
assert v.shape == (n, n)
for i in range(n):
    assert np.isnan(v[i, i]) and cnt[i, i] == 0
    for j in range(n):
        if i == j: continue
        assert v[i, j] == v[j, i] and v[i, j] > 0 and np.isfinite(v[i, j])
        assert lo[i, j] <= v[i, j] <= hi[i, j]
        assert cnt[i, j] == 3 * 512 / 64, cnt[i, j]   # timed iterations x batches
        # same core in the file exactly when sysfs calls them siblings
        a, b = (int(order[k]["os_index"]) for k in (i, j))
        siblings = b in cpulist(sysfs(a, "thread_siblings_list"))
        assert (order[i]["core"] == order[j]["core"]) == siblings, (a, b)
        same_pkg = sysfs(a, "physical_package_id") == sysfs(b, "physical_package_id")
        assert (order[i]["package"] == order[j]["package"]) == same_pkg, (a, b)
print("ok: c2c %dx%d, median round trips %s ns" % (n, n, sorted(set(v[~np.isnan(v)].round(1)))))
PY

rc=0
"${MPIRUN[@]}" -np 2 "$BINDLAB_APP" --kernel c2c --iters 1 >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q "runs with one rank (2 asked)" "$WORK/bad"; then fail "c2c on 2 ranks: exit $rc: $(cat "$WORK/bad")"; fi
rc=0
taskset -c "$CPU" "$BINDLAB_APP" --kernel c2c --iters 1 >"$WORK/bad" 2>&1 || rc=$?
if [ "$rc" != 2 ] || ! grep -q "bound to 1 PU" "$WORK/bad"; then fail "c2c on 1 PU: exit $rc: $(cat "$WORK/bad")"; fi
echo "ok: --kernel c2c"
