#!/usr/bin/env bash
# bindlab plan --nodes N under Open MPI 5 (PRRTE's mapper, from
# scripts/mpis.sh): the same layouts and hand-worked answers as
# test_plan_nodes.sh (plan_nodes_common.sh). Exit 77 only when Open MPI 5
# cannot install.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
MPI_DIR=${BINDLAB_MPI_DIR:-$BINDLAB_SOURCE_DIR/build-mpi}
# shellcheck source=scripts/mpis.sh
source "$BINDLAB_SOURCE_DIR/scripts/mpis.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prefix=$MPI_DIR/ompi5
if ! bl_mpi_installed "$prefix"; then
    BL_MPIS=(ompi5)
    bl_install_mpis "$MPI_DIR" ||
        { echo "SKIP: ${BL_MPI_PACKAGES[ompi5]} did not install into $prefix"; exit 77; }
fi
export PATH=$prefix/bin:$PATH
mpirun --version | head -1 | grep -q '(Open MPI) 5\.' || fail "PATH's mpirun is not Open MPI 5"
# shellcheck source=tests/integration/plan_nodes_common.sh
source "$(dirname "$0")/plan_nodes_common.sh"
case_round_robin
case_ppr_node_pe
case_ppr_package
case_block
case_text
case_sweep
[ "$checked" = 5 ] || fail "checked $checked, expected 5"
