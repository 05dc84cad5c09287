#!/usr/bin/env bash
# A process that execs, under libbindlab-probe.so (no launcher: the probe
# alone, then the reader). An exec runs no destructor, so each image's
# file stays a ".part"; the probe of the next image must not truncate it
# nor leave it to be read as a second process. The last image's file ends
# with the probe's own cost (its "cost" line) before "end".
#   (a) sh execs sh, which execs true, on one host: the first two images'
#       files are finished with an "exec" line naming the next image and
#       set aside as .exec1, .exec2; true's file is the process's; the
#       reader reads one process (the other two are earlier images).
#   (b) the same with the host renamed between the images (a UTS namespace
#       of its own, unshare --uts): the image before the rename left a
#       file under the old host name, which the next image cannot find;
#       the reader pairs it by pid and start time: still one process, on
#       the new host. The child that ran hostname (its probe started before
#       the rename) is a process of its own.
. "$(dirname "$0")/common.sh"

B=$BINDLAB_BUILD_DIR
PROBE=$B/libbindlab-probe.so
DUMP=$B/tests/probe_dump
[ -f "$PROBE" ] && [ -x "$DUMP" ] || fail "libbindlab-probe.so or tests/probe_dump not built"
unshare --uts true 2>/dev/null ||
    { echo "SKIP: a renamed host needs a UTS namespace (root, unshare --uts)"; exit 77; }
TRUE=$(type -P true)  # the program, not the builtin
SH=$(type -P sh)
cd "$WORK"

# probed DIR ARGS...: ARGS with the probe preloaded, its files into DIR
probed() {
    local dir=$1
    shift
    mkdir -p "$dir"
    env LD_PRELOAD="$PROBE" BINDLAB_PROBE_DIR="$WORK/$dir" "$@" || fail "($dir) exit $?"
    "$DUMP" "$dir" >"$dir.dump" 2>"$dir.err" || fail "($dir) unreadable: $(cat "$dir.err")"
}
# last_image DUMP PID: the image lines of PID that are no earlier image
last_image() { awk -F'\t' -v p="$2" '$1 == "image" && $4 == p && $8 == 0' "$1"; }

# --- (a) one host ------------------------------------------------------------
probed a "$SH" -c "echo \$\$ >$WORK/a.pid; exec $SH -c 'exec $TRUE'"
pid=$(cat a.pid)
host=$(hostname)
[ -z "$(find a -name '*.part')" ] || fail "(a) .part files left: $(ls a)"
for k in 1 2; do
    f=a/bindlab-probe.$host.$pid.exec$k
    [ -f "$f" ] || fail "(a) no $f: $(ls a)"
    tail -1 "$f" | grep -qE '^exec unix=[0-9.]+ exe=/' || fail "(a) $f not finished by an exec line: $(tail -2 "$f")"
done
tail -1 "a/bindlab-probe.$host.$pid" | grep -q '^end ' || fail "(a) true's file not finished: $(ls a)"
# the probe's fixed work, timed (bench/probe_overhead.sh reads it): no MPI here
tail -2 "a/bindlab-probe.$host.$pid" | head -1 |
    grep -qE '^cost start_s=[0-9]+\.[0-9]{6} finalize_s=0\.000000 end_s=[0-9]+\.[0-9]{6}$' ||
    fail "(a) no cost line before the end: $(tail -3 "a/bindlab-probe.$host.$pid")"
[ "$(grep -c "^image" a.dump)" = 3 ] || fail "(a) not 3 images: $(cat a.dump)"
[ "$(last_image a.dump "$pid" | wc -l)" = 1 ] || fail "(a) not one process: $(cat a.dump)"
last_image a.dump "$pid" | awk -F'\t' -v t="$(readlink -f "$TRUE")" '$6 != t { exit 1 }' ||
    fail "(a) the process is not its last image ($TRUE): $(cat a.dump)"

# --- (b) the host renamed between two images ---------------------------------
probed b unshare --uts "$SH" -c "echo \$\$ >$WORK/b.pid; hostname bl-renamed && exec $SH -c 'exec $TRUE'"
pid=$(cat b.pid)
[ -f "b/bindlab-probe.$host.$pid.part" ] || fail "(b) no file of the image before the rename: $(ls b)"
[ "$(last_image b.dump "$pid" | wc -l)" = 1 ] || fail "(b) not one process: $(cat b.dump)"
last_image b.dump "$pid" | awk -F'\t' -v t="$(readlink -f "$TRUE")" '$3 != "bl-renamed" || $6 != t { exit 1 }' ||
    fail "(b) the process is not its last image, on the new host: $(cat b.dump)"
awk -F'\t' -v p="$pid" -v h="$host" '$1 == "image" && $4 == p && $3 == h && $8 != 1 { bad = 1 } END { exit bad }' b.dump ||
    fail "(b) an image on the old host read as a process: $(cat b.dump)"
awk -F'\t' -v p="$pid" '$1 == "image" && $4 != p && $6 ~ /\/hostname$/ && $8 == 0 { n++ } END { exit n != 1 }' b.dump ||
    fail "(b) the hostname child not one process of its own: $(cat b.dump)"
echo "test_probe_exec: ok"
