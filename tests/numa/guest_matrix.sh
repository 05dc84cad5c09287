#!/bin/bash
# Runs inside the emulated 2s node (scripts/numa-node.sh --shape 2s):
# bindlab matrix latency, bandwidth and c2c into SHARE/m.h5 (run files in
# SHARE/m.d), each command's output in SHARE/KIND.out and its exit status
# in SHARE/KIND.rc, and the node's own view (numactl --hardware, each
# CPU's package and SMT siblings) for tests/numa/test_numa_matrix.sh to
# judge on the host. Sizes and counts are the smallest that run: emulation
# is slow (each start of the app costs 15-35 s), and only pages and shapes
# are judged, never times.
#   tests/numa/guest_matrix.sh GUEST_BUILD_DIR SHARE
set -u
b=$1/bindlab
share=$2
numactl --hardware >"$share/hardware.txt"
for c in /sys/devices/system/cpu/cpu[0-9]*; do
    echo "${c##*cpu} $(cat "$c/topology/physical_package_id") $(cat "$c/topology/thread_siblings_list")"
done | sort -n >"$share/cpus.txt"
# pages must stay where the policy put them while they are counted
echo 0 >/proc/sys/kernel/numa_balancing
run() { # KIND ARGS...
    local kind=$1
    shift
    echo "guest: matrix $kind"
    "$b" matrix "$kind" -o "$share/m.h5" --svg "$share/$kind.svg" --timeout 300 "$@" \
        >"$share/$kind.out" 2>&1
    echo $? >"$share/$kind.rc"
}
run latency --size 1MiB --iters 1 --warmup 0
run bandwidth --size 3MiB --iters 1 --warmup 0
run c2c --round-trips 64 --iters 1 --warmup 0
