#!/usr/bin/env bash
# bindlab-app under real mpirun -np 2: the run file opens, has 2 ranks, each
# rank's recorded cpuset equals what --report-bindings printed for it, the
# answer is verified, and all pages are local on this one-NUMA machine.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"

# run_layout NAME INIT MPIRUN-OPTIONS...: run the app, check the file.
run_layout() {
    local name=$1 init=$2
    shift 2
    local out="$WORK/$name.h5"
    OMP_NUM_THREADS=1 "${MPIRUN[@]}" -np 2 --report-bindings "$@" \
        -x OMP_NUM_THREADS "$BINDLAB_APP" --size 24MiB --iters 3 --warmup 1 \
        --init "$init" --out "$out" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
        { cat "$WORK/$name.err" >&2; fail "$name: mpirun exited $?"; }
    "$RUNFILE_DUMP" "$out" >"$WORK/$name.dump"
    expect_line "$WORK/$name.dump" "ranks 2"
    expect_line "$WORK/$name.dump" "verified 1"
    expect_line "$WORK/$name.dump" "status ok"
    expect_line "$WORK/$name.dump" "local_page_fraction 1.000000"
    # The launcher's claim, through the harness's own parser ...
    "$BINDLAB" bindings "$WORK/$name.err" |
        awk '{print $1, $2, $5, $6}' >"$WORK/$name.claimed"
    # ... against what each rank recorded.
    grep '^rank ' "$WORK/$name.dump" >"$WORK/$name.seen"
    [ "$(wc -l <"$WORK/$name.claimed")" = 2 ] ||
        { cat "$WORK/$name.err" >&2; fail "$name: report has no 2 ranks"; }
    diff -u "$WORK/$name.claimed" "$WORK/$name.seen" ||
        fail "$name: recorded cpusets differ from --report-bindings"
    grep -q '^bindlab-app: result kernel=triad verified=yes' "$WORK/$name.out" ||
        fail "$name: no result line"
    echo "ok: $name ($(tr '\n' ' ' <"$WORK/$name.claimed"))"
}

run_layout core-close parallel --map-by core --bind-to core \
    -x OMP_PROC_BIND=close -x OMP_PLACES=cores
run_layout core-serial serial --map-by core --bind-to core \
    -x OMP_PROC_BIND=close -x OMP_PLACES=cores
run_layout core-unset parallel --map-by core --bind-to core
run_layout socket parallel --map-by socket --bind-to socket \
    -x OMP_PROC_BIND=spread -x OMP_PLACES=threads

# Counters are recorded for every event, available or not.
grep -c '^counter ' "$WORK/core-close.dump" | grep -qx 6 || fail "expected 6 counters"
expect_line "$WORK/core-close.dump" "counter page_faults available 1"

# Bad input: exit status 2, one line naming the option, no file.
for bad in "--size 12XB" "--iters zero" "--init lazy" "--bogus" "--size 900TiB"; do
    set +e
    # shellcheck disable=SC2086 # word splitting of $bad is intended
    "${MPIRUN[@]}" -np 2 "$BINDLAB_APP" $bad --out "$WORK/bad.h5" \
        >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "'$bad': exit status $rc, expected 2"
    [ "$(grep -c '^bindlab-app:' "$WORK/bad.err")" = 1 ] ||
        fail "'$bad': expected one bindlab-app line on stderr"
    ls "$WORK"/bad.h5* >/dev/null 2>&1 && fail "'$bad' left a file"
    echo "ok: '$bad' -> exit 2: $(grep '^bindlab-app:' "$WORK/bad.err")"
done
echo "1 passed, 0 failed"
