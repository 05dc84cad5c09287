#!/usr/bin/env bash
# A cause in the harness's environment that fails every launch the same
# way (a TMPDIR that cannot hold a directory, the working directory
# removed) stops the sweep before its next run with that cause (exit 2),
# instead of recording every remaining run as failed with the launcher's
# first words. No run is launched.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
cd "$WORK"
printf 'name: s\nkernels:\n  - {name: triad, size: 1MiB, iters: 2, warmup: 0}\nlayouts:\n  - {np: 1, map_by: core, bind_to: core, threads: 1, repetitions: 3}\n' >s.yaml

stops() { # OUT WHAT CAUSE RESULTS: the sweep stopped with CAUSE, no run recorded
    local out=$1 what=$2 cause=$3 res=$4
    [ "$rc" = 2 ] || { cat "$out"; fail "$what: exit $rc, expected 2"; }
    grep -qF "no run can start: $cause" "$out" || { cat "$out"; fail "$what: the cause is not said"; }
    grep -q 'stopped before r0000.1 with 3 runs not started' "$out" || fail "$what: not stopped before the first run"
    ! grep -q 'failed' "$out" || fail "$what: runs were failed one by one"
    [ -z "$(ls "$res"/s.d/*.h5 2>/dev/null)" ] || fail "$what: a run was recorded"
    echo "ok: $what stops the sweep with its cause"
}

touch notadir
set +e
TMPDIR=$WORK/notadir "$BINDLAB" sweep s.yaml --results "$WORK/r1" >tmpdir.out 2>&1
rc=$?
set -e
stops tmpdir.out "a TMPDIR that is a file" "TMPDIR '$WORK/notadir' cannot hold the launcher's session directory (not a directory" "$WORK/r1"

mkdir gone
set +e
(cd gone && rmdir "$WORK/gone" && exec "$BINDLAB" sweep "$WORK/s.yaml" --results "$WORK/r2") >cwd.out 2>&1
rc=$?
set -e
stops cwd.out "a removed working directory" "the working directory was removed" "$WORK/r2"
