#!/usr/bin/env bash
# The results directory of a sweep is its own: results/NAME.d replaced by a
# symbolic link, or a link inside it (a log, the lock, the app's
# directory), is refused before anything is written, naming the link, and
# nothing appears where the link points. No run is launched.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
cd "$WORK"
printf 'name: s\nkernels:\n  - {name: triad, size: 1MiB, iters: 2, warmup: 0}\nlayouts:\n  - {np: 1, map_by: core, bind_to: core, threads: 1}\n' >s.yaml
mkdir -p elsewhere results

refused() { # WHAT LINK ARGS...: the sweep is refused naming LINK, elsewhere stays empty
    local what=$1 link=$2
    shift 2
    set +e
    "$BINDLAB" sweep s.yaml --results results "$@" >"$what.out" 2>&1
    rc=$?
    set -e
    cat "$what.out"
    [ "$rc" = 2 ] || fail "$what: exit $rc, expected 2"
    grep -qF "$link is a symbolic link (to $WORK/elsewhere" "$what.out" || fail "$what: the refusal does not name the link"
    [ -z "$(ls -A elsewhere)" ] || fail "$what: written through the link: $(ls -A elsewhere)"
    echo "ok: $what refused"
}

# results/s.d itself a link to a directory elsewhere
ln -s "$WORK/elsewhere" results/s.d
refused "a linked results directory" results/s.d --resume
rm results/s.d

# a link inside it, where the run's log, the lock or the app's files go
mkdir results/s.d
for name in r0000.log.part r0000.log .lock app; do
    ln -s "$WORK/elsewhere/$name" "results/s.d/$name"
    refused "a linked $name" "results/s.d/$name"
    rm "results/s.d/$name"
done
rm -rf results/s.d

# swapped for a link while the sweep runs: the launcher's wrapper moves
# results/s.d away and puts a link there when the first run has ended (the
# event, no sleep). The first run's log and record still land in the
# directory the sweep started in (the run ok: its app file read from there);
# the second run is refused naming the link.
real_mpirun=$(command -v mpirun)
cat >swap-launcher <<WRAP
#!/usr/bin/env bash
[ "\$1" = --version ] && exec "$real_mpirun" "\$@"
"$real_mpirun" "\$@"
rc=\$?
if [ ! -L "$WORK/results/s.d" ]; then
    mv "$WORK/results/s.d" "$WORK/results/s.real"
    ln -s "$WORK/elsewhere" "$WORK/results/s.d"
fi
exit \$rc
WRAP
chmod +x swap-launcher
printf 'name: s\nlauncher: %s\nkernels:\n  - {name: triad, size: 1MiB, iters: 2, warmup: 0}\nlayouts:\n  - {np: 1, map_by: core, bind_to: core, threads: 1, repetitions: 2}\n' "$WORK/swap-launcher" >s.yaml
refused "swapped mid-sweep" results/s.d --app "$BINDLAB_APP"
grep -qF "results/s.d is a symbolic link (to $WORK/elsewhere) (put there while the sweep ran)" "swapped mid-sweep.out" ||
    fail "swapped mid-sweep: the refusal does not say the link came during the sweep"
[ -f results/s.real/r0000.1.h5 ] && [ -f results/s.real/r0000.1.log ] ||
    fail "swapped mid-sweep: the first run's record or log is not where the sweep started: $(ls -A results/s.real)"
[ ! -e results/s.real/r0000.2.h5 ] || fail "swapped mid-sweep: the second run ran"
# the app's run file, written before the swap, is read from the held directory
grep -q '^\[1/2\] r0000.1 .*: ok ' "swapped mid-sweep.out" || fail "swapped mid-sweep: the first run is not ok"
echo "ok: a directory swapped for a link mid-sweep is refused, nothing written through it"
