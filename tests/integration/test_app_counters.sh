#!/usr/bin/env bash
# Migrations the test provokes are recorded: while bindlab-app (one rank,
# one unbound thread) is inside its counted region, `taskset -p` moves its
# thread back and forth between two CPUs; the run file's cpu_migrations
# counter (when the kernel offers the event) and the thread's
# se.nr_migrations must both count at least those moves.
# The counted region is seen from outside, through the app's perf_event
# file descriptors (see below): every move is made, and seen to take
# effect, after the app opened its counters and before it closed them.
source "$(dirname "$0")/common.sh"
PERF_PROBE="$BINDLAB_BUILD_DIR/tests/perf_probe"
unset BINDLAB_COUNTERS # the checks below are of counting, not of its switch
MOVES=6

cpus=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
read -r A B _ < <(for part in ${cpus//,/ }; do
    if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
done | tr '\n' ' ') || true
if [ -z "${B:-}" ]; then
    echo "SKIP: this process may run on CPU $A only: no second CPU to move a thread to"
    exit 77
fi

"$PERF_PROBE" >"$WORK/probe"
if ! grep -q ' 1$' "$WORK/probe"; then
    echo "SKIP: the kernel offers this process no perf event (perf_event_paranoid" \
        "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): nothing marks" \
        "the app's counted region from outside"
    exit 77
fi
mig_offered=$(awk '$1 == "cpu_migrations" {print $3}' "$WORK/probe")

# parent_of PID, from /proc (the command name may hold spaces).
parent_of() {
    local rest
    rest=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    rest=${rest##*) }
    awk '{print $2}' <<<"$rest"
}
# app_pid LAUNCHER: the bindlab-app process below LAUNCHER.
app_pid() {
    local comm pid p
    for comm in $(grep -lx bindlab-app /proc/[0-9]*/comm 2>/dev/null); do
        pid=${comm#/proc/}
        pid=${pid%/comm}
        p=$pid
        while p=$(parent_of "$p") && [ "$p" -gt 1 ]; do
            [ "$p" = "$1" ] && { echo "$pid"; return 0; }
        done
    done
    return 1
}
perf_fds() {
    ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event' || true
}
# CPU time of the app's main thread in ns: schedstat, else utime + stime.
TICK_NS=$((1000000000 / $(getconf CLK_TCK)))
runtime_ns() {
    local rest
    if [ -r "/proc/$1/task/$1/schedstat" ]; then
        awk '{print $1}' "/proc/$1/task/$1/schedstat" 2>/dev/null || echo 0
    else
        rest=$(cat "/proc/$1/task/$1/stat" 2>/dev/null) || { echo 0; return; }
        awk -v t="$TICK_NS" '{print ($12 + $13) * t}' <<<"${rest##*) }"
    fi
}
last_cpu() {
    local rest
    rest=$(cat "/proc/$1/task/$1/stat" 2>/dev/null) || { echo -1; return; }
    awk '{print $37}' <<<"${rest##*) }" # field 39 of stat: processor
}
# move PID CPU: pin the app's main thread (OpenMP thread 0) to CPU and wait
# until it has run there: the kernel counts a migration for perf when the
# moved thread is next scheduled in, so two moves without a run between
# them would count once. sched_setaffinity returns once the thread has
# left its old CPU, so CPU time it gains after that is on the new one.
move() {
    local before
    taskset -p -c "$2" "$1" >/dev/null
    before=$(runtime_ns "$1")
    while [ -d "/proc/$1" ]; do
        if [ "$(last_cpu "$1")" = "$2" ] && [ "$(runtime_ns "$1")" -gt "$before" ]; then
            return 0
        fi
        sleep 0.01
    done
    return 1
}

# The app holds perf_event descriptors from bl_counters_init on (one per
# software event, kept open so that starting and stopping stays cheap) and
# more while it counts: the counted region is when the count has risen
# above the first nonzero count seen. A run whose rise is missed (first
# touch too short to be seen) or that ends before the moves is run again,
# larger; no move outside the region is ever counted as inside.
size=64
iters=100
for attempt in 1 2 3 4; do
    env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=1 \
        "${MPIRUN[@]}" -np 1 --bind-to none -x OMP_NUM_THREADS "$BINDLAB_APP" \
        --size "${size}MiB" --iters "$iters" --warmup 1 --out "$WORK/mig.h5" \
        >"$WORK/mig.out" 2>"$WORK/mig.err" &
    launcher=$!
    pid=""
    while [ -z "$pid" ] && kill -0 "$launcher" 2>/dev/null; do
        pid=$(app_pid "$launcher") || { pid=""; sleep 0.05; }
    done
    inside=0 held="" counting=""
    if [ -n "$pid" ]; then
        held=0
        while [ -d "/proc/$pid" ] && [ "$held" = 0 ]; do
            held=$(perf_fds "$pid")
            sleep 0.005
        done
        counting=$held
        while [ -d "/proc/$pid" ] && [ "$counting" -le "$held" ]; do
            counting=$(perf_fds "$pid")
            sleep 0.005
        done
        # The thread opens and enables its counters in microseconds of its
        # own CPU time: after 20 ms more of it, it is counting.
        ran=$(( $(runtime_ns "$pid") + 20000000 ))
        while [ -d "/proc/$pid" ] && [ "$(runtime_ns "$pid")" -lt "$ran" ]; do
            sleep 0.005
        done
        # The first move only puts the thread on A; the next MOVES each
        # force a migration.
        if [ "$counting" -gt "$held" ] && move "$pid" "$A"; then
            inside=1
            for i in $(seq 1 "$MOVES"); do
                if [ $((i % 2)) = 1 ]; then to=$B; else to=$A; fi
                move "$pid" "$to" || { inside=0; break; }
            done
            # Still counting: more descriptors than before the region.
            [ "$(perf_fds "$pid")" -gt "$held" ] || inside=0
        fi
    fi
    rc=0
    wait "$launcher" || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/mig.err" >&2; fail "mpirun exited $rc"; }
    if [ "$inside" = 1 ]; then break; fi
    echo "run $attempt (${size}MiB, $iters iterations, descriptors seen: ${held:-none} then ${counting:-none}): counted region not seen" \
        "for all $MOVES moves; larger run"
    size=$((size * 2))
    iters=$((iters * 2))
done
[ "$inside" = 1 ] || fail "no run lasted long enough for $MOVES moves"
echo "moved the app's thread $MOVES times between CPUs $A and $B inside its counted region"

"$RUNFILE_DUMP" "$WORK/mig.h5" >"$WORK/mig.dump"
expect_line "$WORK/mig.dump" "status ok"
nr=$(awk '$1 == "migrations" && $2 == "0.0" {print $3}' "$WORK/mig.dump")
[ -n "$nr" ] && [ "$nr" -ge "$MOVES" ] ||
    fail "placement migrations of thread 0.0: '$nr', expected >= $MOVES"
echo "ok: se.nr_migrations of thread 0.0: $nr >= $MOVES"
if [ "$mig_offered" = 1 ]; then
    expect_line "$WORK/mig.dump" "counter cpu_migrations available 1"
    v=$(awk '$1 == "counter_value" && $2 == "cpu_migrations" {print $3}' "$WORK/mig.dump")
    [ "$v" -ge "$MOVES" ] || fail "cpu_migrations counter $v, expected >= $MOVES"
    echo "ok: cpu_migrations counter: $v >= $MOVES"
else
    expect_line "$WORK/mig.dump" "counter cpu_migrations available 0"
    grep -q '^counter_note cpu_migrations .*kernel: ' "$WORK/mig.dump" ||
        fail "cpu_migrations unavailable without the kernel's reason"
    echo "ok: cpu_migrations unavailable, as the kernel does not offer it: $(grep '^counter_note cpu_migrations' "$WORK/mig.dump")"
fi
echo "all checks passed"
