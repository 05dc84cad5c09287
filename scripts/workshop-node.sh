#!/usr/bin/env bash
# Runs one workshop command inside the emulated NUMA node (docs/workshop/):
# the baseline guest build first in PATH (built or brought up to date
# first), $WS shared read-write at its own path, Open MPI allowed as root.
# On a real node, run the same COMMAND without this prefix.
#
#   scripts/workshop-node.sh [OPTIONS] COMMAND...        one command
#   scripts/workshop-node.sh [OPTIONS] --script FILE     a bash script
#   --shape NAME            snc2 (default), 2s, 2s-memonly (docs/numa-node.md)
#   --numa-balancing 0|1    automatic NUMA balancing in the node (default 0)
#   --thp MODE              transparent huge pages: never, madvise (default), always
# The defaults are those of placement experiments (pages stay where first
# touch put them, 4 KiB at a time); Debian boots with balancing 1 and THP
# always, as most real nodes do: bindlab check shows which a node has.
#
# COMMAND may start with NAME=VALUE settings, as in a shell
# (scripts/workshop-node.sh OMP_NUM_THREADS=4 bindlab-app ...). It runs in
# the project root. Exit status: COMMAND's own; 125 when this host lacks a
# prerequisite of the node, 1 when it fails to boot (scripts/numa-node.sh
# says why in one line).
#   BINDLAB_GUEST_BUILD  the guest build (default: build-numa/ of this checkout)
#   WS                   the shared folder (default: ws/ of this checkout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shape=snc2
script=""
balancing=0
thp=madvise
while [ $# -gt 0 ]; do
    case "$1" in
    --shape) shape=${2:?--shape needs a name}; shift 2 ;;
    --script) script=${2:?--script needs a file}; shift 2 ;;
    --numa-balancing) balancing=${2:?--numa-balancing needs 0 or 1}; shift 2 ;;
    --thp) thp=${2:?--thp needs never, madvise or always}; shift 2 ;;
    *) break ;;
    esac
done
if [ -z "$script" ] && [ $# -eq 0 ]; then
    echo "usage: scripts/workshop-node.sh [--shape NAME] [--numa-balancing 0|1] [--thp MODE] COMMAND... | --script FILE" >&2
    exit 2
fi
case $balancing in 0 | 1) ;; *) echo "workshop-node: --numa-balancing takes 0 or 1, not '$balancing'" >&2; exit 2 ;; esac
case $thp in never | madvise | always) ;; *) echo "workshop-node: --thp takes never, madvise or always, not '$thp'" >&2; exit 2 ;; esac
guest=${BINDLAB_GUEST_BUILD:-$root/build-numa}
ws=${WS:-$root/ws}
mkdir -p "$ws"
ws=$(cd "$ws" && pwd)
"$root/scripts/numa/guest-build.sh" "$guest" ||
    { echo "workshop-node: the guest build in $guest failed (its log is above)" >&2; exit 1; }
guest=$(cd "$guest" && pwd)
# The guest starts with a fresh PATH (scripts/numa-node.sh); the guest build
# goes first, so bindlab and bindlab-app there are the baseline ones.
set -- env PATH="$guest:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    WS="$ws" BINDLAB_BUILD_DIR="$guest" scripts/numa/workshop-guest.sh "$balancing" "$thp" ${script:+bash "$(cd "$(dirname "$script")" && pwd)/$(basename "$script")"} "$@"
exec "$root/scripts/numa-node.sh" --shape "$shape" --share "$ws" -- "$@"
