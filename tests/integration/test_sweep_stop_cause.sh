#!/usr/bin/env bash
# A cause in the harness's environment that fails every launch the same
# way (a TMPDIR that cannot hold a directory, the working directory
# removed, the app every run starts missing) stops the sweep before its
# next run with that cause (exit 2), instead of recording every remaining
# run as failed with the launcher's first words; `bindlab run` refuses to
# start (exit 2). A cause that arises during a run (a launcher's wrapper
# makes it) is the run's reason, in a sweep and in `bindlab run`. Only the
# wrapper is launched, no rank.
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

# The program every run starts is not there (a wrong --app, an install
# without bindlab-app): no launch can get past that either.
for app in "$WORK/no-such-app" "$WORK/notadir"; do
    set +e
    "$BINDLAB" sweep s.yaml --results "$WORK/r-app" --app "$app" >app.out 2>&1
    rc=$?
    set -e
    stops app.out "--app $(basename "$app")" "the app '$app' is not an executable file (give --app the path of bindlab-app)" "$WORK/r-app"
done

# The cause arising during a run: a launcher's wrapper that takes the
# working directory away (or turns TMPDIR into a file) and fails, as a
# launcher then would. The run's reason says the cause first; a sweep then
# stops before its next run.
real_mpirun=$(command -v mpirun)
wrapper() { # NAME COMMAND: a launcher that answers --version as mpirun, else runs COMMAND and fails
    printf '#!/usr/bin/env bash\n[ "$1" = --version ] && exec "%s" "$@"\n%s\nexit 1\n' "$real_mpirun" "$2" >"$1"
    chmod +x "$1"
}
wrapper rm-cwd 'rmdir "$PWD"'
wrapper rm-tmp 'rm -rf "$TMPDIR" && touch "$TMPDIR"'

for what in cwd tmp; do
    mkdir -p "$WORK/d-$what" "$WORK/t-$what"
    cause="the working directory was removed (the environment, not the layout)"
    [ "$what" = tmp ] && cause="TMPDIR '$WORK/t-$what' cannot hold the launcher's session directory (not a directory; the environment, not the layout)"
    set +e
    (cd "$WORK/d-$what" && TMPDIR=$WORK/t-$what exec "$BINDLAB" sweep "$WORK/s.yaml" --results "$WORK/r-$what" --launcher "$WORK/rm-$what") >"sweep-$what.out" 2>&1
    rc=$?
    set -e
    [ "$rc" = 2 ] || { cat "sweep-$what.out"; fail "sweep, $what gone during a run: exit $rc, expected 2"; }
    grep -qF "r0000.1 " "sweep-$what.out" && grep -qF "failed ($cause; exit status 1, no run file)" "sweep-$what.out" ||
        { cat "sweep-$what.out"; fail "sweep, $what gone during a run: the run's reason does not say the cause"; }
    grep -qF "no run can start: $cause; stopped before r0000.2 with 2 runs not started" "sweep-$what.out" ||
        { cat "sweep-$what.out"; fail "sweep, $what gone during a run: not stopped before the next run"; }
    echo "ok: sweep: $what gone during a run is the run's reason, and stops the sweep"
done

# bindlab run: refused before the launch (exit 2, nothing recorded) ...
touch "$WORK/notadir"
set +e
TMPDIR=$WORK/notadir "$BINDLAB" run --out "$WORK/run1.h5" -- /bin/true >run1.out 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -qF "bindlab run: no run can start: TMPDIR '$WORK/notadir' cannot hold the launcher's session directory (not a directory; the environment, not the layout); nothing was run" run1.out &&
    [ ! -e "$WORK/run1.h5" ] || { cat run1.out; fail "run, TMPDIR a file: exit $rc"; }
mkdir "$WORK/gone"
set +e
(cd "$WORK/gone" && rmdir "$WORK/gone" && exec "$BINDLAB" run --out "$WORK/run2.h5" -- /bin/true) >run2.out 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -qF "bindlab run: no run can start: the working directory was removed (the environment, not the layout); nothing was run" run2.out &&
    [ ! -e "$WORK/run2.h5" ] || { cat run2.out; fail "run, cwd removed: exit $rc"; }
echo "ok: run: a TMPDIR that is a file or a removed working directory refuses the run"
# ... and a cause arising during the run is its reason
for what in cwd tmp; do
    mkdir -p "$WORK/rd-$what" "$WORK/rt-$what"
    cause="the working directory was removed (the environment, not the layout)"
    [ "$what" = tmp ] && cause="TMPDIR '$WORK/rt-$what' cannot hold the launcher's session directory (not a directory; the environment, not the layout)"
    set +e
    (cd "$WORK/rd-$what" && TMPDIR=$WORK/rt-$what exec "$BINDLAB" run --launcher "$WORK/rm-$what" --out "$WORK/run-$what.h5" -- /bin/true) >"run-$what.out" 2>&1
    rc=$?
    set -e
    [ "$rc" = 1 ] && grep -qF "status: failed: $cause; exit status 1" "run-$what.out" ||
        { cat "run-$what.out"; fail "run, $what gone during the run: exit $rc, or the reason does not say the cause"; }
    echo "ok: run: $what gone during the run is the run's reason"
done
