#!/bin/bash
# Runs inside the emulated snc2 node (a guest check: tests/numa/guest_run.sh
# starts it): the first-touch runs, each with NUMA balancing and transparent
# huge pages set explicitly, written to SHARE for check_firsttouch.py on the
# host.
#   tests/numa/guest_firsttouch.sh GUEST_BUILD_DIR SHARE
set -euo pipefail
build=$1
share=$2
app=$build/bindlab-app
say() { echo "guest: $*"; }

lstopo-no-graphics --of xml >"$share/ft-topo.xml"
# The balancer scans a task's memory first after scan_delay_ms (1 s by
# default), then every scan_period_min_ms: shortened so that a few timed
# iterations under software emulation see several scans.
bal=/sys/kernel/debug/sched/numa_balancing
[ -d "$bal" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
if [ -d "$bal" ]; then
    echo 100 >"$bal/scan_delay_ms"
    echo 100 >"$bal/scan_period_min_ms"
fi

settings() { # settings BALANCING THP
    echo "$1" >/proc/sys/kernel/numa_balancing
    echo "$2" >/sys/kernel/mm/transparent_hugepage/enabled
}
kernel=(--kernel triad --size 64MiB)
run() { # run NAME ITERS [app args...]: 4 threads, one per NUMA node
    local name=$1 iters=$2
    shift 2
    say "$name (numa_balancing $(cat /proc/sys/kernel/numa_balancing)," \
        "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled))"
    env OMP_NUM_THREADS=4 OMP_PLACES=numa_domains OMP_PROC_BIND=spread \
        "$app" "${kernel[@]}" --iters "$iters" --warmup 1 "$@" \
        --out "$share/$name.h5" >"$share/$name.out" 2>&1
}

settings 1 never
grep -E '^(numa_|pgmigrate_)' /proc/vmstat >"$share/ft-vmstat-before.txt"
run ft-balance-serial 12 --init serial
grep -E '^(numa_|pgmigrate_)' /proc/vmstat >"$share/ft-vmstat-after.txt"
settings 0 never
run ft-nobalance-serial 3 --init serial
run ft-nobalance-parallel 3 --init parallel
settings 0 always
# free memory per node and order, for a huge page that lands off its node
cat /proc/buddyinfo >"$share/ft-buddyinfo.txt"
run ft-thp-unaligned 3 --init parallel
run ft-thp-aligned 3 --init parallel --align-shares
# the stencil's shares are rows (8,256 bytes here), which 2 MiB is no
# multiple of: aligned, each share starts on the row after a huge page
kernel=(--kernel stencil --grid 1024x1024)
run ft-thp-stencil-aligned 1 --init parallel --align-shares
settings 0 never
