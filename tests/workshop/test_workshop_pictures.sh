#!/usr/bin/env bash
# The workshop's pictures and maps (docs/workshop/img/) are what
# scripts/workshop-pictures.sh makes now: regenerated into a temporary
# folder with the bindlab under test and compared byte for byte. Every
# picture the exercises show exists. Made with one Open MPI (img/SOURCE):
# skipped, saying so, under another, whose mapper may place differently.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
src=$BINDLAB_SOURCE_DIR
img=$src/docs/workshop/img
: "${BINDLAB:?run through ctest}"
want=$(sed -n 2p "$img/SOURCE")
have=$(mpirun --version 2>/dev/null | head -n 1)
if [ "$want" != "$have" ]; then
    echo "SKIP: the pictures were made with '$want', this machine has '${have:-no mpirun}'"
    exit 77
fi
command -v lstopo >/dev/null || command -v lstopo-no-graphics >/dev/null ||
    fail "lstopo missing (hwloc): scripts/deps.sh installs it"

BINDLAB=$BINDLAB "$src/scripts/workshop-pictures.sh" "$WORK/img" >/dev/null
if ! diff -r "$img" "$WORK/img" >"$WORK/diff"; then
    diff -rq "$img" "$WORK/img" >&2 || true
    head -n 40 "$WORK/diff" >&2
    fail "docs/workshop/img/ is stale: run scripts/workshop-pictures.sh and commit the result"
fi
# Every picture an exercise shows is one the script makes.
n=0
for ref in $(grep -oh 'img/[A-Za-z0-9_.-]*\.\(svg\|txt\)' "$src"/docs/workshop/*.md | sort -u); do
    [ -f "$WORK/$ref" ] || fail "docs/workshop shows $ref, which scripts/workshop-pictures.sh does not make"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no picture referenced from docs/workshop/*.md"
echo "ok: $(ls "$WORK/img" | wc -l) files of docs/workshop/img/ up to date, $n referenced"
