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
