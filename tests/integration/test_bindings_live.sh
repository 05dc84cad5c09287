#!/bin/bash
# bindlab bindings on a live capture: mpirun --report-bindings of two ranks,
# one per core, checked against what each rank's process was really allowed
# to run on (/proc/self/status). Needs two cores this process may use.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"

command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
# the cores this process may use, not the machine's (taskset, a cgroup)
need_allowed_cores 2 "two ranks bound one per core"

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
