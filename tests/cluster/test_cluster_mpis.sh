#!/usr/bin/env bash
# The other MPIs across two namespaced Slurm nodes (tests/slurm/nodes.sh):
# for each MPI that scripts/mpis.sh installed (Open MPI 5, MPICH, Intel MPI)
# and its bindlab-app build, its own launcher inside an allocation (one
# rank per node) and srun with the PMI that MPI speaks (Open MPI 5: pmix;
# Intel MPI: pmi2). MPICH from PyPI has no srun launch here: with
# --mpi=pmix it has no PMIx client, and with --mpi=pmi2 Slurm 22.05's
# plugin rejects its requests ("request not begin with 'cmd='") and the
# ranks abort in MPI_Init (docs/multi-node.md). Each run: verified, the
# stencil checksum of one node, rank 0 on bl1 and rank 1 on bl2 as the ranks
# recorded them. The app is built against an MPI whose tree
# BINDLAB_MPI_BUILD_PREFIX-NAME is missing (as test_mpis.sh does). Skipped
# (77) when none of the MPIs is installed.
source "$(dirname "$0")/cluster_common.sh"
set +e +o pipefail
SRC=$BINDLAB_SOURCE_DIR
MPI_DIR=${BINDLAB_MPI_DIR:-$SRC/build-mpi}
BUILD_PREFIX=${BINDLAB_MPI_BUILD_PREFIX:-$SRC/build-mpi}
export OMP_NUM_THREADS=1
STENCIL=(--kernel stencil --grid 256x256 --iters 3 --warmup 1 --show-placement)
cd "$WORK" || fail "no work dir"

# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
have=()
for m in ${BINDLAB_MPIS:-${BL_MPIS[*]}}; do
    prefix=$MPI_DIR/$m tree=$BUILD_PREFIX-$m
    bl_mpi_installed "$prefix" || { echo "not installed: $m ($prefix)"; continue; }
    if [ ! -x "$tree/bindlab-app" ]; then
        echo "== building bindlab-app against $m in $tree"
        (eval "$(bl_mpi_env "$m" "$prefix")" &&
            cmake -S "$SRC" -B "$tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
                -DMPI_C_COMPILER="$prefix/bin/mpicc" &&
            cmake --build "$tree" -j"$(nproc)" --target bindlab-app) >"$WORK/build-$m.log" 2>&1 ||
            { tail -n 30 "$WORK/build-$m.log"; fail "$m: bindlab-app did not build"; }
    fi
    have+=("$m")
done
[ "${#have[@]}" -gt 0 ] || skip "no extra MPI in $MPI_DIR (scripts/mpis.sh installs them)"

fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
start_cluster 2

# check NAME CMD...: run CMD on the login node; ranks on bl1 and bl2,
# verified, checksum as on one node (the stencil's is exact: 394.5).
check() {
    local name=$1 out="$WORK/$1.out"
    shift
    timeout 120 bash "$NODES_SH" exec "$CL" head "$@" >"$out" 2>&1
    local rc=$?
    [ "$rc" = 0 ] || { bad "$name: exit $rc"; tail -n 15 "$out"; return; }
    [ "$(ranks_hosts "$out")" = "0:bl1 1:bl2" ] || bad "$name: ranks on '$(ranks_hosts "$out")'"
    [ "$(result "$out" verified)" = yes ] || bad "$name: not verified"
    [ "$(result "$out" checksum)" = 394.5 ] || bad "$name: checksum '$(result "$out" checksum)'"
    echo "ok: $name: $(ranks_hosts "$out")"
}

for m in "${have[@]}"; do
    app="$BUILD_PREFIX-$m/bindlab-app"
    bin="$MPI_DIR/$m/bin"
    case $m in
    ompi5)
        check "$m-mpirun" salloc -N2 -n2 "$bin/mpirun" --allow-run-as-root --map-by ppr:1:node \
            --bind-to core -n 2 "$app" "${STENCIL[@]}"
        check "$m-srun" srun --mpi=pmix -N2 -n2 "$app" "${STENCIL[@]}"
        ;;
    mpich)
        check "$m-mpiexec" salloc -N2 -n2 "$bin/mpiexec" -n 2 -ppn 1 -bind-to core "$app" "${STENCIL[@]}"
        ;;
    impi)
        check "$m-mpiexec" env I_MPI_ROOT="$MPI_DIR/impi" PATH="$bin:$PATH" \
            salloc -N2 -n2 "$bin/mpiexec" -n 2 -ppn 1 "$app" "${STENCIL[@]}"
        check "$m-srun" env I_MPI_ROOT="$MPI_DIR/impi" srun --mpi=pmi2 -N2 -n2 "$app" "${STENCIL[@]}"
        ;;
    esac
done
[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all MPIs ran across the two nodes: ${have[*]}"
