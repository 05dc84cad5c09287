#!/usr/bin/env bash
# Re-captures the real launcher fixtures of tests/fixtures/bindreport/ and
# tests/fixtures/launcher/ from the MPIs that scripts/mpis.sh installs:
#   scripts/capture-launcher-fixtures.sh BUILD_MPI_DIR OUT_DIR
# BUILD_MPI_DIR is the folder scripts/mpis.sh filled (ompi5/, mpich/,
# impi/ inside). Writes one file per command into OUT_DIR, each starting with
# a '#' line naming the launcher, its version and the exact command, so the
# fixtures can be compared with (and copied over) the committed ones.
# 2-socket captures run against a shipped topology (HWLOC_XMLFILE) with the
# affinity-recording preload (BINDLAB_PRELOAD, from a bindlab build), so the
# launcher binds on a node it is not running on.
set -euo pipefail
mpi=${1:?usage: $0 BUILD_MPI_DIR OUT_DIR}
out=${2:?usage: $0 BUILD_MPI_DIR OUT_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sky=$src/configs/topologies/Intel-Skylake-2xXeon6140.xml
preload=${BINDLAB_PRELOAD:-}

# cap FILE "NOTE" CMD...: runs CMD, stores '# NOTE: CMD' + its output.
cap() {
    local file=$1 note=$2
    shift 2
    { printf '# %s: %s\n' "$note" "$*"
      timeout 60 "$@" 2>&1 || true; } >"$out/$file"
}
# The prefix that runs a command on the Skylake 2-socket topology.
foreign=(env HWLOC_XMLFILE="$sky" HWLOC_THISSYSTEM=1 LD_PRELOAD="$preload"
         BINDLAB_PRELOAD_CPUS=0-71)
epyc=(env HWLOC_XMLFILE="$src/configs/topologies/AMD-19h-Zen4-2xEpyc-9654.xml"
      HWLOC_THISSYSTEM=1 LD_PRELOAD="$preload" BINDLAB_PRELOAD_CPUS=0-383)

if [ -x "$mpi/ompi5/bin/mpirun" ]; then
    o=$mpi/ompi5/bin/mpirun
    v=$("$o" --version | head -1)
    cap ompi5-version.txt "fixture: captured, $v" "$o" --version
    cap ompi5-vm-core.txt "captured, $v" \
        "$o" -np 2 --map-by core --bind-to core --report-bindings true
    cap ompi5-vm-package.txt "captured, $v" \
        "$o" -np 2 --map-by package --bind-to package --report-bindings true
    cap ompi5-vm-none.txt "captured, $v" \
        "$o" -np 2 --map-by core --bind-to none --report-bindings true
    cap ompi5-vm-map.txt "captured, $v" \
        "$o" -np 2 --map-by core --bind-to core --display map true
    if [ -n "$preload" ]; then
        cap ompi5-skylake-ppr2pe4.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" "$o" -np 4 --map-by ppr:2:package:pe=4 --bind-to core \
            --report-bindings true
        cap ompi5-skylake-hwthread.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" "$o" -np 4 --map-by hwthread --bind-to hwthread \
            --use-hwthread-cpus --report-bindings true
        cap ompi5-skylake-package.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" "$o" -np 4 --map-by ppr:2:package --bind-to package \
            --report-bindings true
        cap ompi5-skylake-pe2-hwthread.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" "$o" -np 2 --map-by ppr:1:package:pe=2 --bind-to hwthread \
            --report-bindings true
        cap ompi5-skylake-plan.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" "$o" -np 4 --map-by ppr:2:package:pe=4 --bind-to core \
            --do-not-launch --display map true
        # the job map on the SMT EPYC 9654 (core:L on an SMT node, hwt:),
        # without a launch and, with --report-bindings beside it, with one
        cap ompi5-epyc9654-map-pe2-hwthread.txt "captured on AMD-19h-Zen4-2xEpyc-9654.xml, $v" \
            "${epyc[@]}" "$o" -np 4 --host localhost:4 --map-by ppr:2:package:pe=2 \
            --bind-to hwthread --do-not-launch --display map true
        cap ompi5-epyc9654-map-hwthread.txt "captured on AMD-19h-Zen4-2xEpyc-9654.xml, $v" \
            "${epyc[@]}" "$o" -np 4 --host localhost:4 --map-by hwthread \
            --bind-to hwthread --do-not-launch --display map true
        cap ompi5-epyc9654-map-l3.txt "captured on AMD-19h-Zen4-2xEpyc-9654.xml, $v" \
            "${epyc[@]}" "$o" -np 3 --host localhost:3 --map-by ppr:1:l3cache:pe=8 \
            --bind-to core --do-not-launch --display map true
        cap ompi5-epyc9654-map-launched.txt "captured on AMD-19h-Zen4-2xEpyc-9654.xml, $v" \
            "${epyc[@]}" "$o" -np 2 --host localhost:2 --map-by ppr:1:package \
            --bind-to package --display map --report-bindings true
        cap ompi5-epyc9654-map-refused.txt "captured on AMD-19h-Zen4-2xEpyc-9654.xml, $v" \
            "${epyc[@]}" "$o" -np 4 --host localhost:4 --map-by ppr:3:package:pe=100 \
            --bind-to core --do-not-launch --display map true
    fi
    cap ompi5-vm-map-none.txt "captured, $v" \
        "$o" -np 2 --map-by core --bind-to none --do-not-launch --display map true
fi

if [ -x "$mpi/mpich/bin/mpiexec" ]; then
    m=$mpi/mpich/bin/mpiexec
    v="MPICH $("$m" --version | awk '/Version:/ {print $2; exit}') Hydra"
    cap mpich-version.txt "fixture: captured, $v" "$m" --version
    cap hydra-vm-core.txt "captured, $v" \
        env HYDRA_TOPO_DEBUG=1 "$m" -np 2 -bind-to core -map-by core true
    cap hydra-vm-socket.txt "captured, $v" \
        env HYDRA_TOPO_DEBUG=1 "$m" -np 2 -bind-to socket true
    if [ -n "$preload" ]; then
        cap hydra-skylake-core.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" HYDRA_TOPO_DEBUG=1 "$m" -np 4 -bind-to core -map-by core true
        cap hydra-skylake-socket.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" HYDRA_TOPO_DEBUG=1 "$m" -np 4 -bind-to socket -map-by socket true
        cap hydra-skylake-core2.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" HYDRA_TOPO_DEBUG=1 "$m" -np 4 -bind-to core:2 -map-by socket true
        cap hydra-skylake-hwthread.txt "captured on Intel-Skylake-2xXeon6140.xml, $v" \
            "${foreign[@]}" HYDRA_TOPO_DEBUG=1 "$m" -np 4 -bind-to hwthread -map-by hwthread true
    fi
fi

if [ -x "$mpi/impi/bin/mpiexec" ]; then
    export I_MPI_ROOT=$mpi/impi PATH=$mpi/impi/bin:$PATH
    i=$mpi/impi/bin/mpiexec
    v=$("$i" --version | head -1)
    cap intelmpi-version.txt "fixture: captured, $v" "$i" --version
    # The pinning table is printed by the library in MPI_Init: a program.
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' \
        >"$out/impi_init.c"
    I_MPI_CC=gcc "$mpi/impi/bin/mpicc" "$out/impi_init.c" -o "$out/impi_init"
    for pin in "I_MPI_PIN_DOMAIN=core" "I_MPI_PIN_DOMAIN=socket" \
               "I_MPI_PIN_PROCESSOR_LIST=1,0" "I_MPI_PIN=0"; do
        name=$(echo "${pin#I_MPI_}" | tr 'A-Z_=,' 'a-z--' | sed 's/-$//')
        cap "impi-vm-$name.txt" "captured, $v (the library's tuning-file path line dropped)" \
            env "$pin" I_MPI_DEBUG=4 "$i" -np 2 "$out/impi_init"
        # the tuning file line names this machine's install path
        sed -i '/Load tuning file/d' "$out/impi-vm-$name.txt"
    done
    rm -f "$out/impi_init" "$out/impi_init.c"
fi
# Nothing committed may name this machine's paths.
sed -i "s|$mpi/[a-z0-9]*/bin/||g; s|$src/configs/topologies/||g; s|$out/||g" "$out"/*.txt
sed -i "s|LD_PRELOAD=[^ ]*|LD_PRELOAD=libbindlab_preload.so|g" "$out"/*.txt
ls "$out"
