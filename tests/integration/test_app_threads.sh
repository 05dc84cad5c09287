#!/usr/bin/env bash
# bindlab-app refuses OpenMP thread counts the process cannot create, before
# MPI and before the first parallel region: one line naming the limit, exit
# 2, no run file. OMP_NUM_THREADS=100000 used to end in SIGSEGV inside
# libgomp with nothing on stderr. The limit expected is the smallest of the
# documented cap (8192 per rank) and the kernel's threads-max and pid_max,
# read here from /proc; a count at the limit is not refused for its size.
source "$(dirname "$0")/common.sh"
CAP=8192

limit=$CAP
for f in /proc/sys/kernel/threads-max /proc/sys/kernel/pid_max; do
    v=$(cat "$f")
    [ "$v" -lt "$limit" ] && limit=$v
done

# refused N: OMP_NUM_THREADS=N is refused with one line naming the limit.
refused() {
    local n=$1 rc=0
    env -u OMP_THREAD_LIMIT OMP_NUM_THREADS="$n" "$BINDLAB_APP" --kernel triad \
        --size 64MiB --iters 1 --warmup 0 --out "$WORK/t$n.h5" \
        >"$WORK/out" 2>"$WORK/err" || rc=$?
    [ "$rc" = 2 ] || { cat "$WORK/out" "$WORK/err"; fail "OMP_NUM_THREADS=$n: exit $rc, expected 2"; }
    [ "$(wc -l <"$WORK/err")" = 1 ] || { cat "$WORK/err"; fail "OMP_NUM_THREADS=$n: not one line"; }
    grep -qw -- "$limit" "$WORK/err" || { cat "$WORK/err"; fail "OMP_NUM_THREADS=$n: the limit $limit is not named"; }
    [ ! -e "$WORK/t$n.h5" ] || fail "OMP_NUM_THREADS=$n: a run file was written"
}

refused 100000
refused $((limit + 1))

# A count the process can create runs as always.
OMP_NUM_THREADS=2 "$BINDLAB_APP" --kernel triad --size 8MiB --iters 1 --warmup 0 \
    --out "$WORK/ok.h5" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "OMP_NUM_THREADS=2 did not run"; }
[ -s "$WORK/ok.h5" ] || fail "OMP_NUM_THREADS=2: no run file"
echo PASS
