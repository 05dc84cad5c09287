#!/usr/bin/env bash
# bindlab plan --nodes N under Open MPI 5 (PRRTE's mapper, from
# scripts/mpis.sh): the same layouts and hand-worked answers as
# test_plan_nodes.sh (plan_nodes_common.sh). Exit 77 only when Open MPI 5
# cannot install.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
# shellcheck source=scripts/mpis.sh
source "$BINDLAB_SOURCE_DIR/scripts/mpis.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bl_require_mpi ompi5 || exit 77
export PATH=$BL_MPI_PREFIX/bin:$PATH
mpirun --version | head -1 | grep -q '(Open MPI) 5\.' || fail "PATH's mpirun is not Open MPI 5"
# shellcheck source=tests/integration/plan_nodes_common.sh
source "$(dirname "$0")/plan_nodes_common.sh"
cases_openmpi
