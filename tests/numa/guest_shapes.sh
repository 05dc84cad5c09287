#!/bin/bash
# Runs inside an emulated node of any shape: what test_numa_shapes.sh checks
# (guest check "shapes", in the boot of 2s and of 2s-memonly).
#   tests/numa/guest_shapes.sh GUEST_BUILD_DIR SHARE
set -euo pipefail
build=$1
share=$2
lstopo-no-graphics --of xml >"$share/topo.xml"
numactl --hardware >"$share/numactl.txt"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
# Memory on a node without CPUs: every page remote for every thread.
if [ "$(numactl --hardware | grep -c '^node [0-9]* cpus: *$')" -gt 0 ]; then
    memnode=$(numactl --hardware | sed -n 's/^node \([0-9]*\) cpus: *$/\1/p' | head -n1)
    for policy in "--membind=$memnode" "--interleave=all"; do
        name=${policy%%=*}
        OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close numactl "$policy" \
            "$build/bindlab-app" --size 16MiB --iters 1 --warmup 0 \
            --out "$share/memonly${name#--}.h5" >"$share/memonly${name#--}.out" 2>&1
    done
    echo "$memnode" >"$share/memnode"
fi
