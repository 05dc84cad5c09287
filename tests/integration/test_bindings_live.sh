#!/bin/bash
# bindlab bindings on a live capture: mpirun --report-bindings of two ranks,
# one per core, checked against what each rank's process was really allowed
# to run on (/proc/self/status). Needs two cores this process may use.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"

# The cores this process may run on, from its own affinity and /sys (not
# the machine's total: a cgroup or taskset may allow fewer).
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
cores=$(for part in ${allowed//,/ }; do
    lo=${part%-*} hi=${part#*-}
    for ((c = lo; c <= hi; c++)); do
        d=/sys/devices/system/cpu/cpu$c/topology
        echo "$(cat "$d/physical_package_id" 2>/dev/null || echo 0):$(cat "$d/core_id" 2>/dev/null || echo "$c")"
    done
done | sort -u | wc -l)
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
[ "$cores" -ge 2 ] || { echo "SKIP: this process may use CPUs $allowed, $cores core(s); two ranks bound one per core need 2"; exit 77; }

"${MPIRUN[@]}" -np 2 --map-by core --bind-to core --report-bindings \
    sh -c 'echo "allowed $OMPI_COMM_WORLD_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' \
    > "$WORK/live" 2>&1 || fail "mpirun failed: $(cat "$WORK/live")"
"$BINDLAB" bindings "$WORK/live" > "$WORK/out" 2> "$WORK/err" || fail "live capture: exit $? $(cat "$WORK/err")"
[ "$(wc -l < "$WORK/out")" = 2 ] || fail "live: expected 2 ranks, got $(cat "$WORK/out")"
for r in 0 1; do
    want=$(awk -v r=$r '$1 == "allowed" && $2 == r {print $3}' "$WORK/live")
    got=$(awk -v r=$r '$1 == "rank" && $2 == r {print $6}' "$WORK/out")
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "rank $r: report says '$got', process saw '$want'"
done
[ "$(awk '{print $6}' "$WORK/out" | sort -u | wc -l)" = 2 ] || fail "live: both ranks on one CPU"
echo "ok: live report matches /proc/self/status of both ranks"
