#!/bin/bash
# Inside the emulated NUMA node, for scripts/workshop-node.sh: sets NUMA
# balancing and transparent huge pages as asked, then runs the command.
#   scripts/numa/workshop-guest.sh BALANCING THP COMMAND...
set -eu
echo "$1" >/proc/sys/kernel/numa_balancing
echo "$2" >/sys/kernel/mm/transparent_hugepage/enabled
shift 2
exec "$@"
