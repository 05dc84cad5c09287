# Shared by the test_plan_*.sh scripts: paths, a temp dir, fail, and the
# Open MPI check. Sourced, not run.
set -u
: "${BINDLAB:?BINDLAB not set (is the bindlab target built?)}"
: "${BINDLAB_SOURCE_DIR:?}" "${BINDLAB_FIXTURES:?}"
G=$BINDLAB_FIXTURES/plan/golden
source "$(dirname "$0")/common.sh"
# These checks run on after a failed command (they test exit statuses):
set +e +o pipefail
T=$WORK
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Paths in the output are relative to the source tree, as users type them.
cd "$BINDLAB_SOURCE_DIR" || fail "no source dir"
EPYC=configs/topologies/AMD-19h-Zen4-2xEpyc-9654.xml
XEON=configs/topologies/Intel-CascadeLake-2xXeon6230.xml
SKYLAKE=configs/topologies/Intel-Skylake-2xXeon6140.xml
NPS4="pack:2 numa:4 l3:2 core:8 pu:2"

# need_openmpi: sets OMPI_VERSION ("4.1.4"), or exits 77 saying why there
# is none. A plan places ranks with the installed Open MPI's mapper.
need_openmpi() {
    local first
    command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
    first=$(mpirun --version 2>&1 | head -n 1) ||
        fail "mpirun --version failed: $first"
    case $first in
    *"(Open MPI) "*) OMPI_VERSION=${first##*(Open MPI) } ;;
    *) echo "SKIP: mpirun is '$first', not Open MPI; plans use Open MPI's mapper"
       exit 77 ;;
    esac
}

# one_line_exit2 NAME EXPECTED-WORDS ARGS...: `bindlab plan ARGS` exits 2
# with one line on stderr holding the words.
one_line_exit2() {
    local name=$1 words=$2 rc; shift 2
    "$BINDLAB" plan "$@" >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$T/err"))"
    [ "$(grep -cv '^(see ' "$T/err")" = 1 ] || fail "$name: not one line: $(cat "$T/err")"
    grep -qi -- "$words" "$T/err" || fail "$name: '$words' not in: $(cat "$T/err")"
}
