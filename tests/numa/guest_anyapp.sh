#!/bin/bash
# Runs inside the emulated snc2 node (a guest check: tests/numa/guest_run.sh
# starts it): bindlab run of a program it did not build in, under the probe,
# with its memory where only a NUMA node can put it, each record in
# SHARE/NAME.h5, its output in SHARE/NAME.out and its exit status in
# SHARE/NAME.rc, for tests/numa/test_numa_anyapp.sh to judge on the host.
#   remote  one rank bound to the first core, numactl --membind to a node
#           that core is not on (given after '--': the program's own policy)
#   local   the same, bound to the core's own node
#   spans   one unbound rank, 4 OpenMP threads spread over the NUMA domains,
#           with NUMA balancing on
#   tests/numa/guest_anyapp.sh GUEST_BUILD_DIR SHARE
set -u
build=$1
share=$2
target=$build/tests/probe_target
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lstopo-no-graphics --of xml >"$share/topo.xml"
numactl --hardware >"$share/numactl.txt"
# Open MPI binds one rank --bind-to core to the first core: its node is
# near, the last other node is far (numactl takes OS indexes, the record
# names nodes by hwloc's logical ones: both written for the judge).
near=$(hwloc-calc --physical-output --intersect NUMAnode core:0)
far=$(hwloc-calc --physical-output --intersect NUMAnode all | tr , '\n' |
      grep -vx "$near" | tail -n 1)
near_l=$(hwloc-calc --intersect NUMAnode core:0)
far_l=$(hwloc-calc --physical-input --intersect NUMAnode "node:$far")
echo "near $near far $far near_logical $near_l far_logical $far_l" >"$share/nodes.txt"

run() { # run NAME [bindlab run args...] -- PROGRAM ARGS...
    local name=$1
    shift
    echo "guest: $name (numa_balancing $(cat /proc/sys/kernel/numa_balancing))"
    "$build/bindlab" run "$@" >"$share/$name.out" 2>&1
    echo $? >"$share/$name.rc"
}
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo 0 >/proc/sys/kernel/numa_balancing
# 64 MiB written after the parallel region, counted at MPI_Finalize
run remote -np 1 --bind-to core --out "$share/remote.h5" -- \
    numactl --membind="$far" "$target" --touch 64
run local -np 1 --bind-to core --out "$share/local.h5" -- \
    numactl --membind="$near" "$target" --touch 64
echo 1 >/proc/sys/kernel/numa_balancing
run spans -np 1 --bind-to none --threads 4 --omp-places numa_domains \
    --omp-proc-bind spread --out "$share/spans.h5" -- "$target"
echo 0 >/proc/sys/kernel/numa_balancing
echo "guest: done"
