#!/usr/bin/env bash
# Plan equals reality: `bindlab plan` on the emulated snc2 node's own lstopo
# XML gives, for every layout of configs/sweeps/numa-snc2.yaml, the cpusets
# and thread places that the same layouts recorded when they ran inside the
# node (left in the build tree by test_numa_snc2.sh, CTest fixture
# numa_snc2).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
src=$BINDLAB_SOURCE_DIR
share=${BINDLAB_NUMA_KEEP:-$BINDLAB_BUILD_DIR/numa-node/snc2-runs}
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"
if [ ! -s "$share/numa-snc2.h5" ] || [ ! -s "$share/topo.xml" ]; then
    echo "SKIP: no runs from the emulated node in $share (test_numa_snc2 skipped: it could not boot)"
    exit 77
fi
prc=0
"$BINDLAB" plan "$src/configs/sweeps/numa-snc2.yaml" --topology "$share/topo.xml" \
    --format tsv >"$WORK/plan.tsv" 2>"$WORK/plan.err" || prc=$?
cat "$WORK/plan.err"
# A plan that refuses some layouts still gives the others: compare them all,
# a missing layout is a failure with its reason above.
[ -s "$WORK/plan.tsv" ] || fail "bindlab plan gave no placement (exit $prc)"
"$PY" "$src/tests/numa/check_numa.py" "$share" "$WORK/plan.tsv"
[ "$prc" = 0 ] || fail "bindlab plan exited $prc"
