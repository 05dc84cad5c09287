#!/usr/bin/env bash
# The unit tests and the cheap integration tests (Open MPI, hwloc and the
# build only) inside one boot of the emulated NUMA node, a machine unlike
# CI's small VM: 16 CPUs with SMT on 4 NUMA nodes (snc2), or 8 on 2 (2s).
# Tests that assume 2 CPUs or no SMT fail there. Builds a baseline copy
# (scripts/numa/guest-build.sh) in BUILD, boots the node once with BUILD as
# its writable share, runs ctest inside (scripts/numa/guest-suite.sh) and
# prints each test's result. Takes tens of minutes under software
# emulation: run by hand, not part of the CTest suite.
#
#   scripts/suite-in-guest.sh [--shape NAME] [--build DIR] [--jobs N] [REGEX]
#
# REGEX picks tests (default: every unit test and the plan, check, sweep,
# run and report integration tests below); tests that need other MPIs,
# third-party programs, Slurm or another boot are never picked.
# Exit status: 0 all picked tests passed; 1 a test failed or did not run,
# or the node failed to boot (scripts/numa-node.sh says why); 125 this host
# lacks the node's prerequisites.
#   BINDLAB_NUMA_TIMEOUT    seconds for the boot and the whole run (default 7200)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shape=snc2
build=$root/build/numa-suite
jobs=2
include='^unit\.|^integration\.test_(plan_(cli|openmpi|offline_pus|golden)|check|compare|'
include+='sweep|sweep_(identity|mempolicy)|run_(cli|flags)|report_(cli|ties)|bindings_(cli|live)|'
include+='app_(threads|check|mpirun))$'
# Other MPIs, third-party programs, OpenMP runtimes built apart, Slurm, the
# compiler's link graph: not what this run is for.
exclude='^integration\.test_(apps_|mpis|slurm|gpu|omp_runtimes|sweep_omp_runtimes|install|symbol_graph|.*hydra|.*ompi5)'
while [ $# -gt 0 ]; do
    case "$1" in
    --shape) shape=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -*) echo "usage: scripts/suite-in-guest.sh [--shape NAME] [--build DIR] [--jobs N] [REGEX]" >&2; exit 2 ;;
    *) include=$1; shift ;;
    esac
done
export BINDLAB_NUMA_TIMEOUT=${BINDLAB_NUMA_TIMEOUT:-7200}

"$root/scripts/numa/guest-build.sh" "$build" all || { echo "suite-in-guest: baseline build failed" >&2; exit 1; }
build=$(cd "$build" && pwd)
rm -f "$build/guest-suite.xml"
start=$(date +%s)
rc=0
"$root/scripts/numa-node.sh" --shape "$shape" --cache "$root/build/numa-node" --share "$build" -- \
    bash scripts/numa/guest-suite.sh "$build" "$include" "$exclude" "$jobs" || rc=$?
echo "suite-in-guest: shape $shape, $(($(date +%s) - start)) s from boot to power-off"
[ "$rc" = 125 ] && exit 125
# A boot that failed after QEMU started left no results: a failure.
[ -s "$build/guest-suite.xml" ] || { echo "suite-in-guest: no results from the $shape node (exit $rc)" >&2; exit 1; }
python3 - "$build/guest-suite.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
# ctest's JUnit statuses: run (passed), fail, notrun (skipped or not run).
words = {"run": "passed", "fail": "FAILED", "notrun": "NOT-RUN"}
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    status = words.get(case.get("status", ""), case.get("status", "?"))
    print(f"{status:8} {case.get('name')}  {float(case.get('time', 0)):.1f} s")
PY
exit "$rc"
