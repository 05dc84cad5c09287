#!/bin/bash
# bindlab report stops ranking noise: layouts whose 95% intervals of the
# median overlap are shown as ties (text "rank", CSV tie_group, HTML bars),
# on a file written by the harness's own writer (report_fixture DIR ties)
# whose values are worked out here by hand.
#
# Layout: rates (GB/s), median, interval (n < 6: [min, max]; n = 9: the
# order statistics [x(2), x(8)], coverage 1 - 2*(1+9)/512 = 96.1%):
#   A 10.0 10.2 10.4 10.6 10.8        median 10.4  [10.0, 10.8]
#   B 9.0 9.5 9.9 10.1 10.3           median 9.9   [9.0, 10.3]
#   C 8.0 8.5 9.0 9.2 9.6             median 9.0   [8.0, 9.6]
#   E 7.5 7.6 ... 8.3 (step 0.1)      median 7.9   [7.6, 8.2]
#   F 7.0 7.6 7.61 ... 7.66 8.5       median 7.63  [7.6, 7.66]
#   D 7.0 7.1 ... 7.8 (step 0.1)      median 7.4   [7.1, 7.7]
#   G 5.0 (one run: no interval)
# In median order: A leads group 1; B overlaps A (9.0 <= 10.8, 10.0 <=
# 10.3): 1. C does not (9.6 < 10.0): leads 2. E overlaps C (8.2 >= 8.0): 2.
# F does not (7.66 < 8.0; with [min, max] = [7.0, 8.5] it would): leads 3.
# D overlaps F (7.7 >= 7.6, 7.1 <= 7.66): 3. G is alone: 4.
# So ranks A 1=, B 1=, C 2=, E 2=, F 3=, D 3=, G 4; 2 of 7 tie for the best.
. "$(dirname "$0")/common.sh"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
[ -x "$FIXTURE" ] || fail "$FIXTURE not built (it is part of every build)"
PY=/usr/bin/python3
mkdir "$WORK/t.d"
"$FIXTURE" "$WORK/t.d" ties || fail "report_fixture ties"
"$BINDLAB" merge -o "$WORK/t.h5" "$WORK/t.d" >/dev/null || fail "merge"

"$BINDLAB" report "$WORK/t.h5" >"$WORK/table" 2>"$WORK/err" || fail "report: $(cat "$WORK/err")"
cat "$WORK/table"
check_rank() {  # RUN_ID RANK
    grep -qE "^$1 +triad layout [A-G] +ok .* GB/s +[0-9.]+ +$2 " "$WORK/table" ||
        fail "$1: expected rank $2: $(grep "^$1 " "$WORK/table")"
}
for r in 1 2 3 4 5; do check_rank "tA.$r" "1="; check_rank "tB.$r" "1="; check_rank "tC.$r" "2="; done
for r in 1 2 3 4 5 6 7 8 9; do check_rank "tE.$r" "2="; check_rank "tF.$r" "3="; check_rank "tD.$r" "3="; done
check_rank tG.1 4
grep -qE '^tA\.6 +triad layout A +failed .* - +- +- +- ' "$WORK/table" || fail "failed run: $(grep '^tA.6' "$WORK/table")"
expect_line "$WORK/table" "triad: 2 of 7 layouts tie for the best (rank 1=: the 95% intervals of their medians overlap the best's); more repetitions may tell them apart"
echo "ok: text ranks and the closing line"

"$BINDLAB" report "$WORK/t.h5" --csv >"$WORK/csv" || fail "--csv"
"$PY" - "$WORK/csv" <<'PYEOF' || fail "CSV tie columns"
import csv, sys
want = {"A": ("1", 10.4, 10.0, 10.8), "B": ("1", 9.9, 9.0, 10.3), "C": ("2", 9.0, 8.0, 9.6),
        "E": ("2", 7.9, 7.6, 8.2), "F": ("3", 7.63, 7.6, 7.66), "D": ("3", 7.4, 7.1, 7.7),
        "G": ("4", 5.0, None, None)}
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 44, len(rows)
for r in rows:
    lay = r["label"][-1]
    if r["status"] != "ok":
        assert r["run_id"] == "tA.6" and r["tie_group"] == "" and r["layout_ci_lo"] == "", r
        continue
    g, med, lo, hi = want[lay]
    assert r["tie_group"] == g, (r["run_id"], r["tie_group"], g)
    assert abs(float(r["layout_median"]) - med) < 1e-9, (r["run_id"], r["layout_median"])
    if lo is None:
        assert r["layout_ci_lo"] == "" and r["layout_ci_hi"] == "", r
    else:
        assert abs(float(r["layout_ci_lo"]) - lo) < 1e-9 and abs(float(r["layout_ci_hi"]) - hi) < 1e-9, \
            (r["run_id"], r["layout_ci_lo"], r["layout_ci_hi"])
PYEOF
echo "ok: CSV tie_group, layout_median, layout_ci_lo/hi"

# the HTML page marks the same group: B alone is a tie with the best
"$BINDLAB" report "$WORK/t.h5" --html "$WORK/t.html" >/dev/null || fail "--html"
[ "$(grep -o 'class="bar tie"' "$WORK/t.html" | wc -l)" = 1 ] || fail "HTML tie bars: $(grep -o 'class="bar[^"]*"' "$WORK/t.html" | sort | uniq -c)"
grep -q 'triad layout B: 9.9 GB/s (median of 5, 9 to 10.3), a tie with the best' "$WORK/t.html" ||
    fail "B not marked as a tie in the HTML"
[ "$(grep -o 'a tie with the best' "$WORK/t.html" | wc -l)" = 1 ] || fail "HTML: more than B tied"
echo "ok: the HTML page marks the same tie with the best"
echo "3 passed, 0 failed"
