#!/usr/bin/env bash
# First touch and what the kernel did after it, on a real NUMA kernel:
# tests/numa/guest_firsttouch.sh ran in an snc2 node's boot
# (numa.boot.snc2+workshop: NUMA balancing on and off, transparent huge
# pages always and never, shares aligned or not); this checks on the host
# what came back (tests/numa/check_firsttouch.py).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"

guest_results snc2+workshop firsttouch
"$PY" "$src/tests/numa/check_firsttouch.py" "$share"
