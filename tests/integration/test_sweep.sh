#!/usr/bin/env bash
# bindlab sweep with real mpirun: 7 layouts (one fails, one hangs until its
# timeout), the merged summary, --dry-run, refusing a layout the node cannot
# run, and --resume after the harness is killed with SIGKILL.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3

# Cores this process may use, as Open MPI sees them (it maps and binds to
# cores): hwloc's cores in this process's affinity within its cgroup
# cpuset, the set the sweep checks layouts against (taskset -c 0 leaves
# one core, and layouts of 2 are refused, naming the set).
command -v hwloc-calc >/dev/null || fail "hwloc-calc is missing (scripts/deps.sh installs hwloc)"
NCORES=$(hwloc-calc -N core "$(hwloc-bind --get)")
TWO=$((NCORES < 2 ? NCORES : 2))
echo "cores available: $NCORES; layouts of 2 ranks or PE=2 use $TWO"
SWEEP="$WORK/itest.yaml"
sed -e "s/@NP2@/$TWO/g" -e "s/@PE2@/$TWO/g" "$BINDLAB_FIXTURES/sweeps/itest.yaml" >"$SWEEP"

# summary FILE: one line per run, "run_id name status verified flags".
summary() {
    "$PY" - "$1" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for r in f["summary"][()]:
        d = lambda k: r[k].decode() if isinstance(r[k], bytes) else r[k]
        print(d("run_id"), d("name"), d("status"), int(r["verified"]), d("flags") or "-")
PYEOF
}

# --dry-run prints every command line and runs nothing.
"$BINDLAB" sweep --dry-run --results "$WORK/dry" "$SWEEP" >"$WORK/dry.out"
[ "$(grep -c '^mpirun' "$WORK/dry.out")" = 7 ] || fail "dry run: expected 7 command lines"
grep -q -- "--report-bindings" "$WORK/dry.out" || fail "dry run: no --report-bindings"
[ -e "$WORK/dry" ] && fail "dry run created results"
echo "ok: --dry-run"

# The whole sweep: exit 1 because runs failed, every run recorded.
set +e
"$BINDLAB" sweep --results "$WORK/res" "$SWEEP" >"$WORK/sweep.out" 2>&1
rc=$?
set -e
cat "$WORK/sweep.out"
[ "$rc" = 1 ] || fail "sweep exit status $rc, expected 1 (one failed, one timeout)"
summary "$WORK/res/itest.h5" >"$WORK/summary"
cat "$WORK/summary"
[ "$(wc -l <"$WORK/summary")" = 7 ] || fail "expected 7 summary rows"
[ "$(awk '$3 == "ok" && $4 == 1' "$WORK/summary" | wc -l)" = 5 ] || fail "expected 5 ok, verified runs"
grep -q ' too-big failed 0 ' "$WORK/summary" || fail "too-big should be failed"
grep -q ' hangs timeout 0 ' "$WORK/summary" || fail "hangs should be timeout"
grep -q '^\[7/7\]' "$WORK/sweep.out" || fail "no progress line for run 7"
grep -q 'harness overhead' "$WORK/sweep.out" || fail "no overhead line"
# The failed run keeps the app's complaint; the hung one is gone.
"$PY" - "$WORK/res/itest.h5" "$TWO" <<'PYEOF' || fail "failed/timeout records"
import sys, h5py
np2 = int(sys.argv[2])
with h5py.File(sys.argv[1], "r") as f:
    runs = {f["runs"][k].attrs["name"]: f["runs"][k] for k in f["runs"]}
    big = runs["too-big"].attrs
    assert "--size" in big["stderr_tail"], big["stderr_tail"]
    assert big["exit_status"] == 2, big["exit_status"]
    assert runs["hangs"].attrs["timed_out"] == 1
    ok = runs["two-bound"]
    checks = ok["checks"][()]
    assert len(checks) == np2 and all(c["matches"] == 1 for c in checks), checks
    assert f"MCW rank {np2 - 1}" in ok["binding_report"][()].decode()
    assert ok["placement"].shape[0] == np2
PYEOF
pgrep -f "bindlab-app.*$WORK" && fail "a process of the hung run is still alive"
echo "ok: sweep records and summary"

# Without --resume, an existing results directory is refused.
set +e
"$BINDLAB" sweep --results "$WORK/res" "$SWEEP" >"$WORK/again.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "rerun into existing results: exit $rc, expected 2"
grep -q -- "--resume" "$WORK/again.out" || fail "rerun message does not mention --resume"
echo "ok: existing results refused without --resume"

# A layout this node cannot run is refused before anything runs: one rank
# per core, each with 2 cores, needs twice the cores we have ...
cat >"$WORK/big.yaml" <<YAML
name: big
kernels: [{name: triad, size: 16MiB, iters: 2}]
layouts:
  - {name: fits, np: 1}
  - {name: too-wide, np: $NCORES, map_by: "slot:PE=2", threads: 2}
YAML
set +e
"$BINDLAB" sweep --dry-run --results "$WORK/big" "$WORK/big.yaml" >"$WORK/bigdry.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "--dry-run with an invalid layout: exit $rc, expected 2"
grep -q 'too-wide' "$WORK/bigdry.out" || fail "--dry-run did not name the invalid layout"
[ -e "$WORK/big" ] && fail "dry run created results"
set +e
"$BINDLAB" sweep --results "$WORK/big" "$WORK/big.yaml" >"$WORK/big.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "invalid layout: exit $rc, expected 2"
grep -q 'too-wide' "$WORK/big.out" || fail "invalid layout not named"
[ -e "$WORK/big/big.h5" ] && fail "an invalid sweep ran"
# ... or recorded as invalid with --skip-invalid.
"$BINDLAB" sweep --skip-invalid --results "$WORK/big" "$WORK/big.yaml" >"$WORK/big2.out" 2>&1
summary "$WORK/big/big.h5" >"$WORK/big.summary"
grep -q ' too-wide invalid ' "$WORK/big.summary" || fail "not recorded as invalid"
grep -q ' fits ok 1 ' "$WORK/big.summary" || fail "the valid layout did not run"
echo "ok: invalid layouts refused, or recorded with --skip-invalid"

# records DIR: how many finished runs DIR holds.
records() {
    { find "$1" -maxdepth 1 -name 'r*.h5' 2>/dev/null || true; } | wc -l
}

# --resume after SIGKILL: kill the harness once two runs are recorded.
# (Records are written in one piece under a final name, so counting them
# never sees a half-written one.)
"$BINDLAB" sweep --results "$WORK/kill" "$SWEEP" >"$WORK/kill.out" 2>&1 &
harness=$!
for _ in $(seq 1 600); do
    n=$(records "$WORK/kill/itest.d")
    [ "$n" -ge 2 ] && break
    sleep 0.1
done
kill -9 "$harness"
wait "$harness" 2>/dev/null || true
# The run in flight dies with the harness (its supervisor kills it): poll
# until no process of the sweep is left; 60 s is a deadline, not a bound.
for i in $(seq 1 600); do
    pgrep -f -- "--results $WORK/kill|$WORK/kill/" >/dev/null || break
    [ "$i" = 600 ] && fail "processes of the killed sweep still run: $(pgrep -af -- "$WORK/kill")"
    sleep 0.1
done
before=$(records "$WORK/kill/itest.d")
[ "$before" -ge 2 ] && [ "$before" -lt 7 ] || fail "expected a partial sweep, found $before records"
stat -c '%n %Y %i' "$WORK/kill/itest.d/"r*.h5 >"$WORK/before.stat"
set +e
"$BINDLAB" sweep --resume --results "$WORK/kill" "$SWEEP" >"$WORK/resume.out" 2>&1
rc=$?
set -e
cat "$WORK/resume.out"
[ "$rc" = 1 ] || fail "resume exit $rc, expected 1"
grep -q "$before already done" "$WORK/resume.out" || fail "resume did not skip the $before finished runs"
while read -r name mtime inode; do
    [ "$(stat -c '%Y %i' "$name")" = "$mtime $inode" ] || fail "$name was rerun"
done <"$WORK/before.stat"
summary "$WORK/kill/itest.h5" >"$WORK/kill.summary"
[ "$(wc -l <"$WORK/kill.summary")" = 7 ] || fail "resumed sweep has not 7 runs"
echo "ok: --resume after SIGKILL completed the sweep without rerunning $before finished runs"
echo "1 passed, 0 failed"
