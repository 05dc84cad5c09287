#!/usr/bin/env bash
# The workshop's plan pictures and maps (docs/workshop/img/), from the
# shipped topologies: for each picture, `bindlab plan ... --picture NAME.svg`
# (lstopo's SVG, every PU labelled) and its text output as NAME.txt (table,
# node map, warnings). SOURCE names the Open MPI and lstopo that made them:
# another Open MPI's mapper may place ranks differently.
#   scripts/workshop-pictures.sh [OUTDIR]      (default docs/workshop/img)
#   BINDLAB=PATH  the bindlab to use (default: build/bindlab, else PATH)
# tests/workshop/test_workshop_pictures.sh regenerates them into a temporary
# folder and fails when a committed one differs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/workshop/img}
bindlab=${BINDLAB:-$root/build/bindlab}
[ -x "$bindlab" ] || bindlab=$(command -v bindlab) ||
    { echo "workshop-pictures: no bindlab (build it: scripts/build.sh build)" >&2; exit 1; }
mkdir -p "$out"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

picture() { # picture NAME TOPOLOGY PLAN-OPTIONS...
    local name=$1 topo=$2
    shift 2
    # The text without the "picture: PATH" line, which names the folder.
    "$bindlab" plan --topology "$topo" "$@" --picture "$out/$name.svg" 2>&1 |
        grep -v '^picture: ' >"$out/$name.txt.tmp"
    mv "$out/$name.txt.tmp" "$out/$name.txt"
    echo "workshop-pictures: $name"
}

# Exercise 2: one thread per NUMA node of the emulated node.
picture qemu-snc2-numa-spread qemu-snc2 -np 1 --bind-to none --threads 4 \
    --omp-places numa_domains --omp-proc-bind spread
# Exercise 3: two threads in a package with SMT, close on hardware threads vs spread on cores.
picture qemu-snc2-threads-close qemu-snc2 -np 1 --map-by package --bind-to package \
    --threads 2 --omp-places threads --omp-proc-bind close
picture qemu-snc2-cores-spread qemu-snc2 -np 1 --map-by package --bind-to package \
    --threads 2 --omp-places cores --omp-proc-bind spread
# Exercise 4: one rank per NUMA node on a 2 x EPYC 7763 NPS4, with and without PE=.
picture epyc7763-nps4-ppr-numa AMD-EPYC-7763-2s-NPS4-SMT -np 8 --map-by ppr:1:numa:PE=16 \
    --bind-to core --threads 16 --omp-places cores --omp-proc-bind close
picture epyc7763-nps4-no-pe AMD-EPYC-7763-2s-NPS4-SMT -np 8 --map-by ppr:1:numa \
    --bind-to core --threads 16 --omp-places cores --omp-proc-bind close
# Exercise 8: one rank per package, one thread per core, on an EPYC 7763 and a Xeon 6230.
picture epyc7763-ppr-package AMD-19h-Zen3-2xEpyc-7763 -np 2 --map-by ppr:1:package:PE=64 \
    --bind-to core --threads 64 --omp-places cores --omp-proc-bind close
picture xeon6230-ppr-package Intel-CascadeLake-6230-2s-NUMA1-HT -np 2 --map-by ppr:1:package:PE=20 \
    --bind-to core --threads 20 --omp-places cores --omp-proc-bind close

{
    echo "Made by scripts/workshop-pictures.sh with:"
    mpirun --version 2>/dev/null | head -n 1
    lstopo-no-graphics --version 2>/dev/null | head -n 1
} >"$out/SOURCE"
