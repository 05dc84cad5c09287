#!/usr/bin/env bash
# bindlab sweep --retry with real mpirun and the real bindlab-app, one of
# whose two ranks fails once (tests/integration/preload/crash_preload.c,
# LD_PRELOAD through an --app wrapper; a marker file makes the failure happen
# on the first launch only, so a launch made again runs through):
# - a rank that dies right after its MPI_Init (before the app's first
#   collective: what Open MPI 4.1's wire-up race does) with retry: 2 in the
#   sweep file: launched again, ok after 2 launches; the first launch's log
#   kept as r0000.try1.log, its reason in the record's retries table, the
#   attempts in /summary, "retry 1/2:" on the progress, the report lists it;
# - the same without retry (the default): failed, one launch, nothing kept;
# - a rank that dies in the timed iterations (the app had started) and one
#   that hangs there until the timeout, with --retry 2: failed / timeout
#   after one launch, though a second launch would have run through.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
PRELOAD="$BINDLAB_BUILD_DIR/tests/libbl_crash_preload.so"
[ -f "$PRELOAD" ] || fail "$PRELOAD is missing (built with the tests)"

# The app behind a wrapper that preloads the failure (only the app: mpirun
# and bindlab run as they are). ASan builds: the preload comes before the
# sanitizer's runtime, which is then told not to mind.
cat >"$WORK/app.sh" <<SH
#!/bin/sh
LD_PRELOAD="$PRELOAD" exec "$BINDLAB_APP" "\$@"
SH
chmod +x "$WORK/app.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

sweep_file() { # NAME MORE-DEFAULTS
    cat >"$WORK/$1.yaml" <<YAML
name: $1
kernels: [{name: triad, size: 8MiB, iters: 3, warmup: 1}]
defaults: {bind_to: none$2}
layouts:
  - {name: pair, np: 2}
YAML
}

# sweep NAME AT [OPTIONS...]: the sweep with rank 1 failing once at AT.
sweep() {
    local name=$1 at=$2
    shift 2
    set +e
    BL_CRASH_AT=$at BL_CRASH_MARKER="$WORK/$name.marker" \
        "$BINDLAB" sweep --oversubscribe --app "$WORK/app.sh" \
        --results "$WORK/res" "$@" "$WORK/$name.yaml" >"$WORK/$name.out" 2>&1
    rc=$?
    set -e
    cat "$WORK/$name.out"
}

# record NAME: "status attempts retries summary_attempts" of run r0000, then
# each retries row as "attempt exit_status term_signal log | reason".
record() {
    "$PY" - "$WORK/res/$1.h5" <<'PYEOF'
import sys, h5py
s = lambda v: v.decode() if isinstance(v, bytes) else v
with h5py.File(sys.argv[1], "r") as f:
    g = f["runs/r0000"]
    rows = g["retries"][()] if "retries" in g else []
    summ = f["summary"][()][0]
    print(s(g.attrs["status"]), int(g.attrs["attempts"]), len(rows),
          int(summ["attempts"]))
    for r in rows:
        print(int(r["attempt"]), int(r["exit_status"]), int(r["term_signal"]),
              s(r["log"]), "|", s(r["reason"]))
PYEOF
}

# --- dies after its MPI_Init, before the app starts; retry: 2 -----------------
sweep_file before ", timeout: 60, retry: 2"
sweep before init
[ "$rc" = 0 ] || fail "retry: 2: exit $rc, expected 0 (ok on the second launch)"
[ -f "$WORK/before.marker" ] || fail "the first launch did not fail (no marker)"
record before >"$WORK/before.rec"
cat "$WORK/before.rec"
read -r status attempts nrows summ <"$WORK/before.rec"
[ "$status $attempts $nrows $summ" = "ok 2 1 2" ] ||
    fail "retried run: '$status $attempts $nrows $summ', expected 'ok 2 1 2'"
# The one retries row: launch 1, not exit 0, its log, no run file.
row=$(sed -n 2p "$WORK/before.rec")
case "$row" in
"1 0 "*) fail "retries row: launch 1 exited 0: '$row'" ;;
"1 "*" r0000.try1.log | "*"no run file"*) ;;
*) fail "retries row: '$row'" ;;
esac
D="$WORK/res/before.d"
[ -f "$D/r0000.try1.log" ] || fail "the first launch's log was not kept"
grep -q "signal 11\|Segmentation fault" "$D/r0000.try1.log" ||
    fail "r0000.try1.log does not show the crash"
grep -q "^bindlab-app: started:" "$D/r0000.try1.log" &&
    fail "r0000.try1.log: the app said it started"
grep -q "^bindlab-app: started: 2 ranks past MPI_Init" "$D/r0000.log" ||
    fail "r0000.log: no started line"
grep -q "^r0000: retry 1/2: .*no run file" "$WORK/before.out" || fail "no 'retry 1/2:' progress line"
"$BINDLAB" report "$WORK/res/before.h5" >"$WORK/before.report"
cat "$WORK/before.report"
grep -q "^  r0000 ok after 2 launches$" "$WORK/before.report" || fail "report: retried run not listed"
grep -q "^    launch 1: .*no run file.*(log r0000.try1.log)$" "$WORK/before.report" ||
    fail "report: the first launch's reason and log not shown"
# the page: the table's status names the launches, the run's section says
# what the first one died of and where its log is
"$BINDLAB" report "$WORK/res/before.h5" --html "$WORK/before.html" >/dev/null ||
    fail "report --html failed"
grep -q '<td>ok (2 launches)</td>' "$WORK/before.html" || fail "page: the table does not say 2 launches"
grep -q '<p>Launched 2 times: ' "$WORK/before.html" || fail "page: the run's section does not say it was launched again"
grep -q '<li>launch 1: .*no run file.*(log <code>r0000.try1.log</code>)</li>' "$WORK/before.html" ||
    fail "page: the first launch's reason and log not shown"
echo "ok: a launch that died before the app started ran again (retry: 2)"

# --- the same without retry: one launch, failed, nothing kept ----------------
sweep_file noretry ", timeout: 60"
sweep noretry init
[ "$rc" = 1 ] || fail "no retry: exit $rc, expected 1 (failed)"
record noretry >"$WORK/noretry.rec"
read -r status attempts nrows summ <"$WORK/noretry.rec"
[ "$status $attempts $nrows $summ" = "failed 1 0 1" ] ||
    fail "no retry: '$status $attempts $nrows $summ', expected 'failed 1 0 1'"
ls "$WORK/res/noretry.d/"*.try*.log 2>/dev/null && fail "no retry, but an attempt's log was kept"
grep -q "retry" "$WORK/noretry.out" && fail "no retry, but the progress says retry"
grep -q "launched again" <("$BINDLAB" report "$WORK/res/noretry.h5") && fail "report lists a run never retried"
"$BINDLAB" report "$WORK/res/noretry.h5" --html "$WORK/noretry.html" >/dev/null || fail "report --html failed"
grep -q "launches\|Launched" "$WORK/noretry.html" && fail "page names launches of a run never retried"
echo "ok: without retry a launch that died before the app started is failed"

# --- dies after the app started, or hangs there: never launched again ---------
# (the marker exists afterwards: a second launch would have been ok)
for at in run hang; do
    # the crash ends on its own (mpirun ends the job): a timeout far off, so
    # a slow end (ASan writing its report under load) is not read as a hang
    limit=120
    [ "$at" = hang ] && limit=10
    sweep_file "after-$at" ", timeout: $limit"
    sweep "after-$at" "$at" --retry 2
    [ "$rc" = 1 ] || fail "$at: exit $rc, expected 1"
    [ -f "$WORK/after-$at.marker" ] || fail "$at: the launch did not fail (no marker)"
    want=failed
    [ "$at" = hang ] && want=timeout
    record "after-$at" >"$WORK/after-$at.rec"
    read -r status attempts nrows summ <"$WORK/after-$at.rec"
    [ "$status $attempts $nrows $summ" = "$want 1 0 1" ] ||
        fail "$at: '$status $attempts $nrows $summ', expected '$want 1 0 1'"
    ls "$WORK/res/after-$at.d/"*.try*.log 2>/dev/null && fail "$at: an attempt's log was kept"
    grep -q "retry 1/" "$WORK/after-$at.out" && fail "$at: launched again"
    grep -q "^bindlab-app: started: 2 ranks" "$WORK/res/after-$at.d/r0000.log" ||
        fail "$at: the app did not say it started"
    echo "ok: a run that failed after the app started ($at) is not launched again"
done
echo "1 passed, 0 failed"
