#!/usr/bin/env bash
# nodes: N under MPICH and Intel MPI (scripts/mpis.sh). Inside a made-up
# allocation (SLURM_JOB_NODELIST=bl[1-2], expanded by the real scontrol
# with a config that names those two nodes and is never served) --dry-run
# prints each layout's -hosts/-ppn line, compared with lines written by hand
# from docs/launchers.md; a layout it cannot say (core:PE=2 over nodes) is
# refused with the reason. Then MPICH's own Hydra starts each -hosts/-ppn
# line for real with its fork launcher (both "hosts" on this machine) and
# every rank's PMI_HOSTNAME must be the node worked out by hand, the same
# one Open MPI's mapper gives (bindlab plan --nodes 2). Exit 77 only when
# scontrol is missing or no MPI of the two installs.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
SRC=$BINDLAB_SOURCE_DIR
# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
# Every MPI or none, asked before the first check (no pass with one left out).
bl_require_mpis "" mpich impi || { echo "SKIP: (the MPIs above)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fake_slurm_allocation             # NC: cores per node, every node is this machine

cat >"$WORK/nodes.yaml" <<YAML
name: nodes
kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]
defaults: {bind_to: core, threads: 1}
layouts:
  - {name: one-per-node, np: 2, nodes: 2, map_by: "ppr:1:node"}
  - {name: round-robin, np: $((2 * NC)), nodes: 2, map_by: node}
  - {name: block, np: $((NC + 1)), nodes: 2, map_by: core}
YAML
# node of each rank, by hand: ppr:1:node rank r on node r+1; round robin
# even ranks on bl1, odd on bl2; block: bl1 full (NC ranks), then bl2
want_nodes() {
    case $1 in
    0) echo "0 bl1"; echo "1 bl2" ;;
    1) for r in $(seq 0 $((2 * NC - 1))); do echo "$r bl$((r % 2 + 1))"; done ;;
    2) for r in $(seq 0 $((NC - 1))); do echo "$r bl1"; done; echo "$NC bl2" ;;
    esac
}
MAPS=("ppr:1:node" node core)
NPS=(2 $((2 * NC)) $((NC + 1)))
PPNS=(1 1 "$NC")

# Open MPI's mapper agrees with the hand-worked nodes
for i in 0 1 2; do
    "$BINDLAB" plan --topology "pack:1 core:$NC pu:1" -np "${NPS[$i]}" --nodes 2 \
        --map-by "${MAPS[$i]}" --format tsv 2>/dev/null </dev/null |
        awk -F'\t' 'NR > 1 { print $2, "bl" $1 }' | sort -n >"$WORK/ompi.nodes" || fail "plan ${MAPS[$i]}"
    want_nodes "$i" | diff - "$WORK/ompi.nodes" || fail "Open MPI's plan of ${MAPS[$i]}: other nodes"
done
echo "ok: Open MPI's mapper puts the ranks on the nodes worked out by hand"

GENV="-genv OMP_NUM_THREADS 1 -genv OMP_DISPLAY_AFFINITY true -genv OMP_AFFINITY_FORMAT 'bindlab-omp host=%H pid=%P thread=%n affinity=%A'"
tested=0
for name in mpich impi; do
    bl_require_mpi "$name" || fail "$name: cannot be had"
    prefix=$BL_MPI_PREFIX
    app="$BINDLAB_APP --kernel triad --size 4MiB --iters 2 --warmup 0 --init parallel --out $WORK/res/nodes.d/app"
    PATH=$prefix/bin:$PATH "$BINDLAB" sweep --dry-run --launcher "$name" --app "$BINDLAB_APP" \
        --results "$WORK/res" "$WORK/nodes.yaml" >"$WORK/dry.all" 2>&1 ||
        { cat "$WORK/dry.all"; fail "$name: dry run failed"; }
    grep -v '^#' "$WORK/dry.all" >"$WORK/dry.out"
    for i in 0 1 2; do
        if [ "$name" = mpich ]; then
            echo "env HYDRA_TOPO_DEBUG=1 mpiexec -l -hosts bl1,bl2 -np ${NPS[$i]} -ppn ${PPNS[$i]} -bind-to core -map-by core $GENV $app/r000$i.h5"
        else
            echo "mpiexec -bootstrap slurm -hosts bl1,bl2 -np ${NPS[$i]} -ppn ${PPNS[$i]} -genv I_MPI_PIN_DOMAIN core -genv I_MPI_PIN_ORDER compact -genv I_MPI_DEBUG 4 $GENV $app/r000$i.h5"
        fi
    done >"$WORK/dry.want"
    diff -u "$WORK/dry.want" "$WORK/dry.out" || fail "$name: the dry run's lines differ from docs/launchers.md"
    echo "ok: $name: nodes: 2 spelled -hosts bl1,bl2 -ppn 1 / 1 / $NC"

    # what it cannot say is refused before anything runs, with the reason
    printf 'name: pe\nkernels: [triad]\nlayouts:\n  - {np: 2, nodes: 2, map_by: "core:PE=%s", threads: 1}\n' \
        "$NC" >"$WORK/pe.yaml"
    PATH=$prefix/bin:$PATH "$BINDLAB" sweep --dry-run --launcher "$name" --app "$BINDLAB_APP" \
        --results "$WORK/res" "$WORK/pe.yaml" >"$WORK/pe.out" 2>&1 && fail "$name: core:PE over nodes accepted"
    grep -q "counts ranks, not cores; give ppr:N:node:PE=$NC" "$WORK/pe.out" ||
        { cat "$WORK/pe.out"; fail "$name: core:PE over nodes: no reason"; }
    echo "ok: $name: core:PE=$NC over nodes refused with the reason"

    # Hydra itself: the same -hosts/-ppn started (fork launcher), each
    # rank's host as Hydra gave it. Intel MPI's fork bootstrap does not
    # start on made-up hosts, so only MPICH's.
    [ "$name" = mpich ] || { tested=$((tested + 1)); continue; }
    for i in 0 1 2; do
        # -l: every output line starts with its rank, "[3] PMI_HOSTNAME=bl2"
        "$prefix/bin/mpiexec" -launcher fork -l -hosts bl1,bl2 -np "${NPS[$i]}" -ppn "${PPNS[$i]}" \
            -bind-to none /usr/bin/env </dev/null >"$WORK/env.out" 2>&1 ||
            { tail "$WORK/env.out"; fail "mpich: mpiexec -launcher fork failed"; }
        sed -n 's/^\[\([0-9]*\)\] PMI_HOSTNAME=\(.*\)$/\1 \2/p' "$WORK/env.out" |
            sort -n >"$WORK/hydra.nodes"
        want_nodes "$i" | diff - "$WORK/hydra.nodes" ||
            fail "mpich: -ppn ${PPNS[$i]} -np ${NPS[$i]} puts ranks elsewhere than ${MAPS[$i]} over 2 nodes"
    done
    echo "ok: mpich: Hydra's -hosts/-ppn put every rank on the node Open MPI's mapper does"

    # A real sweep of nodes: 2 layouts, both "nodes" here (HYDRA_LAUNCHER=
    # fork): each rank's binding line, labelled by -l with its rank, must
    # be read as that rank's (the checks table: every rank, claimed = seen);
    # without the label rank 1 would take local process 0's line.
    tree=${BINDLAB_MPI_BUILD_PREFIX:-$SRC/build-mpi}-mpich
    bl_build_mpi_app "$SRC" "$prefix" "$tree" "$WORK/build-mpich.log" ||
        fail "mpich: building bindlab-app failed"
    cat >"$WORK/real.yaml" <<'YAML'
name: real
kernels: [{name: stencil, grid: 128x128, iters: 2, warmup: 0}]
defaults: {threads: 1, timeout: 120, bind_to: core}
layouts:
  - {name: ppr1, np: 2, nodes: 2, map_by: "ppr:1:node"}
  - {name: cyclic, np: 4, nodes: 2, map_by: node}
YAML
    PATH=$prefix/bin:$PATH HYDRA_LAUNCHER=fork "$BINDLAB" sweep --launcher mpich --oversubscribe \
        --app "$tree/bindlab-app" --results "$WORK/real" "$WORK/real.yaml" >"$WORK/real.out" 2>&1 ||
        { cat "$WORK/real.out"; fail "mpich: the nodes: 2 sweep failed"; }
    /usr/bin/python3 - "$WORK/real/real.h5" <<'PY' || fail "mpich: a rank's binding line was read as another's"
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    runs = f["runs"]
    assert len(runs) == 2, len(runs)
    for k in runs:
        r = runs[k]; a = r.attrs
        np = 2 if s(a["name"]) == "ppr1" else 4
        assert s(a["status"]) == "ok", (k, s(a["status"]))
        assert int(a["layout_nodes"]) == 2, k
        assert "binding-mismatch" not in s(a["flags"]), (k, s(a["flags"]))
        checks = r["checks"][()]
        assert sorted(int(c["rank"]) for c in checks) == list(range(np)), (k, checks)
        assert all(c["matches"] == 1 and s(c["source"]) == "launcher" for c in checks), (k, checks)
        print(k, s(a["name"]), "ok:", np, "ranks, each with its own Hydra line")
PY
    echo "ok: mpich: a real nodes: 2 sweep reads each rank's labelled binding line"
    tested=$((tested + 1))
done
[ "$tested" = 2 ] || fail "tested $tested MPIs, want 2"
