#!/usr/bin/env bash
# First touch and what the kernel did after it, on a real NUMA kernel: boots
# the emulated snc2 node once, runs tests/numa/guest_firsttouch.sh inside
# it (NUMA balancing on and off, transparent huge pages always and never,
# shares aligned or not), then checks on the host what came back
# (tests/numa/check_firsttouch.py).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
# BINDLAB_NUMA_KEEP and BINDLAB_NUMA_REUSE=1 as in test_numa_snc2.sh.
share=${BINDLAB_NUMA_KEEP:-$cache/firsttouch-runs}
if [ "${BINDLAB_NUMA_REUSE:-0}" != 1 ] && [ -z "${BINDLAB_NUMA_KEEP:-}" ]; then rm -rf "$share"; fi
mkdir -p "$share"

PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || fail "python3-h5py missing: run scripts/deps.sh"

in_guest snc2 "$share" guest_firsttouch.sh ft-done
"$PY" "$src/tests/numa/check_firsttouch.py" "$share"
