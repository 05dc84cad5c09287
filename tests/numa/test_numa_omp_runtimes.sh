#!/usr/bin/env bash
# Judges tests/numa/guest_omp_runtimes.sh: inside the emulated 2s node (SMT,
# two packages, two NUMA nodes) each thread's CPU list as bindlab-app
# printed it under libgomp, libomp and Intel's runtime equals bindlab plan
# --omp-runtime's on the topology the guest wrote.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
source "$BINDLAB_SOURCE_DIR/tests/integration/omp_runtimes_lib.sh"
guest_results 2s omp_runtimes
BINDLAB="${BINDLAB:-$BINDLAB_BUILD_DIR/bindlab}"
cp "$share"/rows.* "$share"/real.* "$WORK"/
bad=0
while read -r rt; do
    omp_plan "$rt" "$share/table" "$WORK" "$BINDLAB" --topology "$share/topo.xml" ||
        fail "$rt: bindlab plan failed"
    omp_compare "$rt" "$share/table" "$WORK" || bad=1
done <"$share/runtimes"
[ "$(wc -l <"$share/runtimes")" -ge 2 ] || fail "only libgomp ran in the guest: $(cat "$share/guest.log")"
[ "$bad" = 0 ] || fail "the plan and the runtimes disagree in the 2s node"
