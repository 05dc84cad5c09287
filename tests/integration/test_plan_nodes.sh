#!/usr/bin/env bash
# bindlab plan --nodes N with the mpirun in PATH (Debian's Open MPI 4):
# plan_nodes_common.sh has the layouts and how each answer was worked out.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --version 2>/dev/null | head -1 | grep -q 'Open MPI' ||
    fail "the mpirun in PATH is not Open MPI (scripts/deps.sh installs it)"
# shellcheck source=tests/integration/plan_nodes_common.sh
source "$(dirname "$0")/plan_nodes_common.sh"
cases_openmpi

# --nodes 0 is refused, saying why
"$BINDLAB" plan -np 2 --nodes 0 >"$WORK/zero" 2>&1 && fail "--nodes 0 accepted"
grep -q "nodes '0'" "$WORK/zero" || { cat "$WORK/zero"; fail "--nodes 0: no reason given"; }
