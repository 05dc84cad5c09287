# shellcheck shell=bash
# What the NUMA tests share: where the guest build, the node's cache and each
# shape's one boot (tests/numa/boot_shape.sh) live, and how a host-side test
# finds its guest check's results. Sourced after tests/integration/common.sh.
src=$BINDLAB_SOURCE_DIR
cache=$BINDLAB_BUILD_DIR/numa-node
guest=$BINDLAB_BUILD_DIR/numa-guest

# numa_runs BOOT: where the one boot BOOT (tests/numa/boot_shape.sh)
# leaves its checks' folders (under BINDLAB_NUMA_RUNS when set: the
# broken-boot test uses its own).
numa_runs() { echo "${BINDLAB_NUMA_RUNS:-$cache}/runs-$1"; }

# guest_results BOOT NAME: sets share to the folder that guest check NAME
# (tests/numa/guest_NAME.sh) filled in the one boot BOOT (numa.boot.BOOT,
# CTest fixture numa_BOOT; BOOT is the shape, tests/numa/CMakeLists.txt) and prints its guest log. Exit 77 when that boot
# skipped for a missing host prerequisite; fails when the check did not run
# to its end or its guest side failed.
guest_results() {
    local runs
    runs=$(numa_runs "$1")
    share=$runs/$2
    if [ -f "$runs/UNAVAILABLE" ]; then
        echo "SKIP: $(cat "$runs/UNAVAILABLE")"
        exit 77
    fi
    [ -f "$share/guest.rc" ] ||
        fail "guest check $2 has no result from the $1 node: numa.boot.$1 failed or did not run (its output says why)"
    cat "$share/guest.log"
    [ "$(cat "$share/guest.rc")" = 0 ] || fail "$1: the guest side of check $2 exited $(cat "$share/guest.rc") (its log above)"
}
