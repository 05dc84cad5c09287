#!/usr/bin/env bash
# The noisy neighbour (sweep --noisy, noisy: in a sweep file), on real
# mpirun runs with tiny sizes:
#  - a CPU hog pinned to the PU the rank is bound to really runs beside the
#    run: its record (neighbours table) names its pid, the CPUs it was
#    allowed (= the pinned one, as the kernel reported), the CPU it ran on
#    last (that one), a CPU time > 0 from wait4; the rank bound to that PU
#    was preempted in its timed region (ctx_involuntary > 0: two CPU-bound
#    tasks on one PU). The PU comes from hwloc: the first one this process
#    may use, where mpirun puts rank 0 with map_by core, bind_to hwthread,
#    on any core count, with SMT or without;
#  - after the sweep no hog is left (its recorded pid is gone), and none is
#    left after a run that timed out, after SIGINT of the harness (exit 130),
#    after SIGTERM (exit 143, named) or after SIGKILL of the harness (the
#    hogs die with it);
#  - mem and cpu+mem hogs, free: two processes, each reaped;
#  - bad specs are refused where written, a pinned CPU the node lacks makes
#    the layout invalid with the arithmetic.
# Hogs are found by their command line: `bindlab hog KIND ... --parent PID`
# with the harness's PID (no timing is asserted; 60 s deadlines for hangs).
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py is not installed"; exit 77; }
last_cpu=$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')
command -v hwloc-calc >/dev/null || fail "hwloc-calc is missing (scripts/deps.sh installs hwloc)"
rank_pu=$(hwloc-calc --restrict "$(hwloc-bind --get)" --intersect pu --physical-output pu:0)

# hogs_of PID: pids of `bindlab hog` processes started by harness PID.
hogs_of() { pgrep -f -- " hog (cpu|mem) .*--parent $1\$" || true; }

cat >"$WORK/n.yaml" <<YAML
name: nz
kernels: [{name: triad, size: 32MiB, iters: 30, warmup: 1}]
layouts:
  - {name: pinned, np: 1, threads: 1, map_by: core, bind_to: hwthread, noisy: "cpu,pinned=$rank_pu", timeout: 120}
YAML
"$BINDLAB" sweep --results "$WORK/r1" "$WORK/n.yaml" >"$WORK/r1.out" 2>&1 || { cat "$WORK/r1.out"; fail "sweep with a pinned CPU hog"; }
grep -q "noisy=cpu,pinned=$rank_pu: ok" "$WORK/r1.out" || { cat "$WORK/r1.out"; fail "label without noisy="; }
"$PY" - "$WORK/r1/nz.h5" "$rank_pu" >"$WORK/pids" <<'PYEOF'
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else v
f = h5py.File(sys.argv[1], "r"); cpu = int(sys.argv[2])
g = f["runs/r0000"]
assert s(g.attrs["noisy"]) == "cpu,pinned=%d" % cpu, g.attrs["noisy"]
nb = g["neighbours"][()]
assert len(nb) == 1, nb
n = nb[0]
assert s(n["kind"]) == "cpu" and s(n["cpus"]) == str(cpu) and n["last_cpu"] == cpu, n
assert n["cpu_s"] > 0 and n["wall_s"] > 0 and n["pid"] > 0, n
assert " hog cpu " in s(n["argv"]), n
# the rank, bound to the hog's PU, ran there and was preempted
pl = g["placement"][()]
assert len(pl) == 1 and pl[0]["rank"] == 0, pl
assert pl[0]["cpu_last"] == cpu, "rank 0 last ran on CPU %d, not %d" % (pl[0]["cpu_last"], cpu)
assert pl[0]["ctx_involuntary"] > 0, pl[0]["ctx_involuntary"]
print(n["pid"])
PYEOF
pid=$(cat "$WORK/pids")
[ ! -e "/proc/$pid" ] || tr '\0' ' ' <"/proc/$pid/cmdline" | grep -vq " hog " || fail "hog $pid still runs after the sweep"
echo "ok: a pinned CPU hog ran on CPU $rank_pu beside the run, preempted the rank there, was reaped (pid $pid)"

# mem and cpu+mem, free, through --noisy (overriding the file's noisy:).
cat >"$WORK/m.yaml" <<'YAML'
name: mz
kernels: [{name: triad, size: 4MiB, iters: 5, warmup: 0}]
layouts:
  - {name: one, np: 1, threads: 1, timeout: 120}
YAML
"$BINDLAB" sweep --noisy cpu+mem --results "$WORK/r2" "$WORK/m.yaml" >"$WORK/r2.out" 2>&1 || { cat "$WORK/r2.out"; fail "sweep --noisy cpu+mem"; }
"$PY" - "$WORK/r2/mz.h5" >"$WORK/pids2" <<'PYEOF'
import os, sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else v
g = h5py.File(sys.argv[1], "r")["runs/r0000"]
assert s(g.attrs["noisy"]) == "cpu+mem,free", g.attrs["noisy"]
nb = g["neighbours"][()]
assert sorted(s(n["kind"]) for n in nb) == ["cpu", "mem"], nb
allowed = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
for n in nb:
    assert n["cpu_s"] > 0 and n["last_cpu"] >= 0, n
    print(n["pid"])
PYEOF
for p in $(cat "$WORK/pids2"); do
    [ ! -e "/proc/$p" ] || tr '\0' ' ' <"/proc/$p/cmdline" | grep -vq " hog " || fail "hog $p still runs"
done
echo "ok: --noisy cpu+mem: two free hogs ran and were reaped"

# A run that times out: its neighbour is reaped too.
cat >"$WORK/t.yaml" <<'YAML'
name: tz
kernels: [{name: triad, size: 16MiB, iters: 1000000, warmup: 0}]
layouts:
  - {name: hangs, np: 1, threads: 1, timeout: 3, noisy: cpu}
YAML
set +e
"$BINDLAB" sweep --results "$WORK/r3" "$WORK/t.yaml" >"$WORK/r3.out" 2>&1; rc=$?
set -e
[ "$rc" = 1 ] && grep -q ': timeout' "$WORK/r3.out" || { cat "$WORK/r3.out"; fail "timeout run: exit $rc"; }
tpid=$("$PY" -c 'import sys, h5py; print(h5py.File(sys.argv[1])["runs/r0000/neighbours"][0]["pid"])' "$WORK/r3/tz.h5")
[ ! -e "/proc/$tpid" ] || tr '\0' ' ' <"/proc/$tpid/cmdline" | grep -vq " hog " || fail "hog $tpid still runs after the timeout"
echo "ok: the neighbour of a timed-out run was reaped (pid $tpid)"

# SIGINT of the harness mid-run: exit 130, no hog left.
sed 's/timeout: 3,/timeout: 600,/' "$WORK/t.yaml" >"$WORK/long.yaml"
"$BINDLAB" sweep --results "$WORK/r4" --noisy cpu+mem "$WORK/long.yaml" >"$WORK/r4.out" 2>&1 &
h=$!
two_hogs() { [ "$(hogs_of "$h" | wc -l)" = 2 ]; }
wait_until "two hogs of harness $h run" two_hogs
hogs_of "$h" >"$WORK/h4"
kill -INT "$h"
set +e
wait "$h"; rc=$?
set -e
[ "$rc" = 130 ] || { cat "$WORK/r4.out"; fail "SIGINT: exit $rc, expected 130"; }
for p in $(cat "$WORK/h4"); do [ ! -e "/proc/$p" ] || fail "hog $p left after SIGINT"; done
[ -z "$(hogs_of "$h")" ] || fail "hogs left after SIGINT: $(hogs_of "$h")"
echo "ok: SIGINT: exit 130, hogs $(tr '\n' ' ' <"$WORK/h4")gone"

# SIGTERM of the harness (a batch system's time limit): exit 143, named.
"$BINDLAB" sweep --results "$WORK/r6" --noisy cpu "$WORK/long.yaml" >"$WORK/r6.out" 2>&1 &
h=$!
one_hog() { [ "$(hogs_of "$h" | wc -l)" = 1 ]; }
wait_until "the hog of harness $h runs" one_hog
kill -TERM "$h"
set +e
wait "$h"; rc=$?
set -e
[ "$rc" = 143 ] && grep -q "interrupted by SIGTERM; finished runs are kept" "$WORK/r6.out" ||
    { cat "$WORK/r6.out"; fail "SIGTERM: exit $rc, expected 143"; }
[ -z "$(hogs_of "$h")" ] || fail "hogs left after SIGTERM: $(hogs_of "$h")"
echo "ok: SIGTERM: exit 143, named"

# SIGKILL of the harness: the hogs die with it (PR_SET_PDEATHSIG).
"$BINDLAB" sweep --results "$WORK/r5" --noisy cpu "$WORK/long.yaml" >"$WORK/r5.out" 2>&1 &
h=$!
one_hog() { [ "$(hogs_of "$h" | wc -l)" = 1 ]; }
wait_until "the hog of harness $h runs" one_hog
hogs_of "$h" >"$WORK/h5"
kill -KILL "$h"
wait "$h" 2>/dev/null || true
no_hog() { [ -z "$(hogs_of "$h")" ]; }
wait_until "the hog of the killed harness $h ends" no_hog
echo "ok: SIGKILL of the harness: hog $(cat "$WORK/h5") gone"

# Refusals: at the option, at the file's line, and a CPU the node lacks.
set +e
"$BINDLAB" sweep --dry-run --noisy gpu "$WORK/m.yaml" >"$WORK/b1" 2>&1; rc1=$?
sed 's/name: one, /name: one, noisy: "cpu,pinned=x", /' "$WORK/m.yaml" >"$WORK/bad.yaml"
"$BINDLAB" sweep --dry-run "$WORK/bad.yaml" >"$WORK/b2" 2>&1; rc2=$?
"$BINDLAB" sweep --dry-run --noisy "cpu,pinned=$((last_cpu + 1000))" "$WORK/m.yaml" >"$WORK/b3" 2>&1; rc3=$?
set -e
[ "$rc1" = 2 ] && grep -q "noisy 'gpu': unknown hog 'gpu'; accepted: none, cpu, mem or cpu+mem" "$WORK/b1" ||
    { cat "$WORK/b1"; fail "--noisy gpu: exit $rc1"; }
[ "$rc2" = 2 ] && grep -q "bad.yaml:4:.*noisy 'cpu,pinned=x': pinned= needs a CPU list" "$WORK/b2" ||
    { cat "$WORK/b2"; fail "noisy: cpu,pinned=x: exit $rc2"; }
[ "$rc3" = 2 ] && grep -q "noisy: pinned=$((last_cpu + 1000)), but this node's CPUs are" "$WORK/b3" ||
    { cat "$WORK/b3"; fail "pinned to a missing CPU: exit $rc3"; }
echo "ok: refusals"
echo "6 passed, 0 failed"
