#!/bin/bash
# Runs inside the emulated 2s node (2 packages x 2 cores x 2 hardware
# threads): bindlab-app under libgomp, LLVM's libomp and Intel's libiomp5
# (those the host has; the guest sees the host's files) for a table of
# settings a 2-CPU machine cannot show (SMT, two packages, two NUMA nodes),
# for tests/numa/test_numa_omp_runtimes.sh to compare with bindlab plan on
# the host. SHARE gets the table, topo.xml and each runtime's rows/out/real
# files (tests/integration/omp_runtimes_lib.sh).
#   tests/numa/guest_omp_runtimes.sh GUEST_BUILD_DIR SHARE
set -u
build=$1
share=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source tests/integration/omp_runtimes_lib.sh
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS KMP_AFFINITY KMP_HW_SUBSET
lstopo-no-graphics --of xml >"$share/topo.xml"
# Each row is one rank of one launch per runtime, and each rank of the
# emulated node costs seconds of TCG. The first five tell the runtimes
# apart (default places: PUs or cores; true: close or spread; SMT order;
# spread and T > P rules), then KMP_AFFINITY's own placements, which need
# SMT and two packages; then abstract places at socket level, more threads
# than places, and KMP_HW_SUBSET cutting sockets, cores and threads.
cat >"$share/table" <<'ROWS'
-|close|4|-|all
-|true|3|-|all
threads|close|6|-|all
cores|spread|3|-|all
{0,1},{2,3},{4,5},{6,7}|close|10|-|all
-|-|4|compact|llvm
-|-|4|scatter|llvm
-|-|8|scatter,granularity=fine|llvm
-|-|6|balanced|llvm
-|-|3|balanced,granularity=fine|llvm
cores|spread|4|compact,nodups|llvm
-|spread|4|-|all
threads|spread|4|-|all
cores|close|6|-|all
sockets|spread|2|-|all
sockets|close|4|-|all
{0:2},{4:2}|spread|2|-|all
-|-|4|compact,granularity=core|llvm
-|-|4|scatter,granularity=core|llvm
-|-|4|compact|llvm|1s
-|-|4|scatter|llvm|2c,1t
-|-|2|scatter,granularity=fine|llvm|1t@1
ROWS
omp_find_runtimes "$PWD"
omp_libdirs "$share/lib"
printf '%s\n' "${RUNTIMES[@]}" >"$share/runtimes"
rc=0
for rt in "${RUNTIMES[@]}"; do
    echo "guest: $rt"
    omp_rows "$rt" "$share/table" "$share"
    omp_run "$rt" "$share/table" "$share" "$build/bindlab-app" mpirun --oversubscribe || rc=1
done
exit $rc
