#!/bin/bash
# A full disk, for real: a 64 KiB tmpfs. With a few KB free and with none,
# bindlab-app --out, bindlab merge -o and the sweep's per-run writer
# (through report_fixture, which uses it) must exit 1 with "no space left on
# device", leave no temporary, keep an existing output unchanged, and not
# crash (HDF5 1.10 used to segfault at exit after a failed close).
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
[ -x "$FIXTURE" ] || fail "report_fixture not built (it is part of the build)"

FULL=$WORK/full
mkdir "$FULL"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: mounting a tmpfs needs root (uid $(id -u))"; exit 77
fi
if ! mount -t tmpfs -o size=64k,mode=0755 tmpfs "$FULL" 2> "$WORK/mount.err"; then
    echo "SKIP: cannot mount a tmpfs here: $(cat "$WORK/mount.err")"; exit 77
fi
trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT

APP_ARGS=(--kernel triad --size 1MiB --iters 1 --warmup 0)
mkdir "$WORK/sweep.d"
"$FIXTURE" "$WORK/sweep.d" || fail "report_fixture"

# fill_to KB: leaves about KB kilobytes free on the tmpfs.
fill_to() {
    rm -f "$FULL/filler"
    local avail
    avail=$(df -k --output=avail "$FULL" | tail -1 | tr -d ' ')
    if [ "$avail" -gt "$1" ]; then
        head -c $(( (avail - $1) * 1024 )) /dev/zero > "$FULL/filler" 2>/dev/null || true
    fi
    # 0: fill to the last byte, whatever the block rounding
    [ "$1" = 0 ] && { cat /dev/zero >> "$FULL/filler" 2>/dev/null || true; }
    return 0
}

# no_space WHAT -- COMMAND...: exit 1 (not a signal), the reason in words,
# no temporary left on the tmpfs.
no_space() {
    local what=$1 rc=0
    shift 2
    "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
    [ "$rc" = 1 ] || fail "$what: exit $rc, expected 1 ($(cat "$WORK/err"))"
    grep -qi "no space left on device" "$WORK/err" || fail "$what: no 'no space left on device' in: $(cat "$WORK/err")"
    grep -qi "segmentation\|Sanitizer\|runtime error" "$WORK/err" && fail "$what: crashed: $(cat "$WORK/err")"
    ls -A "$FULL" | grep -q '\.tmp\.' && fail "$what: temporary left: $(ls -A "$FULL")"
    return 0
}

# An existing merged file that a failed merge must leave unchanged.
"$BINDLAB" merge -o "$FULL/kept.h5" "$WORK/sweep.d/r0000.h5" > /dev/null || fail "first merge on the empty tmpfs"
sum_before=$(cksum < "$FULL/kept.h5")

for free_kb in 8 0; do
    fill_to "$free_kb"
    # Under mpirun, not as an MPI singleton: a singleton's exit makes
    # LeakSanitizer's scan crash here (the ASan pass), whatever the app did.
    no_space "app, ${free_kb} KB free" -- "${MPIRUN[@]}" -np 1 "$BINDLAB_APP" "${APP_ARGS[@]}" --out "$FULL/run.h5"
    [ -e "$FULL/run.h5" ] && fail "app, ${free_kb} KB free: a run file appeared"
    # it computed first (the path was fine), then could not write
    grep -q 'result' "$WORK/out" || fail "app, ${free_kb} KB free: no result line"
    no_space "merge to a new file, ${free_kb} KB free" -- "$BINDLAB" merge -o "$FULL/new.h5" "$WORK/sweep.d"
    [ -e "$FULL/new.h5" ] && fail "merge, ${free_kb} KB free: a partial file appeared"
    no_space "merge over a file, ${free_kb} KB free" -- "$BINDLAB" merge -o "$FULL/kept.h5" "$WORK/sweep.d"
    [ "$(cksum < "$FULL/kept.h5")" = "$sum_before" ] || fail "merge, ${free_kb} KB free: the old file changed"
    mkdir -p "$FULL/d$free_kb" 2>/dev/null || true
    if [ -d "$FULL/d$free_kb" ]; then
        no_space "sweep per-run writer, ${free_kb} KB free" -- "$FIXTURE" "$FULL/d$free_kb"
        ls -A "$FULL/d$free_kb" | grep -q '\.tmp\.' && fail "per-run writer: temporary left"
    fi
done
# the old file still reads
rm -f "$FULL/filler"
"$BINDLAB" report "$FULL/kept.h5" > /dev/null || fail "the kept file no longer reads"
echo "full disk: all checks passed"
