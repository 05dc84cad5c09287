#!/bin/bash
# Runs inside the emulated 2s node (scripts/numa-node.sh --shape 2s):
# bindlab check under placements only a NUMA node can have, each output in
# SHARE/NAME.out and its exit status in SHARE/NAME.rc, for
# tests/numa/test_numa_check.sh to judge on the host.
#   tests/numa/guest_check.sh GUEST_BUILD_DIR SHARE
set -u
b=$1/bindlab
a=$1/bindlab-app
share=$2
numactl --hardware >"$share/hardware.txt"
check() { # check NAME [prefix...]
    local name=$1; shift
    echo "guest: $name"
    "$@" "$b" check >"$share/$name.out" 2>&1
    echo $? >"$share/$name.rc"
}
echo 0 >/proc/sys/kernel/numa_balancing
echo madvise >/sys/kernel/mm/transparent_hugepage/enabled
check clean numactl --cpunodebind=0 --membind=0
check remote numactl --cpunodebind=0 --membind=1
check partly numactl --cpunodebind=0,1 --membind=0
check wider numactl --cpunodebind=0 --membind=0,1
check preferred-remote numactl --cpunodebind=0 --preferred=1
check preferred-local numactl --cpunodebind=0 --preferred=0
check localalloc numactl --cpunodebind=0 --localalloc
check interleave numactl --cpunodebind=0 --interleave=all
check interleave-remote numactl --cpunodebind=0 --interleave=1
check cross numactl --cpunodebind=0,1 --membind=0,1
# Node 0 is 2 cores x 2 SMT threads (CPUs 0-1 and 2-3): two close threads
# on one place per CPU share core 0 while core 1 idles; spread does not.
check smt env OMP_NUM_THREADS=2 OMP_PLACES=threads OMP_PROC_BIND=close numactl --cpunodebind=0 --membind=0
check smt-spread env OMP_NUM_THREADS=2 OMP_PLACES=threads OMP_PROC_BIND=spread numactl --cpunodebind=0 --membind=0
cat /sys/devices/system/cpu/cpu[0-3]/topology/thread_siblings_list >"$share/siblings.txt"
echo 1 >/proc/sys/kernel/numa_balancing
check balancing numactl --cpunodebind=0 --membind=0
echo 0 >/proc/sys/kernel/numa_balancing
echo always >/sys/kernel/mm/transparent_hugepage/enabled
check thp numactl --cpunodebind=0 --membind=0
echo madvise >/sys/kernel/mm/transparent_hugepage/enabled
# A cgroup v2 cpuset whose memory is the other node's: CPUs 0-3, mems 1.
cg=/sys/fs/cgroup
if mount -t cgroup2 none "$cg" 2>/dev/null && echo +cpuset >"$cg/cgroup.subtree_control" &&
    mkdir "$cg/bl" && echo 0-3 >"$cg/bl/cpuset.cpus" && echo 1 >"$cg/bl/cpuset.mems"; then
    check cgroup sh -c "echo \$\$ >$cg/bl/cgroup.procs && exec \"\$0\" \"\$@\""
else
    echo "cgroup v2 cpuset not available in the guest" >"$share/cgroup.unavailable"
fi
# bindlab-app --mem-policy from node 0's CPUs (a singleton rank, 2 threads).
app() { # app NAME POLICY [numactl options]
    local name=$1 pol=$2; shift 2
    echo "guest: app $name"
    numactl "$@" -- env OMP_NUM_THREADS=2 OMP_PROC_BIND=close "$a" \
        "${kernel[@]}" --iters 1 --warmup 0 --mem-policy "$pol" \
        --out "$share/app-$name.h5" >"$share/app-$name.out" 2>&1
    echo $? >"$share/app-$name.rc"
}
kernel=(--kernel triad --size 16MiB)
app firsttouch firsttouch --cpunodebind=0
app interleave interleave --cpunodebind=0
app remote bind:1 --cpunodebind=0
app local bind:local-to-rank --cpunodebind=1
# The shared table built by one thread, with threads on both nodes: first
# touch puts all of it on the builder's node, interleave spreads it.
kernel=(--kernel shared --size 16MiB --init serial)
app shared-serial firsttouch --cpunodebind=0,1
app shared-interleave interleave --cpunodebind=0,1
# One rank per NUMA node, bound to it: each rank's block is clean.
echo "guest: mpirun"
mpirun -np 2 --map-by numa --bind-to numa "$b" check >"$share/mpirun.out" 2>&1
echo $? >"$share/mpirun.rc"
echo "guest: done"
