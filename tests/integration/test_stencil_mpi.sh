#!/usr/bin/env bash
# bindlab-app --kernel stencil under real mpirun: 1, 2 and 4 ranks
# (oversubscribed) x 1 and 2 threads verify with one checksum; both --init
# modes and --overlap verify; a tile smaller than R is exit 2 with the
# sizes; deliberate faults (--test-hook: wrong halo cell, wrong
# decomposition, borders computed before the halos arrive) fail
# verification with exit 1; the run file's per-rank metrics agree with
# hand-worked tile and point counts; streaming stores and column strips
# (forced on through BINDLAB_STENCIL_STORES/BLOCK) verify for radius 1..4.
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
run() { run_kernel stencil "$@"; }
field() { result - "$1" <<< "$out"; }

# An awkward grid: primes, remainders on every decomposition used here.
base=(--grid 211x157 --radius 3 --iters 3 --warmup 1)
ref=""
for np in 1 2 4; do
    for th in 1 2; do
        run "$np" "$th" "${base[@]}" --out "$tmp/r$np-$th.h5"
        [ "$rc" = 0 ] || bad "np=$np threads=$th exit $rc: $out"
        [ "$(field verified)" = yes ] || bad "np=$np threads=$th not verified"
        c=$(field checksum)
        [ -n "$c" ] || bad "np=$np threads=$th: no checksum in: $out"
        [ -z "$ref" ] && ref=$c
        [ "$c" = "$ref" ] || bad "np=$np threads=$th checksum $c != $ref"
    done
done
# The exact mean after 4 steps: 105 + 2 * 78 + 3 * 4 = 273.
[ "$ref" = 273 ] || bad "checksum $ref, expected the exact mean 273"

for init in serial parallel; do
    run 2 2 "${base[@]}" --init "$init"
    { [ "$rc" = 0 ] && [ "$(field verified)" = yes ]; } || bad "--init $init: $out"
    [ "$(field checksum)" = "$ref" ] || bad "--init $init checksum differs"
done
for np in 2 4; do
    run "$np" 2 "${base[@]}" --overlap
    { [ "$rc" = 0 ] && [ "$(field verified)" = yes ]; } || bad "--overlap np=$np: $out"
    [ "$(field checksum)" = "$ref" ] || bad "--overlap np=$np checksum differs"
done
# Streaming stores and 64-column strips forced on (this grid is far too
# small for the automatic choice), radius 1..4, with halo exchange between
# 2 and 4 ranks: every run verifies, radius 3 gives the same checksum as
# above, and the run file counts 16 bytes per point.
for r in 1 2 3 4; do
    for np in 2 4; do
        out=$(BINDLAB_STENCIL_STORES=streaming BINDLAB_STENCIL_BLOCK=64 \
              OMP_NUM_THREADS=2 mpirun -np "$np" --oversubscribe --bind-to none \
              "$BINDLAB_APP" --kernel stencil --grid 211x157 --radius "$r" \
              --iters 3 --warmup 1 --overlap --out "$tmp/nt$r-$np.h5" 2>&1)
        rc=$?
        { [ "$rc" = 0 ] && [ "$(field verified)" = yes ]; } ||
            bad "streaming r=$r np=$np: exit $rc: $out"
        [ "$r" != 3 ] || [ "$(field checksum)" = "$ref" ] ||
            bad "streaming r=3 np=$np checksum $(field checksum) != $ref"
    done
done
"$BINDLAB_BUILD_DIR/tests/runfile_results" "$tmp/nt2-4.h5" |
    awk '$1 == "metric" && $3 == "bytes_per_point" && $4 != 16 {bad = 1}
         $1 == "metric" && $3 == "streaming_stores" {seen++}
         END {exit bad || seen != 4}' ||
    bad "streaming run: bytes_per_point not 16 on every rank"
out=$(BINDLAB_STENCIL_STORES=fast "$BINDLAB_APP" --kernel stencil --grid 100 2>&1)
rc=$?
{ [ "$rc" = 2 ] && grep -q 'BINDLAB_STENCIL_STORES=.fast.' <<< "$out"; } ||
    bad "BINDLAB_STENCIL_STORES=fast: exit $rc, expected 2 naming it: $out"

# Per-rank metrics in the run file, read with runfile_results, against
# values worked out by hand for 211x157, R=3 on 4 ranks (a 2x2 rank grid,
# x varying fastest): tiles split 211 = 106 + 105 and 157 = 79 + 78; a rank
# updates its tile less the R cells on each side at the domain's edge, so
# rank 0 (west, south) updates 103x76 points, rank 1 102x76, rank 2 103x75,
# rank 3 102x75 (sum 205x151, the interior). flops_per_point = 5R = 15 and
# 24 bytes per point, so gflops = 15 mlups / 1000, gbytes = 24 mlups / 1000;
# and the timed seconds t = points x 3 iterations / (mlups x 1e6) must give
# halo_fraction = 3 halo_s_per_step / t.
results="$BINDLAB_BUILD_DIR/tests/runfile_results"
[ -x "$results" ] || bad "no $results: build the tests"
if metrics=$("$results" "$tmp/r4-2.h5"); then
    awk '
    BEGIN { tx[0]=106; ty[0]=79; px[0]=103; py[0]=76
            tx[1]=105; ty[1]=79; px[1]=102; py[1]=76
            tx[2]=106; ty[2]=78; px[2]=103; py[2]=75
            tx[3]=105; ty[3]=78; px[3]=102; py[3]=75 }
    $1 == "metric" { v[$2, $3] = $4; ranks[$2] = 1 }
    function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-9 * (b < 0 ? -b : b) + 1e-15 }
    function bad(msg) { print "metrics: " msg; status = 1 }
    END {
        n = 0; for (r in ranks) n++
        if (n != 4) bad("metrics for " n " ranks, expected 4")
        for (r = 0; r < 4; r++) {
            if (v[r, "tile_x"] != tx[r] || v[r, "tile_y"] != ty[r])
                bad("rank " r " tile " v[r, "tile_x"] "x" v[r, "tile_y"] ", expected " tx[r] "x" ty[r])
            if (v[r, "flops_per_point"] != 15) bad("rank " r " flops_per_point " v[r, "flops_per_point"])
            m = v[r, "mlups"]
            if (!(m > 0)) { bad("rank " r " mlups " m); continue }
            if (!near(v[r, "gflops"], 15 * m / 1000)) bad("rank " r " gflops " v[r, "gflops"] " != 15 x mlups / 1000")
            if (!near(v[r, "gbytes"], 24 * m / 1000)) bad("rank " r " gbytes " v[r, "gbytes"] " != 24 x mlups / 1000")
            t = px[r] * py[r] * 3 / (m * 1e6)
            if (!near(v[r, "halo_fraction"], 3 * v[r, "halo_s_per_step"] / t))
                bad("rank " r " halo_fraction " v[r, "halo_fraction"] " != 3 halo_s_per_step / t = " 3 * v[r, "halo_s_per_step"] / t)
        }
        exit status
    }' <<< "$metrics" || bad "metrics table: $metrics"
else
    bad "runfile_results $tmp/r4-2.h5 failed"
fi

# The run's result from its recorded per-rank times, recomputed here: an
# iteration lasts as long as its slowest rank, the result is the median of
# those (3 iterations: the middle one; 4: the mean of the middle two), and
# the rate is the interior's 205 x 151 = 30955 points over the median, in
# MLUP/s; each rank's row is the median of its own times and its own points
# (worked out above) over it.
check_result() {  # FILE RANK-POINTS...
    local file=$1; shift
    "$results" "$file" | awk -v pts="$*" '
    function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (b < 0 ? -b : b) }
    function median(v, n,   i, j, t) {
        for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
    }
    function bad(msg) { print "result: " msg; status = 1 }
    $1 == "result" { med = $3; mn = $5; mx = $7; rate = $9 }
    $1 == "timing" { t[$2, $3] = $4; if ($2 + 1 > ni) ni = $2 + 1; if ($3 + 1 > nr) nr = $3 + 1 }
    $1 == "rank" { rmed[$2] = $4; rrate[$2] = $6 }
    END {
        split(pts, p, " ")
        if (nr != length(p)) bad(nr " ranks timed, expected " length(p))
        for (i = 0; i < ni; i++) {
            s[i] = 0
            for (r = 0; r < nr; r++) if (t[i, r] > s[i]) s[i] = t[i, r]
        }
        lo = s[0]; hi = s[0]
        for (i = 0; i < ni; i++) { if (s[i] < lo) lo = s[i]; if (s[i] > hi) hi = s[i] }
        want = median(s, ni)
        if (med != want) bad("median_s " med ", the slowest ranks give " want)
        if (mn != lo || mx != hi) bad("min/max " mn "/" mx ", expected " lo "/" hi)
        if (!near(rate, 30955 / want / 1e6)) bad("rate " rate ", expected 30955 / " want " / 1e6")
        for (r = 0; r < nr; r++) {
            for (i = 0; i < ni; i++) mine[i] = t[i, r]
            m = median(mine, ni)
            if (rmed[r] != m) bad("rank " r " median_s " rmed[r] ", its times give " m)
            if (!near(rrate[r], p[r + 1] / m / 1e6)) bad("rank " r " rate " rrate[r] ", expected " p[r + 1] " / " m " / 1e6")
        }
        exit status
    }' || bad "result arithmetic of $file"
}
check_result "$tmp/r4-2.h5" $((103 * 76)) $((102 * 76)) $((103 * 75)) $((102 * 75))
# 2 ranks: a 1x2 rank grid splits y, 157 = 79 + 78: 205 x 76 and 205 x 75.
run 2 1 --grid 211x157 --radius 3 --iters 4 --warmup 1 --out "$tmp/even.h5"
[ "$rc" = 0 ] || bad "np=2 --iters 4: exit $rc: $out"
check_result "$tmp/even.h5" $((205 * 76)) $((205 * 75))

# A tile smaller than R: 9 rows over 3 ranks are tiles of 3 < 4.
run 3 1 --grid 50x9 --radius 4 --out "$tmp/small.h5"
[ "$rc" = 2 ] || bad "small tile: exit $rc, expected 2: $out"
{ grep -q "50x9" <<< "$out" && grep -q "50x3 cells" <<< "$out" &&
    grep -q -- "--radius 4" <<< "$out"; } || bad "small tile message: $out"
[ -e "$tmp/small.h5" ] && bad "small tile: a run file was written"

# Deliberate faults must fail verification (exit 1, verified=no).
for np in 2 4; do
    for hook in "1" "2" "3 --overlap"; do
        # shellcheck disable=SC2086
        run "$np" 2 --grid 1200 --iters 4 --warmup 1 --test-hook $hook
        { [ "$rc" = 1 ] && [ "$(field verified)" = no ]; } ||
            bad "np=$np --test-hook $hook: exit $rc, expected a wrong answer: $out"
    done
done

[ "$fails" = 0 ] && echo "stencil integration: all passed"
exit $((fails > 0))
