#!/usr/bin/env bash
# One sweep per results directory, and a killed sweep takes its run with it:
#  - a second sweep (with or without --resume) on the same results is
#    refused while the first runs, naming the first's PID;
#  - SIGKILL of the harness mid-run: every process of the sweep (mpirun, its
#    ranks) is gone soon after (polled with a generous deadline, no timing
#    asserted), and the lock is free (checked with util-linux flock);
#  - a lock whose taker died but whose descriptor a surviving process still
#    holds (what a killed sweep's run is) makes the next sweep wait, and the
#    next sweep starts only once that process is gone (the process lives
#    until the test, having seen the sweep wait, releases it: a FIFO);
#  - a lock file left behind by a dead process is no lock.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
command -v flock >/dev/null || fail "util-linux flock is missing (scripts/deps.sh installs util-linux)"

cat >"$WORK/hang.yaml" <<'YAML'
name: lk
kernels:
  - {name: triad, label: hang, size: 16MiB, iters: 1000000, warmup: 0}
  - {name: triad, label: quick, size: 1MiB, iters: 2, warmup: 0}
layouts:
  - {name: hangs, np: 1, threads: 1, kernel: hang, timeout: 600}
YAML
cat >"$WORK/quick.yaml" <<'YAML'
name: lk
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
layouts:
  - {name: quick, np: 1, threads: 1}
YAML
RES="$WORK/res"
DIR="$RES/lk.d"

# sweep_procs: PIDs of processes whose command line names this test's
# results (the harness, its supervisor, mpirun, the ranks).
sweep_procs() { pgrep -f -- "--results $RES|$DIR/" || true; }

app_running() { pgrep -f -- "bindlab-app.*$DIR/" >/dev/null; }
none_left() { [ -z "$(sweep_procs)" ]; }

"$BINDLAB" sweep --results "$RES" "$WORK/hang.yaml" >"$WORK/first.out" 2>&1 &
first=$!
wait_until "the first sweep's rank runs" app_running

for extra in "" --resume; do
    set +e
    "$BINDLAB" sweep $extra --results "$RES" "$WORK/quick.yaml" >"$WORK/second.out" 2>&1
    rc=$?
    set -e
    cat "$WORK/second.out"
    [ "$rc" = 1 ] || fail "second sweep ${extra:-(fresh)}: exit $rc, expected 1"
    grep -q "PID $first" "$WORK/second.out" || fail "second sweep does not name PID $first"
done
[ -e "$DIR/r0000.h5" ] && fail "the refused sweep wrote a record"
app_running || fail "the refused sweep disturbed the first one's run"
echo "ok: a second sweep on the same results is refused, naming PID $first"

kill -9 "$first"
wait "$first" 2>/dev/null || true
wait_until "no process of the killed sweep is left" none_left
# A process leaves pgrep's sight (its memory released) a moment before its
# descriptors close: poll the lock too.
lock_free() { flock -n "$DIR/.lock" true; }
wait_until "the lock is free with no process of the sweep left" lock_free
echo "ok: SIGKILL of the harness: mpirun and its ranks are gone, the lock is free"

# The next sweep runs (the killed run left no record: it ran again).
"$BINDLAB" sweep --resume --results "$RES" "$WORK/quick.yaml" >"$WORK/next.out" 2>&1 ||
    { cat "$WORK/next.out"; fail "sweep after the killed one failed"; }
[ -s "$DIR/r0000.h5" ] || fail "no record after the next sweep"
rm -rf "$RES"

# A process that survived its sweep, as a killed sweep's run would without
# the supervisor: its parent took the lock and died, it holds the open lock
# file until the test releases it through a FIFO (events, not durations:
# the orphan lives exactly until the next sweep has said it waits).
mkdir -p "$DIR"
mkfifo "$WORK/release"
(
    exec 9>"$DIR/.lock"
    flock -x 9
    sh -c 'read -r _ <"$1"; : >"$2"' orphan "$WORK/release" "$WORK/released" &
    echo $! >"$WORK/orphan.pid"
)
# gone: no such process, or a zombie (an init that does not reap orphans)
taker_gone() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || true
    [ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}
orphan=$(cat "$WORK/orphan.pid")
kill -0 "$orphan" || fail "the stand-in orphan is not running"
"$BINDLAB" sweep --resume --results "$RES" "$WORK/quick.yaml" >"$WORK/wait.out" 2>&1 &
next=$!
says_waiting() { grep -q "waiting for the run left by a killed sweep" "$WORK/wait.out"; }
wait_until "the next sweep says it waits for the orphan" says_waiting
kill -0 "$next" 2>/dev/null || { cat "$WORK/wait.out"; fail "the sweep ended while the orphan holds the lock"; }
ls "$DIR"/app/*.h5 "$DIR"/*.log.part "$DIR"/r*.h5 2>/dev/null &&
    fail "a run started while the orphan held the lock"
echo go >"$WORK/release"
rc=0
wait "$next" || rc=$?
cat "$WORK/wait.out"
[ "$rc" = 0 ] || fail "sweep after the orphan: exit $rc"
taker_gone "$orphan" || fail "the sweep ended while the orphan still runs"
# its run came after the orphan let go: the record is newer than the mark
# the orphan left on its way out
[ "$DIR/r0000.h5" -nt "$WORK/released" ] || fail "the record is not newer than the orphan's end"
echo "ok: a sweep waits for what a dead sweep left holding the lock"

# A lock file whose taker is dead and whose descriptor nobody holds.
rm -rf "$RES"
mkdir -p "$DIR"
flock -x "$DIR/.lock" true
echo 99999999 >"$DIR/.lock"
"$BINDLAB" sweep --resume --results "$RES" "$WORK/quick.yaml" >"$WORK/stale.out" 2>&1 ||
    { cat "$WORK/stale.out"; fail "a stale lock file was taken for a lock"; }
grep -q waiting "$WORK/stale.out" && fail "waited for a stale lock file"
echo "ok: a lock file left by a dead process is no lock"
echo "1 passed, 0 failed"
