#!/bin/bash
# Runs inside the emulated snc2 node (scripts/numa-node.sh --shape snc2):
# every run the NUMA checks need, written to SHARE for check_numa.py on the
# host. One boot for all of them (a boot costs ~10 s, an mpirun launch
# 10-30 s on a busy 2-core host).
#   tests/numa/guest_snc2.sh GUEST_BUILD_DIR SHARE
set -euo pipefail
build=$1
share=$2
app=$build/bindlab-app
say() { echo "guest: $*"; }

# Pages in 4 KiB units: with transparent huge pages a 2 MiB page that
# straddles two threads' shares lands whole on one node, so a thread's share
# is then only ~0.8 local at 64 MiB (docs/numa-node.md). The THP case is
# run too and checked against the bound the huge pages allow.
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo 0 >/proc/sys/kernel/numa_balancing
lstopo-no-graphics --of xml >"$share/topo.xml"
numactl --hardware >"$share/numactl.txt"

run() { # run NAME [prefix...] -- [app args...]
    local name=$1; shift
    local pre=()
    while [ "$1" != -- ]; do pre+=("$1"); shift; done
    shift
    say "$name"
    "${pre[@]}" "$app" --kernel triad --size 64MiB --iters 2 --warmup 0 "$@" \
        --out "$share/$name.h5" >"$share/$name.out" 2>&1
}
# status NAME CMD...: CMD's output in NAME.out (report.txt for the reports,
# as the host reads them) and its exit status in NAME.rc, for the host to
# assert: a failed sweep is judged there, with its output.
status() {
    local name=$1 out rc=0
    shift
    out=$share/$name.out
    case $name in report*) out=$share/$name.txt ;; esac
    "$@" >"$out" 2>&1 || rc=$?
    echo "$rc" >"$share/$name.rc"
}
spread=(env OMP_NUM_THREADS=4 OMP_PLACES=numa_domains OMP_PROC_BIND=spread)
# Parallel and serial first touch alone are the sweeps' first layouts.
run membind "${spread[@]}" numactl --membind=2 -- --init parallel
run interleave "${spread[@]}" numactl --interleave=all -- --init serial
echo always >/sys/kernel/mm/transparent_hugepage/enabled
run par-thp "${spread[@]}" -- --init parallel
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo 1 >/proc/sys/kernel/numa_balancing
say "sweep numa-first-touch (numa_balancing 1)"
status sweep-first-touch "$build/bindlab" sweep configs/sweeps/numa-first-touch.yaml \
    --results "$share/results" -o "$share/numa-first-touch.h5"
echo 0 >/proc/sys/kernel/numa_balancing
say "sweep numa-snc2 (numa_balancing 0)"
status sweep "$build/bindlab" sweep configs/sweeps/numa-snc2.yaml --results "$share/results" \
    -o "$share/numa-snc2.h5"
status report "$build/bindlab" report "$share/numa-snc2.h5"
say "sweep numa-memory (numa_balancing 0)"
status sweep-memory "$build/bindlab" sweep configs/sweeps/numa-memory.yaml \
    --results "$share/results" -o "$share/numa-memory.h5"
status report-memory "$build/bindlab" report "$share/numa-memory.h5"
say done
