#!/bin/bash
# bindlab compare on two sweeps written by the harness's own writer
# (report_fixture): the 2-core VM sweep and a 2-NUMA 8-core "xeon" sweep
# whose layouts mean the same as some of the VM's with other numbers
# (report_fixture.c). Matches, ratios and leftovers derived by hand.
. "$(dirname "$0")/common.sh"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
[ -x "$FIXTURE" ] || fail "$FIXTURE not built (it is part of every build)"
T=$WORK
mkdir "$T/vm.d" "$T/xeon.d"
"$FIXTURE" "$T/vm.d" && "$FIXTURE" "$T/xeon.d" xeon || fail "report_fixture"
"$BINDLAB" merge -o "$T/vm.h5" "$T/vm.d" > /dev/null || fail "merge vm"
"$BINDLAB" merge -o "$T/xeon.h5" "$T/xeon.d" > /dev/null || fail "merge xeon"

"$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" > "$T/out" 2> "$T/err" || fail "compare: exit $? $(cat "$T/err")"
[ -s "$T/err" ] && fail "compare: stderr: $(cat "$T/err")"
expect_line "$T/out" "  B: xeon-8core (Intel Xeon Gold 6130), 2 packages, 2 NUMA nodes, 2 L3, 8 cores: $T/xeon.h5"
# r0004 (np2 t1 on 1 NUMA node: 2 ranks per NUMA node, all cores) is x0
# (np4 t2 on 2 NUMA nodes): 40 / 14.6 = 2.74
expect_line "$T/out" "  B 40 GB/s 'triad np4 map=ppr:2:numa:PE=2 bind=core places=cores proc_bind=close t=2 init=parallel' ratio 2.74 (same ranks per numa)"
# tails: the fixture times iteration i of rank r as median_s x (1 + 0.01 x
# ((i x np + r) % 3)); an iteration takes its slowest rank. r0004 (np 2):
# iterations at 1.01 (4 of 10) or 1.02 (6 of 10) x 0.7158 GB / 14.6 GB/s
# = 0.04903 s, so p50 (the 5th and 6th of 10 sorted: both 1.02) = p90 = p99
# = max = 1.02 x 0.04903 = 0.05001 s; x0 (np 4: every iteration has a 1.02
# rank): 1.02 x 0.7158 / 40 = 0.01825 s
expect_line "$T/out" "    iteration times p50/p90/p99/max: A 0.05001/0.05001/0.05001/0.05001 s, B 0.01825/0.01825/0.01825/0.01825 s"
# r0000 (np1 t2) is x1 (np2 t4), median of 30 and 32 = 31; 31 / 8.52 = 3.64
expect_line "$T/out" "  B 31 GB/s 'triad np2 map=ppr:1:numa:PE=4 bind=core places=cores proc_bind=close t=4 init=parallel' ratio 3.64 (same ranks per numa)"
# r0011 (stencil, bind_to none, np2 t1) is x4 (np4 t2): 2000 / 583 = 3.43
expect_line "$T/out" "  B 2000 MLUP/s 'stencil np4 map=ppr:2:numa:PE=2 bind=none places=unset proc_bind=unset t=2 init=parallel' ratio 3.43 (same ranks per numa)"
# three matches, the VM's 5 other usable layouts have none
[ "$(grep -c '^  B .* ratio ' "$T/out")" = 3 ] || fail "matches: $(grep ' ratio ' "$T/out")"
[ "$(grep -c '^  B -$' "$T/out")" = 5 ] || fail "unmatched A layouts"
expect_line "$T/out" "  B triad: x3 'triad np8 map=core bind=core places=cores proc_bind=close t=1 init=parallel' 45 GB/s"
expect_line "$T/out" "  A triad: r0004 'triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel' 14.6 GB/s"
# only on one machine: r0001, r0002, r0003, r0005, r0010 on A; x3 (4 ranks
# per NUMA node) on B
sed -n '/^only on one machine:/,$p' "$T/out" > "$T/only"
[ "$(grep -c "^  A '" "$T/only")" = 5 ] || fail "only on A: $(cat "$T/only")"
expect_line "$T/only" "  B 'triad np8 map=core bind=core places=cores proc_bind=close t=1 init=parallel'"
[ "$(grep -c "^  B '" "$T/only")" = 1 ] || fail "only on B: $(cat "$T/only")"

# One merged file holding both machines compares like the two files: the
# same matches, ratios and leftovers; only the machines' sources differ.
"$BINDLAB" merge -o "$T/both.h5" "$T/vm.d" "$T/xeon.d" > /dev/null || fail "merge both"
"$BINDLAB" compare "$T/both.h5" > "$T/one" 2> "$T/err" || fail "compare one file: $(cat "$T/err")"
expect_line "$T/one" "  A: vm-2core (AMD EPYC 7B13), 1 package, 1 NUMA node, 1 L3, 2 cores: $T/both.h5 /nodes/0"
expect_line "$T/one" "  B: xeon-8core (Intel Xeon Gold 6130), 2 packages, 2 NUMA nodes, 2 L3, 8 cores: $T/both.h5 /nodes/1"
diff <(sed 1,3d "$T/out") <(sed 1,3d "$T/one") || fail "one merged file compares otherwise than two files"
# a file of one machine alone is still refused: nothing to compare with
"$BINDLAB" compare "$T/vm.h5" > /dev/null 2>&1 && fail "compare of one machine accepted"

# one run per layout on the VM: no interval, no rank test
grep -q 'interval of the ratio' "$T/out" && fail "statistics from single runs"

# statistics: a 50-run sweep (10 layouts of 5 repetitions) against itself.
# The best layout, L008 (5 + (8*37 % 100)/10 = 14.6 .. 14.8 GB/s), matches
# itself: ratio 1, every bootstrap ratio within [14.6/14.8, 14.8/14.6] =
# [0.986, 1.014] and the interval holds 1 (a tie); identical samples rank
# alike: rank test p = 1
mkdir "$T/m.d"
"$FIXTURE" "$T/m.d" many 50 || fail "report_fixture many 50"
"$BINDLAB" merge -o "$T/m.h5" "$T/m.d" > /dev/null || fail "merge many"
"$BINDLAB" compare "$T/m.h5" "$T/m.h5" > "$T/self" || fail "compare self"
sed -n '7,9p' "$T/self" > "$T/best"
grep -q "^  B 14.7 GB/s 'triad layout L008 np1 map=core bind=hwthread' ratio 1.00 " "$T/best" ||
    fail "self compare best: $(cat "$T/best")"
sed -n 3p "$T/best" | awk '{
    if (!match($0, /^    95% interval of the ratio \[[0-9.]+, [0-9.]+\], rank test p=1 \(5 vs 5 runs\): a tie$/)) exit 1
    split($0, w, /[][,]/); lo = w[2] + 0; hi = w[3] + 0
    exit !(lo >= 0.98 && lo <= 1 && hi >= 1 && hi <= 1.02) }' ||
    fail "self compare statistics: $(sed -n 3p "$T/best")"

# the other way round: x1 against r0000 is 8.52 / 31 = 0.27
"$BINDLAB" compare "$T/xeon.h5" "$T/vm.h5" > "$T/rev" || fail "compare reversed"
grep -qF "  B 8.52 GB/s 'triad np1 map=slot:PE=2 bind=core places=cores proc_bind=close t=2 init=parallel' ratio 0.27 (same ranks per numa)" "$T/rev" ||
    fail "reversed: $(grep ratio "$T/rev")"

# CSV, read back by Python's csv module
"$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" --csv > "$T/csv" || fail "--csv"
python3 - "$T/csv" <<'EOF' || fail "CSV check"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
# 8 usable layouts on A, 3 matches on B, 1 layout only on B
assert len(rows) == 12, len(rows)
b = {r["first_run_id"]: r for r in rows if r["machine"] == "B"}
assert set(b) == {"x0", "x1.1", "x4", "x3"}, b.keys()
assert abs(float(b["x1.1"]["ratio_to_A"]) - 31 / 8.52) < 1e-4, b["x1.1"]
assert b["x1.1"]["matched_by"] == "numa" and b["x1.1"]["hostname"] == "xeon-8core"
assert b["x3"]["ratio_to_A"] == "" and b["x3"]["matched_by"] == ""
assert "4/NUMA" in b["x3"]["meaning"], b["x3"]["meaning"]
EOF

# --html: the same matches as one self-contained page
"$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" --html "$T/c.html" > "$T/hout" || fail "--html"
expect_line "$T/hout" "$T/c.html: 2 machines"
[ "$(grep -c '^<tr><td>' "$T/c.html")" = 8 ] || fail "html rows: $(grep -c '^<tr><td>' "$T/c.html")"
for r in 2.74 3.64 3.43; do
    grep -q "<td class=\"n\">$r</td>" "$T/c.html" || fail "html ratio $r"
done
grep -Eiq 'https?:|//[a-z]|src=|@import|url\(' "$T/c.html" && fail "the compare page names an outside resource"
# the layouts only one machine has, as in the text: 5 on A, x3 on B
sed -n '/<h2>Only on one machine<\/h2>/,/<\/ul>/p' "$T/c.html" >"$T/only.html"
[ "$(grep -c '^<li>A ' "$T/only.html")" = 5 ] || fail "html only on A: $(cat "$T/only.html")"
grep -q "^<li>B triad np8 map=core bind=core places=cores proc_bind=close t=1 init=parallel: 45 GB/s (" "$T/only.html" ||
    fail "html only on B: $(cat "$T/only.html")"
[ "$(grep -c '^<li>B ' "$T/only.html")" = 1 ] || fail "html only on B: $(cat "$T/only.html")"
"$BINDLAB" compare "$T/m.h5" "$T/m.h5" --html "$T/self.html" > /dev/null || fail "--html self"
grep -Eq '<td class="tie">\[[0-9.]+, [0-9.]+\], p=1: a tie</td>' "$T/self.html" || fail "html statistics"
if command -v chromium > /dev/null; then
    timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" \
        --dump-dom "file://$T/c.html" > "$T/c.dom" 2>/dev/null || fail "chromium on the compare page"
    [ "$(grep -c '<tr><td>' "$T/c.dom")" = 8 ] || fail "rows in the browser"
fi

# errors
exit_of() { local rc=0; "$@" 2>"$T/err" >/dev/null || rc=$?; echo "$rc"; }
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5")" = 2 ] || fail "one file not 2"
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" --frob)" = 2 ] || fail "bad option not 2"
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5" "$T/missing.h5")" = 1 ] || fail "missing file not 1"
grep -q "missing.h5: No such file" "$T/err" || fail "missing message: $(cat "$T/err")"
# a sweep whose runs all failed has no machine record
"$BINDLAB" merge -o "$T/failed.h5" "$T/vm.d/r0006.h5" > /dev/null || fail "merge failed run"
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5" "$T/failed.h5")" = 1 ] || fail "no machine not 1"
grep -q "failed.h5: no /machine" "$T/err" || fail "no machine message: $(cat "$T/err")"
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" --html /dev/null)" = 2 ] || fail "--html /dev/null not 2"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
[ "$(exit_of "$BINDLAB" compare "$T/vm.h5" "$T/xeon.h5" --html "$T/x.html" --csv)" = 2 ] || fail "--html --csv not 2"
"$BINDLAB" compare --help | grep -q '^usage: bindlab compare' || fail "--help"
"$BINDLAB" --help | grep -q '^  compare ' || fail "compare missing from bindlab --help"
echo "ok: compare"
