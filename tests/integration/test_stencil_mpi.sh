#!/usr/bin/env bash
# bindlab-app --kernel stencil under real mpirun: 1, 2 and 4 ranks
# (oversubscribed) x 1 and 2 threads verify with one checksum; both --init
# modes and --overlap verify; a tile smaller than R is exit 2 with the
# sizes; deliberate faults (--test-hook: wrong halo cell, wrong
# decomposition, borders computed before the halos arrive) fail
# verification with exit 1; the run file holds per-rank metrics.
set -u
: "${BINDLAB_APP:?}"
command -v mpirun > /dev/null || { echo "no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NP THREADS ARGS...: sets $rc and $out (stdout+stderr)
run() {
    local np=$1 th=$2
    shift 2
    out=$(OMP_NUM_THREADS=$th mpirun -np "$np" --oversubscribe --bind-to none \
          "$BINDLAB_APP" --kernel stencil "$@" 2>&1)
    rc=$?
}
field() { sed -n "s/^bindlab-app: result .* $1=\([^ ]*\).*/\1/p" <<< "$out"; }

# An awkward grid: primes, remainders on every decomposition used here.
base=(--grid 211x157 --radius 3 --iters 3 --warmup 1)
ref=""
for np in 1 2 4; do
    for th in 1 2; do
        run "$np" "$th" "${base[@]}" --out "$tmp/r$np-$th.h5"
        [ "$rc" = 0 ] || fail "np=$np threads=$th exit $rc: $out"
        [ "$(field verified)" = yes ] || fail "np=$np threads=$th not verified"
        c=$(field checksum)
        [ -n "$c" ] || fail "np=$np threads=$th: no checksum in: $out"
        [ -z "$ref" ] && ref=$c
        [ "$c" = "$ref" ] || fail "np=$np threads=$th checksum $c != $ref"
    done
done
# The exact mean after 4 steps: 105 + 2 * 78 + 3 * 4 = 273.
[ "$ref" = 273 ] || fail "checksum $ref, expected the exact mean 273"

for init in serial parallel; do
    run 2 2 "${base[@]}" --init "$init"
    [ "$rc" = 0 ] && [ "$(field verified)" = yes ] || fail "--init $init: $out"
    [ "$(field checksum)" = "$ref" ] || fail "--init $init checksum differs"
done
for np in 2 4; do
    run "$np" 2 "${base[@]}" --overlap
    [ "$rc" = 0 ] && [ "$(field verified)" = yes ] || fail "--overlap np=$np: $out"
    [ "$(field checksum)" = "$ref" ] || fail "--overlap np=$np checksum differs"
done

# Per-rank metrics in the run file (4 ranks -> 4 halo_fraction rows).
if /usr/bin/python3 -c 'import h5py' 2> /dev/null; then
    /usr/bin/python3 - "$tmp/r4-2.h5" << 'EOF' || fail "metrics table"
import sys, h5py
m = h5py.File(sys.argv[1], "r")["run/metrics"][()]
rows = [(int(r), n.decode(), v) for r, n, v, u in m]
halo = {r: v for r, n, v in rows if n == "halo_fraction"}
comp = {r: v for r, n, v in rows if n == "compute_fraction"}
assert sorted(halo) == [0, 1, 2, 3], halo
assert all(abs(halo[r] + comp[r] - 1) < 1e-9 for r in halo)
assert all(v == 15.0 for r, n, v in rows if n == "flops_per_point")
EOF
fi

# A tile smaller than R: 9 rows over 3 ranks are tiles of 3 < 4.
run 3 1 --grid 50x9 --radius 4 --out "$tmp/small.h5"
[ "$rc" = 2 ] || fail "small tile: exit $rc, expected 2: $out"
grep -q "50x9" <<< "$out" && grep -q "50x3 cells" <<< "$out" &&
    grep -q -- "--radius 4" <<< "$out" || fail "small tile message: $out"
[ -e "$tmp/small.h5" ] && fail "small tile: a run file was written"

# Deliberate faults must fail verification (exit 1, verified=no).
for np in 2 4; do
    for hook in "1" "2" "3 --overlap"; do
        # shellcheck disable=SC2086
        run "$np" 2 --grid 1200 --iters 4 --warmup 1 --test-hook $hook
        [ "$rc" = 1 ] && [ "$(field verified)" = no ] ||
            fail "np=$np --test-hook $hook: exit $rc, expected a wrong answer: $out"
    done
done

[ "$fails" = 0 ] && echo "stencil integration: all passed"
exit $((fails > 0))
