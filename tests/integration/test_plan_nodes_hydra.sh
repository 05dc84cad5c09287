#!/usr/bin/env bash
# bindlab plan --nodes N under MPICH and Intel MPI (scripts/mpis.sh), the
# layouts Hydra can say (round robin by node, ppr:K:node:PE=n, a sweep's
# nodes: layouts) against the same hand-worked answers as
# test_plan_nodes.sh (plan_nodes_common.sh). MPICH: its own Hydra starts
# env as each rank on made-up hosts (fork launcher, -l), the node from each
# rank's PMI_HOSTNAME, the binding from Hydra's HYDRA_TOPO_DEBUG line;
# Intel MPI: modelled (its domains, Hydra's -ppn), as the plan says.
# Exit 77 only when neither installs.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
# shellcheck source=scripts/mpis.sh
source "$BINDLAB_SOURCE_DIR/scripts/mpis.sh"
# Every MPI or none, asked before the first check (no pass with one left out).
bl_require_mpis "" mpich impi || { echo "SKIP: (the MPIs above)"; exit 77; }
# shellcheck source=tests/integration/plan_nodes_common.sh
source "$(dirname "$0")/plan_nodes_common.sh"
tested=0
for name in mpich impi; do
    bl_require_mpi "$name" || fail "$name: cannot be had"
    prefix=$BL_MPI_PREFIX
    export PATH=$prefix/bin:$PATH
    PLAN_ARGS=(--launcher "$name")
    checked=0
    case_round_robin
    case_round_robin_384
    case_ppr_node_pe
    case_text
    case_sweep
    [ "$checked" = 4 ] || fail "$name: checked $checked, expected 4"
    # Hydra has no ppr over package: refused with the reason, exit 2
    rc=0
    "$BINDLAB" plan "${PLAN_ARGS[@]}" --topology "$sky" -np 4 --nodes 2 \
        --map-by ppr:1:package >"$WORK/pkg" 2>&1 || rc=$?
    if [ "$rc" != 2 ] || ! grep -q "no ppr over package" "$WORK/pkg"; then
        cat "$WORK/pkg"; fail "$name: ppr:1:package over nodes: exit $rc, want 2 with the reason"
    fi
    if [ "$name" = impi ]; then
        grep -q "modelled by bindlab" "$WORK/plan.err" || fail "impi: the plan does not say it is modelled"
    fi
    echo "ok: $name plans nodes"
    tested=$((tested + 1))
    export PATH=${PATH#"$prefix/bin:"}
done
[ "$tested" = 2 ] || fail "tested $tested MPIs, want 2"
