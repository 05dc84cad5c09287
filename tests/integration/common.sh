# Shared by the integration scripts: the mpirun command for this machine and
# small assertions. Sourced, not run.
set -euo pipefail

: "${BINDLAB_APP:?run through ctest}" "${BINDLAB_BUILD_DIR:?run through ctest}"

# Root needs --allow-run-as-root; more ranks than cores need --oversubscribe.
MPIRUN=(mpirun --oversubscribe)
if [ "$(id -u)" = 0 ]; then MPIRUN+=(--allow-run-as-root); fi

RUNFILE_DUMP="$BINDLAB_BUILD_DIR/tests/runfile_dump"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_line FILE LINE: FILE has LINE as a whole line.
expect_line() {
    grep -qxF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "expected line '$2' in $1"; }
}
