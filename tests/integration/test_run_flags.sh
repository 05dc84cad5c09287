#!/usr/bin/env bash
# bindlab run's flags, each provoked for real on this machine (the table of
# flags and their tests: docs/any-application.md, "Which test provokes
# each flag"); binding-mismatch, pu-shared and drift-after-init are
# test_run_cli.sh's, the NUMA ones test_numa_anyapp.sh's (a NUMA node).
#   migrated             the main thread bound to an allowed CPU other than
#                        the one it runs on (probe_target --move): the
#                        kernel must move it
#   thread-outside-rank  each rank widens its main thread to every CPU by
#                        the raw system call after MPI_Init (--raw), so
#                        that thread and the OpenMP one it then starts are
#                        allowed CPUs their rank was not given
#   omp-unbound          the same run: OpenMP threads, OMP_PROC_BIND unset
#   not-probed           a script whose interpreter is a static program:
#                        accepted (a script), nothing can be preloaded
#   outside-allowed      bindlab run inside taskset -c FIRST, np 2 by
#                        core:oversubscribe (bindlab refuses it without):
#                        Open MPI binds rank 1 to a core past the allowed CPU
#   host-mismatch        the rank renames its host in a UTS namespace of
#                        its own (unshare --uts) before exec'ing the
#                        program: the launcher's report names the real host
#   drift-before-init    --bind-to none under OMP_PROC_BIND=close: libgomp
#                        binds the initial thread in its constructor, before
#                        main; Open MPI's "not bound" is checked against the
#                        set the rank was given (no binding-mismatch) and
#                        libgomp is named as the one that narrowed it
. "$(dirname "$0")/common.sh"

B=$BINDLAB_BUILD_DIR
DUMP=$B/tests/runrecord_dump
TARGET=$B/tests/probe_target
STATIC=$B/tests/probe_static
[ -x "$DUMP" ] && [ -x "$TARGET" ] && [ -x "$STATIC" ] && [ -f "$B/libbindlab-probe.so" ] ||
    fail "runrecord_dump, probe_target, probe_static or the probe not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
need_allowed_cores 2 "a thread moved to another CPU, two ranks one per core"
unshare --uts true 2>/dev/null ||
    { echo "SKIP: host-mismatch needs a UTS namespace (root, unshare --uts)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
asan=$(ldd "$TARGET" | awk '$1 ~ /^libasan/ {print $3}')
[ -z "$asan" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
cd "$WORK"

# run NAME ARGS...: bindlab run ARGS --out NAME.h5, which must exit 0;
# its record dumped into NAME.dump, its output in NAME.out.
run() {
    local name=$1 rc=0
    shift
    "$BINDLAB" run --out "$name.h5" "$@" >"$name.out" 2>"$name.err" || rc=$?
    [ "$rc" = 0 ] || fail "($name) exit $rc: $(cat "$name.err" "$name.out")"
    "$DUMP" "$name.h5" >"$name.dump" || fail "($name) record unreadable"
    expect_line "$name.dump" "status ok"
}
# flagged NAME FLAG: FLAG among the record's flags and on the flags line
flagged() {
    grep -q "^flags .*\b$2\b" "$1.dump" || fail "($1) no $2 in the record: $(cat "$1.out")"
    grep -q "^flags: .*\b$2\b" "$1.out" || fail "($1) no $2 printed: $(cat "$1.out")"
}

# --- migrated: a move the kernel must make -----------------------------------
run move -np 1 --bind-to none -- "$TARGET" --move
flagged move migrated
grep -qE '^migrated: 0\.0 \(main\) moved [1-9][0-9]* times$' move.out ||
    fail "(move) the main thread's move not named: $(cat move.out)"

# --- thread-outside-rank and omp-unbound ----------------------------------------
run raw -np 2 --bind-to core --threads 2 -- "$TARGET" --raw
flagged raw thread-outside-rank
flagged raw omp-unbound
for r in 0 1; do
    given=$(awk -v p="place $r.0" '$1 " " $2 == p { print $8 }' raw.dump)
    grep -q "^thread-outside-rank: rank $r thread 0 allowed .*, its rank was given $given$" raw.out ||
        fail "(raw) rank $r's widened main thread not named: $(cat raw.out)"
done

# --- not-probed: nothing could be preloaded --------------------------------------
printf '#!%s\n' "$STATIC" >static-script
chmod +x static-script
run static -np 1 -- ./static-script
flagged static not-probed
grep -q '^not-probed: no process wrote a probe file' static.out || fail "(static) no note: $(cat static.out)"
grep -q '^static_hello$' static.log || fail "(static) the program did not run: $(cat static.log)"

# --- outside-allowed: the launcher binds past taskset ----------------------------
first=${ALLOWED%%[,-]*}  # the first CPU this process may use
rc=0
taskset -c "$first" "$BINDLAB" run --out taskset.h5 -np 2 --map-by core:oversubscribe \
    --bind-to core -- "$TARGET" \
    >taskset.out 2>taskset.err || rc=$?
[ "$rc" = 0 ] || fail "(taskset) exit $rc: $(cat taskset.err taskset.out)"
"$DUMP" taskset.h5 >taskset.dump || fail "(taskset) record unreadable"
flagged taskset outside-allowed

# --- host-mismatch: the rank on another host than its report line ---------------
run uts -np 1 --bind-to core -- unshare --uts sh -c "hostname bl-elsewhere && exec '$TARGET'"
flagged uts host-mismatch
grep -q '^place 0\.0 host bl-elsewhere ' uts.dump || fail "(uts) the rank's host not recorded: $(cat uts.dump)"
# unshare and sh were earlier images of the rank (exec), one before the rename
[ "$(grep -c '^process 0 ' uts.dump)" = 1 ] || fail "(uts) the rank's earlier images read as processes: $(cat uts.dump)"
# --- drift-before-init: the OpenMP runtime binds before main -------------------
gomp=$(ldd "$TARGET" | awk '$1 ~ /^libgomp/ {print $1}')
[ -n "$gomp" ] || fail "probe_target is not linked with libgomp: $(ldd "$TARGET")"
run gomp -np 1 --bind-to none --threads 2 --omp-proc-bind close -- "$TARGET"
flagged gomp drift-before-init
grep -q 'MCW rank 0 is not bound' gomp.log ||
    fail "(gomp) Open MPI did not report the rank unbound: $(cat gomp.log)"
! grep -q '^flags .*binding-mismatch' gomp.dump || fail "(gomp) binding-mismatch: $(cat gomp.out)"
expect_line gomp.dump "check 0 claimed $ALLOWED seen $ALLOWED matches 1"
grep -qE "^drift-before-init: rank 0 tid [0-9]+: $ALLOWED -> [0-9,-]+ at t=[0-9.]+ s by [^ ]*/$gomp \(pthread_setaffinity_np\)$" gomp.out ||
    fail "(gomp) libgomp's binding not named: $(cat gomp.out)"
echo "test_run_flags: ok"
