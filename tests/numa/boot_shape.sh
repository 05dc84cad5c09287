#!/usr/bin/env bash
# One boot of the emulated SHAPE node per test run (CTest numa.boot.BOOT,
# fixture numa_BOOT; BOOT is SHAPE or SHAPE+TAG): runs every guest check
# registered for BOOT in tests/numa/CMakeLists.txt inside it (tests/numa/guest_run.sh), each into
# its own folder for the host-side test that judges it. Passes when the node
# booted and every check ran to its end, whatever the check's own status
# (its judge fails on that); fails when the boot fails, saying why; exit 77
# only when this host lacks a prerequisite of the node (the reason is left
# in RUNS/UNAVAILABLE for the judges, which then skip too).
#   tests/numa/boot_shape.sh BOOT NAME...
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
boot=$1
shape=${boot%%+*}
shift
runs=$(numa_runs "$boot")
rm -rf "$runs"
mkdir -p "$runs"
"$src/scripts/numa/guest-build.sh" "$guest" || fail "baseline build for the guest failed"
# Every check of the boot in one boot: the timeout covers them all.
export BINDLAB_NUMA_TIMEOUT=${BINDLAB_NUMA_TIMEOUT:-3000}
rc=0
"$src/scripts/numa-node.sh" --shape "$shape" --cache "$cache" --share "$runs" -- \
    bash tests/numa/guest_run.sh "$guest" "$runs" "$@" 2>"$WORK/node.err" || rc=$?
cat "$WORK/node.err" >&2
if [ "$rc" = 125 ]; then
    grep '^numa-node: missing on this host' "$WORK/node.err" >"$runs/UNAVAILABLE"
    echo "SKIP: $(cat "$runs/UNAVAILABLE")"
    exit 77
fi
cause=$(grep '^numa-node: ' "$WORK/node.err" | tail -n 1)
[ "$rc" = 0 ] || fail "the $shape node's run failed (exit $rc): ${cause:-see above}"
for name in "$@"; do
    [ -f "$runs/$name/guest.rc" ] || fail "check $name did not run to its end in the $shape node"
done
echo "ok: $# checks ran in one boot of the $shape node ($*)"
