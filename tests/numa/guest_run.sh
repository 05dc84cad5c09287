#!/bin/bash
# Runs inside the emulated node, started by tests/numa/boot_shape.sh: every
# guest check named, one after the other, each from the node's boot-time
# settings (NUMA balancing, transparent huge pages) and into its own folder
# RUNS/NAME: its files, guest.log (its output) and guest.rc (its exit
# status, written last: the check ran to its end).
#   tests/numa/guest_run.sh GUEST_BUILD_DIR RUNS NAME...
set -u
guest=$1
runs=$2
shift 2
balancing=$(cat /proc/sys/kernel/numa_balancing)
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
for name in "$@"; do
    out=$runs/$name
    mkdir -p "$out"
    echo "$balancing" >/proc/sys/kernel/numa_balancing
    echo "$thp" >/sys/kernel/mm/transparent_hugepage/enabled
    start=$(cut -d' ' -f1 /proc/uptime)
    echo "guest: check $name"
    rc=0
    bash "tests/numa/guest_$name.sh" "$guest" "$out" >"$out/guest.log" 2>&1 </dev/null || rc=$?
    end=$(cut -d' ' -f1 /proc/uptime)
    echo "$rc" >"$out/guest.rc.tmp" && mv "$out/guest.rc.tmp" "$out/guest.rc"
    echo "guest: check $name exited $rc after $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }') s"
done
