#!/usr/bin/env bash
# bindlab run -- PROGRAM: one launch under libbindlab-probe.so, recorded.
# (a) bindlab-app, 2 ranks x 2 OpenMP threads bound close on cores: both
# ranks and their threads recorded (labels main and openmp), each rank's
# set the core Open MPI bound it to, no binding-mismatch; (b) a library
# that widens the affinity after MPI_Init: drift-after-init naming it;
# (c) taskset inside the launch binds every rank to one CPU before the
# program starts: binding-mismatch, and pu-shared (both main threads ran
# on that CPU only); (d) a program exiting 3: exit 1,
# status failed, exit_status 3 recorded; (d2) a program killed at the
# timeout: status timeout, both processes incomplete; (e) refusals with exit 2: a
# missing program, a static one, --out onto an existing file, no '--', two
# ranks inside one allowed CPU (taskset) naming the set and the fix;
# (f) the same as (a) under MPICH's Hydra (scripts/mpis.sh installs it)
# (this build's bindlab-app links Open MPI: each rank is an MPI singleton,
# its rank the probe reads from Hydra's PMI_RANK; the binding is Hydra's).
. "$(dirname "$0")/common.sh"

B=$BINDLAB_BUILD_DIR
DUMP=$B/tests/runrecord_dump
TARGET=$B/tests/probe_target
SETTER=$B/tests/libbl_probe_setter.so
[ -x "$DUMP" ] && [ -x "$TARGET" ] && [ -f "$SETTER" ] && [ -f "$B/libbindlab-probe.so" ] ||
    fail "runrecord_dump, probe_target, the setter or the probe not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
need_allowed_cores 2 "two ranks bound one per core"
# shellcheck source=scripts/mpis.sh
source "$BINDLAB_SOURCE_DIR/scripts/mpis.sh"
bl_require_mpi mpich || exit 77 # (f), asked before any check
MPICH=$BL_MPI_PREFIX/bin/mpiexec
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A sanitized build: ASan refuses a preloaded library ahead of its runtime
# unless told not to check (docs/any-application.md, "Sanitized programs");
# the ranks inherit the variable from the launcher.
asan=$(ldd "$TARGET" | awk '$1 ~ /^libasan/ {print $3}')
[ -z "$asan" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
cd "$WORK"

# expand LIST: "0-2,5" as "0,1,2,5" (hwloc-calc's form).
expand() { awk -v s="$1" 'BEGIN { n = split(s, p, ","); o = "";
    for (i = 1; i <= n; i++) { if (split(p[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) o = o (o ? "," : "") c }
                               else o = o (o ? "," : "") p[i] } print o }'; }

# run NAME ARGS...: bindlab run ARGS --out NAME.h5; rc its exit status.
run() {
    local name=$1
    shift
    rc=0
    "$BINDLAB" run "$@" >"$name.out" 2>"$name.err" || rc=$?
}

# --- (a) bindlab-app, one rank per core ------------------------------------
LAYOUT=(-np 2 --bind-to core --threads 2 --omp-proc-bind close --omp-places cores)
# placed NAME: the checks of (a) on NAME.h5
placed() {
    local name=$1
    [ "$rc" = 0 ] || fail "($name) exit $rc: $(cat "$name.err" "$name.out")"
    "$DUMP" "$name.h5" >"$name.dump" || fail "($name) record unreadable"
    expect_line "$name.dump" "status ok"
    expect_line "$name.dump" "exit_status 0"
    expect_line "$name.dump" "ranks 2"
    expect_line "$name.dump" "log $name.log"
    [ -s "$name.log" ] || fail "($name) no log beside the record"
    ! grep -q '^flags .*binding-mismatch' "$name.dump" || fail "($name) binding-mismatch: $(cat "$name.dump")"
    # OMP_PROC_BIND close given: the OpenMP threads are not unbound
    ! grep -q '^flags .*omp-unbound' "$name.dump" || fail "($name) omp-unbound: $(cat "$name.dump")"
    for r in 0 1; do
        core=$(hwloc-calc --physical-output --intersect PU "core:$r")
        given=$(awk -v p="place $r.0" '$1 " " $2 == p { print $8 }' "$name.dump")
        [ "$(expand "$given")" = "$core" ] || fail "($name) rank $r given $given, core $r has PUs $core"
        expect_line "$name.dump" "thread $r.0 label main"
        [ "$(grep -c "^thread $r\.[0-9]* label openmp$" "$name.dump")" -ge 1 ] ||
            fail "($name) rank $r: no OpenMP thread: $(cat "$name.dump")"
        grep -q "^check $r claimed .* matches 1$" "$name.dump" || fail "($name) rank $r: report not matched: $(cat "$name.dump")"
        grep -qE "^[^ ]+ +$r +0 +main "  "$name.out" || fail "($name) table lacks rank $r's main thread: $(cat "$name.out")"
    done
    ! ls -d "$name".probe.* 2>/dev/null || fail "($name) the probe's directory is left"
}
run a "${LAYOUT[@]}" --out a.h5 -- "$BINDLAB_APP" --kernel triad --size 8MiB --iters 3
placed a
grep -q '^flags: ' a.out || fail "(a) no flags line: $(cat a.out)"

# --- (b) drift after init, named --------------------------------------------
run b -np 2 --bind-to core --out b.h5 -- "$TARGET" --setter "$SETTER"
[ "$rc" = 0 ] || fail "(b) exit $rc: $(cat b.err b.out)"
"$DUMP" b.h5 >b.dump
grep -q '^flags .*drift-after-init' b.dump || fail "(b) no drift flag: $(cat b.dump)"
grep -q '^affinity [01] phase after-init changed 1 .* caller .*libbl_probe_setter\.so$' b.dump ||
    fail "(b) the change is not the setter's: $(cat b.dump)"
grep -q '^drift-after-init: rank [01] .* by .*libbl_probe_setter\.so' b.out ||
    fail "(b) the drift line does not name the library: $(cat b.out)"

# --- (c) a binding the launcher did not make: binding-mismatch --------------
run c -np 2 --bind-to core --out c.h5 -- taskset -c 0 "$TARGET"
[ "$rc" = 0 ] || fail "(c) exit $rc: $(cat c.err c.out)"
"$DUMP" c.h5 >c.dump
grep -q '^flags .*binding-mismatch' c.dump || fail "(c) no binding-mismatch: $(cat c.dump)"
grep -q '^check 1 claimed .* matches 0$' c.dump || fail "(c) rank 1 not the mismatch: $(cat c.dump)"
grep -q '^binding-mismatch: rank 1' c.out || fail "(c) not printed: $(cat c.out)"
# both ranks on that one CPU: their main threads share it
grep -q "^flags .*pu-shared" c.dump || fail "(c) no pu-shared: $(cat c.out)"
grep -qE "^pu-shared: (0\.0, 1\.0|1\.0, 0\.0) ran only on CPU 0 of " c.out || fail "(c) the shared PU not named: $(cat c.out)"

# --- (d) a failing program ---------------------------------------------------
run d -np 2 --out d.h5 -- "$TARGET" --exit 3
[ "$rc" = 1 ] || fail "(d) exit $rc, expected 1: $(cat d.err d.out)"
"$DUMP" d.h5 >d.dump || fail "(d) no record"
expect_line d.dump "status failed"
expect_line d.dump "exit_status 3"

# --- (d2) a program that never ends: timeout, its processes incomplete ------
run g -np 2 --timeout 10 --out g.h5 -- "$TARGET" --ready "$WORK" --wait
[ "$rc" = 1 ] || fail "(g) exit $rc, expected 1: $(cat g.err g.out)"
"$DUMP" g.h5 >g.dump || fail "(g) no record"
expect_line g.dump "status timeout"
[ "$(grep -c '^process [01] pid [0-9]* complete 0 ' g.dump)" = 2 ] ||
    fail "(g) the killed ranks are not incomplete: $(cat g.dump)"
grep -q '^incomplete: rank 0 ' g.out || fail "(g) not printed: $(cat g.out)"

# --- (e) refusals: exit 2, one line, nothing launched --------------------------
refused() {  # NAME WORD ARGS...: exit 2, one line naming WORD, no record
    local name=$1 word=$2
    shift 2
    run "$name" "$@"
    [ "$rc" = 2 ] || fail "($name) exit $rc, expected 2: $(cat "$name.err")"
    grep -q -- "$word" "$name.err" || fail "($name) the message does not name $word: $(cat "$name.err")"
    [ ! -e "$name.h5" ] || fail "($name) a record was written"
}
refused missing "no-such-program" --out missing.h5 -- ./no-such-program
[ "$(wc -l <missing.err)" = 1 ] || fail "(missing) more than one line: $(cat missing.err)"
refused static "statically linked" --out static.h5 -- "$B/tests/probe_static"
[ "$(wc -l <static.err)" = 1 ] || fail "(static) more than one line: $(cat static.err)"
cp a.h5 keep.h5
refused exists "keep.h5" --out keep.h5 -- "$TARGET"
cmp -s a.h5 keep.h5 || fail "(exists) the existing file was changed"
refused nodash "'--'" -np 2
refused badnp "np" -np zero -- "$TARGET"
# Two ranks inside one allowed CPU: refused before launching, as the sweep
# refuses it, the allowed set and the fix named.
FIRST=${ALLOWED%%[-,]*}
rc=0
taskset -c "$FIRST" "$BINDLAB" run -np 2 --out wide.h5 -- "$TARGET" >wide.out 2>wide.err || rc=$?
[ "$rc" = 2 ] || fail "(wide) exit $rc, expected 2: $(cat wide.err wide.out)"
grep -q "allowed CPUs $FIRST " wide.err || fail "(wide) the allowed set $FIRST is not named: $(cat wide.err)"
grep -q "oversubscribe" wide.err || fail "(wide) the fix is not named: $(cat wide.err)"
[ ! -e wide.h5 ] && [ ! -e wide.log ] || fail "(wide) something was launched or recorded"

# --- (f) MPICH's Hydra -------------------------------------------------------
run f "${LAYOUT[@]}" --launcher "$MPICH" --out f.h5 -- "$BINDLAB_APP" --kernel triad --size 8MiB --iters 3
placed f
echo "test_run_cli: ok"
