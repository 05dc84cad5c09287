#!/bin/bash
# Output paths of bindlab-app --out and bindlab merge -o: only a regular file
# (or nothing) is replaced. A device, directory, FIFO, socket, a link to one
# of them or to nothing, or a missing directory is refused before any work
# (exit 2, one line naming the path) and left as it was. Also: options that
# the chosen kernel does not read are refused, not ignored.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
[ -x "$FIXTURE" ] || fail "report_fixture not built (it is part of the build)"

APP_ARGS=(--kernel triad --size 1MiB --iters 1 --warmup 0)

# refused WHY TARGET -- COMMAND...: exit 2, exactly one line on stderr that
# names TARGET and says WHY, no computation (the app prints its result line
# only after the run), and TARGET of the same type as before.
refused() {
    local why=$1 target=$2 before after rc=0
    shift 3
    before=$(stat -c %F "$target" 2>/dev/null || echo absent)
    "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
    after=$(stat -c %F "$target" 2>/dev/null || echo absent)
    [ "$rc" = 2 ] || fail "$* : exit $rc, expected 2 ($(cat "$WORK/err"))"
    [ "$(wc -l < "$WORK/err")" = 1 ] || fail "$* : not one line: $(cat "$WORK/err")"
    grep -qF -- "$target" "$WORK/err" || fail "$* : path not named: $(cat "$WORK/err")"
    grep -qF -- "$why" "$WORK/err" || fail "$* : expected '$why' in: $(cat "$WORK/err")"
    grep -q 'result' "$WORK/out" && fail "$* : computed before refusing"
    [ "$before" = "$after" ] || fail "$target was $before, now $after"
    return 0
}

# Targets. As root, a private character device (the same numbers as
# /dev/null), so a broken check cannot damage the real one; others cannot
# replace /dev/null at all, so they try the real one.
DEV=$WORK/null
if [ "$(id -u)" = 0 ] && mknod "$DEV" c 1 3 2>/dev/null; then :; else DEV=/dev/null; fi
mkdir "$WORK/adir"
mkfifo "$WORK/fifo"
ln -s "$DEV" "$WORK/link-to-dev"
ln -s "$WORK/nothing-here" "$WORK/dangling"
ln -s "$WORK/no-such-dir" "$WORK/dir-link"
echo "regular" > "$WORK/target"
ln -s "$WORK/target" "$WORK/link-to-file"
SOCK=""
if command -v python3 >/dev/null; then
    SOCK=$WORK/sock
    python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SOCK"
fi

mkdir "$WORK/sweep.d"
"$FIXTURE" "$WORK/sweep.d" || fail "report_fixture"

check_all() {  # check_all COMMAND-BEFORE-PATH... : the command takes the path last
    refused "character device" "$DEV" -- "$@" "$DEV"
    refused "a directory" "$WORK/adir" -- "$@" "$WORK/adir"
    refused "names a directory" "$WORK/adir/" -- "$@" "$WORK/adir/"
    refused "FIFO" "$WORK/fifo" -- "$@" "$WORK/fifo"
    refused "symbolic link to a character device" "$WORK/link-to-dev" -- "$@" "$WORK/link-to-dev"
    refused "symbolic link to nothing" "$WORK/dangling" -- "$@" "$WORK/dangling"
    refused "does not exist" "$WORK/no-such-dir/x.h5" -- "$@" "$WORK/no-such-dir/x.h5"
    refused "does not exist" "$WORK/dir-link/x.h5" -- "$@" "$WORK/dir-link/x.h5"
    refused "Not a directory" "$WORK/target/x.h5" -- "$@" "$WORK/target/x.h5"
    if [ -n "$SOCK" ]; then refused "socket" "$SOCK" -- "$@" "$SOCK"; fi
    # a directory this user may not write (root may write anywhere)
    if [ "$(id -u)" != 0 ]; then
        mkdir -p "$WORK/ro"; chmod 555 "$WORK/ro"
        refused "not writable" "$WORK/ro/x.h5" -- "$@" "$WORK/ro/x.h5"
    fi
    return 0
}

# --- bindlab-app --out -------------------------------------------------------
check_all "$BINDLAB_APP" "${APP_ARGS[@]}" --out

# A regular file is replaced; a link to one is replaced by the new file and
# the file it named is left alone.
"$BINDLAB_APP" "${APP_ARGS[@]}" --out "$WORK/target" > "$WORK/out" 2>&1 || fail "app onto a regular file: $(cat "$WORK/out")"
head -c 8 "$WORK/target" | od -c | grep -q 'H   D   F' || fail "the regular file was not replaced by an HDF5 file"
echo "regular" > "$WORK/target"
"$BINDLAB_APP" "${APP_ARGS[@]}" --out "$WORK/link-to-file" > "$WORK/out" 2>&1 || fail "app onto a link: $(cat "$WORK/out")"
[ "$(stat -c %F "$WORK/link-to-file")" = "regular file" ] || fail "the link was not replaced"
[ "$(cat "$WORK/target")" = regular ] || fail "the link's target was written through"
ln -sf "$WORK/target" "$WORK/link-to-file"

# --- bindlab merge -o --------------------------------------------------------
check_all "$BINDLAB" merge "$WORK/sweep.d" -o
"$BINDLAB" merge -o "$WORK/target" "$WORK/sweep.d" > "$WORK/out" 2>&1 || fail "merge onto a regular file: $(cat "$WORK/out")"
ls "$WORK" | grep -q '\.tmp\.' && fail "a temporary file was left: $(ls "$WORK")"

# --- options the kernel does not read ---------------------------------------
kernel_refuses() {  # kernel_refuses OPTION TAKERS -- ARGS...
    local option=$1 takers=$2 rc=0
    shift 3
    "$BINDLAB_APP" "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
    [ "$rc" = 2 ] || fail "$* : exit $rc, expected 2"
    grep -qF -- "$option" "$WORK/err" && grep -qF -- "$takers" "$WORK/err" \
        || fail "$* : expected $option and '$takers' in: $(cat "$WORK/err")"
    [ "$(wc -l < "$WORK/err")" = 1 ] || fail "$* : not one line: $(cat "$WORK/err")"
    return 0
}
kernel_refuses --radius stencil -- --kernel triad --radius 3
kernel_refuses --n lu -- --kernel stencil --n 64
kernel_refuses --size "triad, stencil" -- --kernel lu --size 1MiB
echo "output safety: all checks passed"
