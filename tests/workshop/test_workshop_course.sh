#!/usr/bin/env bash
# Runs the workshop as a participant would: every `sh workshop` block of
# docs/workshop/README.md and of each exercise, in order, each exercise in
# its own WS folder; fails when a command breaks or its output no longer
# matches the claims written next to it (tests/workshop/course.py says how
# they are marked). The emulated node's steps ran in a boot of the snc2 node
# (guest check course, numa.boot.snc2+workshop, fixture numa_snc2+workshop); this
# judges them and runs the host steps, which run even when the node could
# not (a node that failed to boot fails its steps; one this host cannot run
# leaves them "not run" and the test skips only if every host step passed).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
# The same guest build as the numa tests, for any node command of the host steps.
export BINDLAB_GUEST_BUILD=$guest BINDLAB_NUMA_CACHE=$cache
# Debian's python3 has h5py (scripts/deps.sh); the exercises read run files with it.
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"
# The exercises' python3 is the one in PATH: make it Debian's.
export PATH=/usr/bin:$PATH
runs=$(numa_runs snc2+workshop)
node="done" runner=0
if [ -f "$runs/UNAVAILABLE" ]; then
    echo "note: the node steps cannot run here: $(cat "$runs/UNAVAILABLE")"
    node=none
elif [ -f "$runs/course/guest.rc" ]; then
    cat "$runs/course/guest.log"
    runner=$(cat "$runs/course/guest.rc")
else
    echo "FAIL: the node steps did not run: numa.boot.snc2+workshop failed or did not run (its output says why); they fail below"
fi
# Without results from the node, its steps fail as "did not run".
"$PY" "$src/tests/workshop/course.py" --node "$node" "$src/docs/workshop" "$runs/course"
[ "$runner" = 0 ] || fail "the node steps' runner in the guest exited $runner (its log above)"
