#!/bin/bash
# Golden outputs of the verbs that do not need Open MPI's mapper: report,
# report --csv, merge (its messages and the merged file's object list) and
# slurm (its messages and the scripts it writes). Each tests/fixtures/golden/
# NAME.out is paired with its input by name: report-* and merge-* read the
# sweep that tests/report_fixture writes (a fixed, made-up triad+stencil
# sweep), slurm-* read tests/fixtures/slurm/small.yaml with fixed options.
# Paths that depend on where the tree and the build are become SRC, BUILD
# and TMP, so the files are the same on every machine. (Plan goldens:
# test_plan_golden.sh, tied to one Open MPI version.)
#
# BINDLAB_UPDATE_GOLDEN=1 ctest -R verb_goldens rewrites the files from the
# current output, as test_plan_golden.sh does: it passes when nothing
# changed; otherwise it records the commit in golden/SOURCE, prints the diff
# and FAILS until the new files are reviewed and committed with the change
# that caused them (docs/testing.md).
set -u
: "${BINDLAB:?run through ctest}" "${BINDLAB_APP:?}" "${BINDLAB_BUILD_DIR:?}"
: "${BINDLAB_SOURCE_DIR:?}" "${BINDLAB_FIXTURES:?}"
G=$BINDLAB_FIXTURES/golden
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
source "$(dirname "$0")/common.sh"
# These checks run on after a failed command (they test exit statuses):
set +e +o pipefail
T=$WORK
[ -x "$FIXTURE" ] || fail "$FIXTURE not built (tests/CMakeLists.txt builds it)"
command -v h5ls >/dev/null || { echo "SKIP: no h5ls (hdf5-tools) for the merged file's list"; exit 77; }

update=${BINDLAB_UPDATE_GOLDEN:-}
if [ -n "$update" ]; then
    git -C "$BINDLAB_SOURCE_DIR" rev-parse HEAD >/dev/null 2>&1 ||
        fail "BINDLAB_UPDATE_GOLDEN needs a git checkout to show what changed"
    mkdir -p "$G"
fi

SRC=$(cd "$BINDLAB_SOURCE_DIR" && pwd -P)
BUILD=$(cd "$(dirname "$BINDLAB")" && pwd -P)
APP=$(cd "$(dirname "$BINDLAB_APP")" && pwd -P)/$(basename "$BINDLAB_APP")
TMP=$(cd "$T" && pwd -P)
# Machine-dependent paths as names (longest first: TMP may lie in SRC).
normalise() {
    sed -e "s|$APP|BUILD/bindlab-app|g" -e "s|$BUILD|BUILD|g" \
        -e "s|$TMP|TMP|g" -e "s|$SRC|SRC|g"
}

# golden NAME FILES -- ARGS...: `bindlab ARGS` run in $TMP/work; its exit
# status, stdout, stderr, then each of FILES (relative to the work dir)
# must equal $G/NAME.out.
golden() {
    local name=$1 rc files=() f
    shift
    while [ "$1" != "--" ]; do files+=("$1"); shift; done
    shift
    (cd "$TMP/work" && "$BINDLAB" "$@" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
    { echo "# bindlab $*; exit $rc"
      echo "== stdout"; cat "$TMP/stdout"
      echo "== stderr"; cat "$TMP/stderr"
      for f in "${files[@]}"; do
          echo "== $f"
          if [ "${f%.h5}" != "$f" ]; then
              (cd "$TMP/work" && h5ls -r "$f")
          else
              cat "$TMP/work/$f"
          fi
      done; } | normalise >"$TMP/$name.out"
    if [ -n "$update" ]; then
        cp "$TMP/$name.out" "$G/$name.out"
        return
    fi
    [ -f "$G/$name.out" ] || fail "$name: no golden file $G/$name.out"
    diff -u "$G/$name.out" "$TMP/$name.out" >"$TMP/diff" ||
        { cat "$TMP/diff" >&2; fail "$name: output differs from $G/$name.out"; }
}

mkdir -p "$TMP/work/sweep.d" "$TMP/work/other.d" "$TMP/bin"
"$FIXTURE" "$TMP/work/sweep.d" >/dev/null || fail "report_fixture"
"$FIXTURE" "$TMP/work/other.d" other >/dev/null || fail "report_fixture other"

# merge: the 12 runs, then the same with a conflicting r0000 from another
# sweep (kept once, with its warning).
golden merge-fixture merged.h5 -- merge -o merged.h5 sweep.d
golden merge-fixture-conflict -- merge -o dup.h5 sweep.d other.d/r0000.h5

# report on the merged file: the table, CSV, one kernel sorted by label.
golden report-fixture -- report merged.h5
golden report-fixture-csv -- report merged.h5 --csv
golden report-fixture-stencil-label -- report merged.h5 --kernel stencil \
    --sort label

# slurm: no cluster (a sinfo that always fails, so a real one on PATH cannot
# change the output), the node shape given, every #SBATCH option set.
printf '#!/bin/sh\necho "sinfo: error: no cluster (test_verb_goldens.sh)" >&2\nexit 1\n' \
    >"$TMP/bin/sinfo"
chmod +x "$TMP/bin/sinfo"
export PATH="$TMP/bin:$PATH"
unset SLURM_CONF
SMALL=$SRC/tests/fixtures/slurm/small.yaml
golden slurm-small out/small.sbatch -- slurm "$SMALL" --partition compute \
    --account proj42 --time 00:30:00 --module openmpi/4.1 \
    --topology "pack:2 core:4 pu:2" --results "$TMP/work/results" \
    --app "$APP" -o out/small.sbatch
golden slurm-small-array-srun out/array.sbatch out/array.merge.sbatch -- \
    slurm "$SMALL" --array=2 --launcher srun --nodes 1 \
    --topology "pack:1 core:2 pu:1" --results "$TMP/work/results" \
    --app "$APP" -o out/array.sbatch

if [ -n "$update" ]; then
    cd "$SRC" || fail "no source dir"
    golden_review "$G" "# Made by tests/integration/test_verb_goldens.sh (BINDLAB_UPDATE_GOLDEN=1)."
fi
outs=("$G"/*.out)
echo "ok: ${#outs[@]} verb goldens"
