#!/usr/bin/env bash
# Runs the workshop as a participant would: every `sh workshop` block of
# docs/workshop/README.md and of each exercise, in order, each exercise in
# its own WS folder, the emulated node's steps in one boot; fails when a
# command breaks or its output no longer matches the claims written next to
# it (tests/workshop/course.py says how they are marked).
#   BINDLAB_WORKSHOP_KEEP=DIR   keep the outputs there (default: a temp dir)
#   BINDLAB_WORKSHOP_REUSE=1    with KEEP: check the node steps' saved
#                               outputs again without booting
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
src=$BINDLAB_SOURCE_DIR
# The same guest build and kernel cache as the numa tests.
export BINDLAB_GUEST_BUILD=$BINDLAB_BUILD_DIR/numa-guest
export BINDLAB_NUMA_CACHE=$BINDLAB_BUILD_DIR/numa-node
keep=${BINDLAB_WORKSHOP_KEEP:-$WORK/course}
mkdir -p "$keep"
# Debian's python3 has h5py (scripts/deps.sh); the exercises read run files with it.
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"
# The exercises' python3 is the one in PATH: make it Debian's.
export PATH=/usr/bin:$PATH
"$PY" "$src/tests/workshop/course.py" "$src/docs/workshop" "$keep"
