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
# BINDLAB_MPI_BUILD_PREFIX-NAME is missing (as test_mpis.sh does). Then
# bindlab sweep of nodes: 2 layouts inside salloc with MPICH and Intel MPI.
# An MPI that is missing is installed (scripts/mpis.sh); skipped (77) only
# when none of them can be had.
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
# Every MPI or none, asked before the first check (no pass with one left out).
bl_require_mpis "$MPI_DIR" ${BINDLAB_MPIS:-${BL_MPIS[*]}} || skip "(the MPIs above)"
have=()
for m in ${BINDLAB_MPIS:-${BL_MPIS[*]}}; do
    bl_require_mpi "$m" "$MPI_DIR" || fail "$m: cannot be had"
    prefix=$BL_MPI_PREFIX tree=$BUILD_PREFIX-$m
    (eval "$(bl_mpi_env "$m" "$prefix")" &&
        bl_build_mpi_app "$SRC" "$prefix" "$tree" "$WORK/build-$m.log") ||
        fail "$m: bindlab-app did not build"
    have+=("$m")
done
[ "${#have[@]}" -gt 0 ] || fail "no MPI tested (BINDLAB_MPIS empty?)"

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
# bindlab sweep of nodes: 2 layouts inside salloc with MPICH's and Intel
# MPI's mpiexec (-hosts bl1,bl2 and -ppn, docs/launchers.md): every rank on
# the node worked out by hand (CLUSTER_HOSTS, cluster_common.sh), as the
# run file's ranks table records it, and every rank's binding line read
# as its own (checks: all ranks, matching).
stencil_sweep "$WORK/nodes.yaml" hydranodes ppr1 ppr2 cyclic
for m in "${have[@]}"; do
    case $m in mpich | impi) ;; *) continue ;; esac
    bin="$MPI_DIR/$m/bin"
    timeout 600 bash "$NODES_SH" exec "$CL" head salloc -N2 --exclusive \
        env PATH="$bin:$PATH" I_MPI_ROOT="$MPI_DIR/impi" \
        "$BINDLAB" sweep --launcher "$m" --app "$BUILD_PREFIX-$m/bindlab-app" \
        --results "$WORK/sweep-$m" "$WORK/nodes.yaml" >"$WORK/sweep-$m.out" 2>&1 ||
        { bad "$m: nodes: 2 sweep in salloc: exit $?"; tail -n 20 "$WORK/sweep-$m.out"; continue; }
    if "$PY" - "$WORK/sweep-$m/hydranodes.h5" "$(hosts_py)" <<'PYEOF'; then echo "ok: $m: nodes: 2 sweep in salloc"; else bad "$m: nodes: 2 sweep in salloc"; tail -n 20 "$WORK/sweep-$m.out"; fi
import sys, h5py
want = dict((k, v.split()) for k, v in (kv.split("=") for kv in sys.argv[2].split(";") if kv))
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    runs = f["runs"]
    assert len(runs) == 3, len(runs)
    for k in runs:
        r = runs[k]; a = r.attrs; name = s(a["name"])
        assert s(a["status"]) == "ok", (k, name, s(a["status"]), s(a["reason"]))
        assert r["result"].attrs["verified"] == 1, (k, name)
        assert int(a["layout_nodes"]) == 2, k
        assert "binding-mismatch" not in s(a["flags"]), (k, name, s(a["flags"]))
        hosts = [s(x["host"]) for x in sorted(r["ranks"][()], key=lambda x: x["rank"])]
        assert hosts == want[name], (k, name, hosts)
        checks = r["checks"][()]
        assert sorted(int(c["rank"]) for c in checks) == list(range(len(hosts))), (k, checks)
        assert all(c["matches"] == 1 for c in checks), (k, checks)
        print(k, name, "ok on", " ".join(hosts))
PYEOF
done
[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all MPIs ran across the two nodes: ${have[*]}"
