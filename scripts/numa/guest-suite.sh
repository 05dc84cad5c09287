#!/bin/bash
# Runs inside the emulated node, started by scripts/suite-in-guest.sh: the
# node's CPUs and topology, then the chosen tests of the baseline build
# BUILD with ctest (BUILD is the node's writable share, so ctest and the
# tests write there as on the host). Its exit status is ctest's.
#   scripts/numa/guest-suite.sh BUILD INCLUDE EXCLUDE JOBS
set -u
build=$1 include=$2 exclude=$3 jobs=$4
echo "guest: $(nproc) CPUs allowed, $(grep -c '^processor' /proc/cpuinfo) online"
lstopo-no-graphics --no-io --of console
lstopo-no-graphics --of xml >"$build/guest-topology.xml"
# Debian's OpenBLAS (OpenMP build) maps a 128 MiB buffer per CPU when it
# loads: 16 of them, merged into one 2 GiB mapping, exceed the node's 2 GiB
# of RAM, and the kernel's overcommit guess refuses the fork of any such
# process (an MPI singleton starting its orted). Real 16-CPU machines have
# the memory; here the untouched buffers may be promised.
echo 1 >/proc/sys/vm/overcommit_memory
start=$(cut -d' ' -f1 /proc/uptime)
rc=0
ctest --test-dir "$build" -R "$include" -E "$exclude" -j "$jobs" --output-on-failure \
    --output-junit "$build/guest-suite.xml" || rc=$?
end=$(cut -d' ' -f1 /proc/uptime)
echo "guest: ctest exited $rc after $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }') s"
exit "$rc"
