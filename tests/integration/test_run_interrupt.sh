#!/usr/bin/env bash
# bindlab run interrupted: SIGINT (Ctrl-C) and SIGTERM (Slurm at a job's
# time limit) of bindlab while both ranks of its program run. Each ends the
# launch, and the record is still written from the probe files: status
# failed, the reason naming the signal, both ranks; the message names the
# record; the exit status is 128 + the signal (130, 143); no process of
# the run is left once bindlab has ended. Only Open MPI's mpirun: apart
# from test_run_cli.sh, which skips as a whole without MPICH.
. "$(dirname "$0")/common.sh"

B=$BINDLAB_BUILD_DIR
DUMP=$B/tests/runrecord_dump
TARGET=$B/tests/probe_target
[ -x "$DUMP" ] && [ -x "$TARGET" ] && [ -f "$B/libbindlab-probe.so" ] ||
    fail "runrecord_dump, probe_target or the probe not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
need_allowed_cores 2 "two ranks bound one per core"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A sanitized build: as test_run_cli.sh (docs/any-application.md)
asan=$(ldd "$TARGET" | awk '$1 ~ /^libasan/ {print $3}')
[ -z "$asan" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
cd "$WORK"

# ready DIR PID NAME: both ranks past MPI_Init and their parallel region
# (probe_target --ready DIR); bindlab PID gone before that fails at once.
ready() {
    [ -e "$1/ready.0" ] && [ -e "$1/ready.1" ] && return 0
    kill -0 "$2" 2>/dev/null || fail "($3) bindlab ended before its ranks were ready: $(cat "$3.err")"
    return 1
}

# interrupted NAME SIGNAL STATUS: bindlab run of two ranks that block until
# killed, sent SIGNAL once both are ready; exit STATUS and the record kept.
interrupted() {
    local name=$1 sig=$2 want=$3 marker=$WORK/$1.ready pid rc left
    mkdir "$marker"
    # job control on for this job: it does not ignore SIGINT, as a script's
    # background job would (and as bindlab at a terminal does not)
    set -m
    "$BINDLAB" run -np 2 --out "$name.h5" -- "$TARGET" --ready "$marker" --wait \
        >"$name.out" 2>"$name.err" &
    pid=$!
    set +m
    wait_until "($name) both ranks ready" ready "$marker" "$pid" "$name"
    kill "-$sig" "$pid"
    rc=0
    wait "$pid" || rc=$?
    # bindlab ends after its run: nothing of the run may outlive it
    left=$(pgrep -af -- "$marker" || true)
    [ -z "$left" ] || fail "($name) processes left after $sig: $left"
    [ "$rc" = "$want" ] || fail "($name) exit $rc, expected $want: $(cat "$name.err")"
    [ -f "$name.h5" ] || fail "($name) no record after $sig: $(cat "$name.err")"
    "$DUMP" "$name.h5" >"$name.dump" || fail "($name) record unreadable"
    expect_line "$name.dump" "status failed"
    expect_line "$name.dump" "ranks 2"
    grep -q "^reason interrupted by $sig " "$name.dump" ||
        fail "($name) the reason does not name $sig: $(cat "$name.dump")"
    [ "$(grep -c '^process [01] pid [0-9]* complete 0 ' "$name.dump")" = 2 ] ||
        fail "($name) not both ranks recorded: $(cat "$name.dump")"
    grep -q "interrupted by $sig .*kept in $name\.h5\$" "$name.err" ||
        fail "($name) the message does not name the record: $(cat "$name.err")"
    ! ls -d "$name".probe.* 2>/dev/null || fail "($name) the probe's directory is left"
    echo "ok: ($name) $sig: exit $rc, record kept: $(grep '^reason ' "$name.dump")"
}
interrupted int SIGINT 130
interrupted term SIGTERM 143
echo "test_run_interrupt: ok"
