#!/usr/bin/env bash
# Is this machine ready for the workshop (docs/workshop/README.md)? Checks,
# timing each: bindlab check here, one mpirun launch, the baseline build for
# the emulated NUMA node, and a boot of that node running bindlab check
# inside. Prints one "ready:" or "NOT READY:" line per part; exit 0 when
# every part is ready, 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=workshop-env.sh
source "$root/scripts/workshop-env.sh" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
part() { # part NAME COMMAND...: runs it, prints its time and verdict
    local name=$1 t0 t1 rc
    shift
    t0=$(date +%s.%N)
    "$@" >"$tmp/out" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    last=$(grep -v '^numa-node:' "$tmp/out" | tail -n 1)
    if [ "$rc" = 0 ]; then
        echo "ready: $name ($secs s): $last"
    else
        echo "--- $name:" >&2
        tail -n 20 "$tmp/out" >&2
        echo "NOT READY: $name (exit $rc after $secs s): $last"
        status=1
    fi
}
# bindlab check exits 1 when it finds a misaligned placement: that is an
# answer, not a failure; only a check that could not run is.
check_here() { bindlab check; [ $? -le 1 ]; }
mpirun_one() { mpirun -np 1 bindlab check; [ $? -le 1 ]; }
guest_build() {
    local dir=${BINDLAB_GUEST_BUILD:-$root/build-numa}
    "$root/scripts/numa/guest-build.sh" "$dir" && echo "$(basename "$dir") is up to date"
}
node_boot() {
    "$root/scripts/workshop-node.sh" bash -c \
        'numactl --hardware | head -n 1; bindlab check >/dev/null; [ $? -le 1 ] && echo "bindlab check ran inside"'
}
part "bindlab check on this machine" check_here
part "mpirun launches a rank" mpirun_one
part "guest build (build-numa)" guest_build
part "emulated NUMA node boots" node_boot
[ "$status" = 0 ] && echo "ready for the workshop" || echo "not ready: see the parts above"
exit $status
