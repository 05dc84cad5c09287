#!/usr/bin/env bash
# An output that is one of the command's own inputs is refused before any
# work, with one line naming both and exit 2, and the input is left byte
# for byte as it was: `report X.h5 --html X.h5` must not replace the results
# with a page, `slurm s.yaml -o s.yaml` the sweep with a script. "The same
# file" is the same inode: the same name, ./NAME for NAME, and a hard link
# are all caught. What is expected comes from the files (cmp, stat), not
# from bindlab's words beyond the two names.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
unset SLURM_CONF
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
cd "$WORK"

mkdir runs xeon
"$FIXTURE" "$WORK/runs" >/dev/null || fail "report_fixture"
"$BINDLAB" merge -o X.h5 runs >/dev/null || fail "merge the fixture"
ln X.h5 hard.h5
cat >s.yaml <<'YAML'
name: onto
kernels: [{name: triad, size: 8MiB, iters: 2}]
layouts:
  - {np: 1}
YAML
ln s.yaml hard.yaml

# refused NAME OUT IN CMD...: CMD exits 2 with one line naming OUT and IN,
# and IN is unchanged.
refused() {
    local name=$1 out=$2 in=$3 rc=0
    shift 3
    cp -p "$in" "$in.before"
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = 2 ] || { cat out.txt err.txt; fail "$name: exit $rc, expected 2"; }
    [ "$(grep -cv -e '^bindlab slurm: note: ' -e '^(see ' err.txt)" = 1 ] ||
        { cat err.txt; fail "$name: not one line"; }
    grep -qF -- "$out" err.txt && grep -qF -- "$in" err.txt ||
        { cat err.txt; fail "$name: the line does not name '$out' and '$in'"; }
    cmp -s "$in" "$in.before" || fail "$name: the input $in was changed"
    rm -f "$in.before"
}

refused "report --html onto its input" X.h5 X.h5 "$BINDLAB" report X.h5 --html X.h5
refused "report --html ./NAME" ./X.h5 X.h5 "$BINDLAB" report X.h5 --html ./X.h5
refused "report --html a hard link" hard.h5 X.h5 "$BINDLAB" report X.h5 --html hard.h5
"$FIXTURE" "$WORK/xeon" xeon >/dev/null || fail "report_fixture xeon"
"$BINDLAB" merge -o Y.h5 xeon >/dev/null || fail "merge xeon"
refused "compare --html onto an input" Y.h5 Y.h5 "$BINDLAB" compare X.h5 Y.h5 --html Y.h5
refused "slurm -o onto the sweep file" s.yaml s.yaml \
    "$BINDLAB" slurm s.yaml --topology "pack:1 core:2 pu:1" --results "$WORK/results" -o s.yaml
refused "slurm -o a hard link of it" hard.yaml s.yaml \
    "$BINDLAB" slurm s.yaml --topology "pack:1 core:2 pu:1" --results "$WORK/results" -o hard.yaml
# --array writes a merge script named after -o: X -> X.merge
cp s.yaml arr.merge
refused "slurm --array, the merge script onto the sweep file" arr.merge arr.merge \
    "$BINDLAB" slurm arr.merge --array --topology "pack:1 core:2 pu:1" --results "$WORK/results" -o arr
[ ! -e arr ] || fail "slurm --array: the array script was written although the merge script was refused"
refused "sweep -o onto the sweep file" s.yaml s.yaml \
    "$BINDLAB" sweep s.yaml --dry-run --results "$WORK/results" -o s.yaml
refused "matrix show --svg onto its file" X.h5 X.h5 "$BINDLAB" matrix show X.h5 --svg X.h5

# A symbolic link as the output is replaced itself, not what it points to
# (atomic_file.h): that is allowed, and the input survives it.
ln -s X.h5 link.html
cp -p X.h5 X.before
"$BINDLAB" report X.h5 --html link.html >/dev/null || fail "report --html onto a link"
cmp -s X.h5 X.before || fail "report --html through a link changed the input"
[ -f link.html ] && [ ! -L link.html ] || fail "the link was not replaced by the page"

# An output that is another file is written as always.
"$BINDLAB" report X.h5 --html page.html >/dev/null || fail "report --html page.html"
[ -s page.html ] || fail "no page written"
echo "PASS"
