#!/usr/bin/env bash
# bindlab-app --kernel lu under real mpirun: 1, 2 and 4 ranks on 1x1, 1x2,
# 2x1, 2x2 and 4x1 grids x 1 and 2 threads, N not a multiple of NB, all pass
# HPL's residual check with one solution (checksum ||x||_1 equal to 1e-9);
# the wrong-pivot test hook fails the check (exit 1, verified=no, file
# written); a singular matrix is a status, not a crash; bad input is exit 2
# with one line naming the option and no run file; the per-rank time
# split in the run file adds up to each rank's step time.
set -u
: "${BINDLAB_APP:?}"
command -v mpirun > /dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source "$(dirname "$0")/common.sh"
# These checks run on after a failed command (they test exit statuses),
# each miss counted by bad (common.sh):
set +e +o pipefail
tmp=$WORK

# run NP THREADS ARGS...: sets $rc and $out (stdout+stderr); run_kernel, common.sh
run() { run_kernel lu "$@"; }
field() { result - "$1" <<< "$out"; }
# same_within A B REL: |A - B| <= REL * |B|
same_within() { awk -v a="$1" -v b="$2" -v r="$3" \
    'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }

base=(--n 203 --nb 16 --seed 11 --iters 2 --warmup 1)
ref=""
for layout in "1 1x1" "2 1x2" "2 2x1" "4 2x2" "4 4x1"; do
    read -r np grid <<< "$layout"
    for th in 1 2; do
        what="np=$np grid=$grid threads=$th"
        run "$np" "$th" "${base[@]}" --grid "$grid" --out "$tmp/ok.h5"
        [ "$rc" = 0 ] || bad "$what: exit $rc: $out"
        [ "$(field verified)" = yes ] || bad "$what: not verified: $out"
        e=$(field error)
        awk -v e="$e" 'BEGIN { exit !(e >= 0 && e < 16) }' \
            || bad "$what: scaled residual '$e' not in [0, 16)"
        [ "$(field unit)" = GFLOP/s ] || bad "$what: unit '$(field unit)'"
        c=$(field checksum)
        [ -n "$c" ] || { bad "$what: no checksum in: $out"; continue; }
        [ -z "$ref" ] && ref=$c
        same_within "$c" "$ref" 1e-9 || bad "$what: checksum $c != $ref"
    done
done

# The time split in the run file (/run/time_split): for each rank of a 1x2
# and a 2x1 grid with 2 threads, six phases (panel bcast swap update wait
# solve) that add up to the rank's total_s (they tile it in whole
# nanoseconds; printed as exact doubles, only the rounding of six
# conversions and sums is left, under 1e-14 of it),
# and that total inside the app's own timing of the same (last) iteration
# on that rank, which runs from before the step to after it.
for grid in 1x2 2x1; do
    run 2 2 "${base[@]}" --grid "$grid" --out "$tmp/split.h5"
    [ "$rc" = 0 ] || { bad "split $grid: exit $rc: $out"; continue; }
    "$BINDLAB_BUILD_DIR/tests/runfile_results" "$tmp/split.h5" | awk '
        $1 == "timing" { last[$3] = $4 }
        $1 == "split" { n[$2]++; sum[$2] += $4; tot[$2] = $5; names[$2] = names[$2] " " $3 }
        END {
            for (r = 0; r < 2; r++) {
                if (names[r] != " panel bcast swap update wait solve") { print "rank " r " phases:" names[r]; bad = 1 }
                d = sum[r] - tot[r]; if (d < 0) d = -d
                if (!(tot[r] > 0) || d > 1e-14 * tot[r]) { print "rank " r " sum " sum[r] " total " tot[r]; bad = 1 }
                if (!(tot[r] <= last[r] + 1e-6)) { print "rank " r " total " tot[r] " > timing " last[r]; bad = 1 }
            }
            exit bad
        }' || bad "time split of $grid does not add up"
done

# NB larger than N, and NB 1 on an awkward grid
run 2 1 --n 37 --nb 64 --grid 2x1
[ "$rc" = 0 ] || bad "NB > N: exit $rc: $out"
run 3 1 --n 41 --nb 1 --grid 3x1
[ "$rc" = 0 ] || bad "NB 1 on 3x1: exit $rc: $out"

# The wrong pivot must be caught, on one rank and across a 2x2 grid.
for layout in "1 1x1" "4 2x2"; do
    read -r np grid <<< "$layout"
    rm -f "$tmp/bad.h5"
    run "$np" 1 "${base[@]}" --grid "$grid" --test-hook 1 --out "$tmp/bad.h5"
    [ "$rc" = 1 ] || bad "wrong pivot on $grid: exit $rc, want 1: $out"
    [ "$(field verified)" = no ] || bad "wrong pivot on $grid: verified: $out"
    awk -v e="$(field error)" 'BEGIN { exit !(e >= 16) }' \
        || bad "wrong pivot on $grid: residual $(field error) below 16"
    [ -s "$tmp/bad.h5" ] || bad "wrong pivot on $grid: no run file"
done

# Singular: a status in the result line, not a crash.
run 2 2 "${base[@]}" --grid 1x2 --test-hook 2
[ "$rc" = 1 ] || bad "singular: exit $rc, want 1: $out"
[ "$(field verified)" = no ] || bad "singular: verified: $out"
grep -q "singular matrix: exactly zero pivot in column 0" <<< "$out" \
    || bad "singular: no 'singular matrix' line in: $out"

# Bad input: exit 2, one line naming the option, no run file.
bad_input() {
    local want=$1 np=$2
    shift 2
    rm -f "$tmp/no.h5"
    run "$np" 1 "$@" --out "$tmp/no.h5"
    [ "$rc" = 2 ] || bad "$*: exit $rc, want 2: $out"
    [ "$(grep -c "^bindlab-app: $want" <<< "$out")" = 1 ] \
        || bad "$*: want one line 'bindlab-app: $want...', got: $out"
    [ ! -e "$tmp/no.h5" ] || bad "$*: run file written"
}
bad_input "--grid" 2 --n 100 --grid 2x2
bad_input "--grid" 4 --n 100 --grid 2x1x2
bad_input "--n" 1 --n -4
bad_input "--nb" 1 --n 100 --nb -2
bad_input "--n 3000000" 2 --n 3000000

[ "$fails" = 0 ] && echo "all lu integration checks passed"
exit $((fails > 0))
