#!/usr/bin/env bash
# Plan equals reality: `bindlab plan` on the emulated snc2 node's own lstopo
# XML gives, for every layout of configs/sweeps/numa-snc2.yaml, the cpusets
# and thread places that the same layouts recorded when they ran inside the
# node (guest check snc2 in the node's one boot, numa.boot.snc2).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"
guest_results snc2 snc2 >/dev/null
for f in numa-snc2.h5 topo.xml; do
    [ -s "$share/$f" ] || fail "the snc2 check left no $f in $share"
done
prc=0
"$BINDLAB" plan "$src/configs/sweeps/numa-snc2.yaml" --topology "$share/topo.xml" \
    --format tsv >"$WORK/plan.tsv" 2>"$WORK/plan.err" || prc=$?
cat "$WORK/plan.err"
# A plan that refuses some layouts still gives the others: compare them all,
# a missing layout is a failure with its reason above.
[ -s "$WORK/plan.tsv" ] || fail "bindlab plan gave no placement (exit $prc)"
"$PY" "$src/tests/numa/check_numa.py" "$share" "$WORK/plan.tsv"
[ "$prc" = 0 ] || fail "bindlab plan exited $prc"
