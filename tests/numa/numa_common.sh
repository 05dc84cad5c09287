# shellcheck shell=bash
# What the NUMA tests share: bindlab built for the guest, one boot of the
# emulated node (scripts/numa-node.sh) running a guest script, and the skip
# when the node cannot boot here. Sourced after tests/integration/common.sh.
src=$BINDLAB_SOURCE_DIR
cache=$BINDLAB_BUILD_DIR/numa-node
guest=$BINDLAB_BUILD_DIR/numa-guest

# in_guest SHAPE SHARE SCRIPT [DONE]: build bindlab for the guest, boot the
# emulated SHAPE node once and run tests/numa/SCRIPT inside it with SHARE
# as the folder both sides see. With BINDLAB_NUMA_REUSE=1 and SHARE/DONE
# already written, the boot is skipped (to rerun only the host's checks).
# Exit 77 when the node cannot boot here; a failed guest script fails.
in_guest() {
    local shape=$1 share=$2 script=$3 done=${4:-} rc=0
    "$src/scripts/numa/guest-build.sh" "$guest" || fail "baseline build for the guest failed"
    if [ "${BINDLAB_NUMA_REUSE:-0}" = 1 ] && [ -n "$done" ] && [ -s "$share/$done" ]; then
        return 0
    fi
    "$src/scripts/numa-node.sh" --shape "$shape" --cache "$cache" --share "$share" -- \
        bash "tests/numa/$script" "$guest" "$share" || rc=$?
    if [ "$rc" = 125 ]; then
        echo "SKIP: the emulated NUMA node cannot boot here (reason above)"
        exit 77
    fi
    [ "$rc" = 0 ] || { tail -n 5 "$share"/*.out >&2 || true; fail "$shape: guest script exited $rc"; }
}
