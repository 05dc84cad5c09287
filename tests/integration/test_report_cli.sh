#!/bin/bash
# bindlab merge and bindlab report on sweep files written by the harness's
# own writer (report_fixture): merging a directory, duplicates, a truncated
# and a non-sweep input, the ranked table, CSV, and reading /summary from
# Python with h5py and pandas as docs/schema.md shows.
set -u
: "${BINDLAB:?BINDLAB not set (is the bindlab target built?)}"
: "${BINDLAB_BUILD_DIR:?run through ctest}"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
# report_fixture is built with the tests (tests/CMakeLists.txt): missing
# means a broken build, which is a failure, not a skip.
[ -x "$FIXTURE" ] || { echo "FAIL: $FIXTURE not built (it is part of every build)" >&2; exit 1; }
source "$(dirname "$0")/common.sh"
# These checks run on after a failed command (they test exit statuses):
set +e +o pipefail
T=$WORK

mkdir "$T/sweep.d" "$T/other.d"
"$FIXTURE" "$T/sweep.d" || fail "report_fixture"
"$FIXTURE" "$T/other.d" other || fail "report_fixture other"
# a write in progress must be ignored, not reported as unreadable
head -c 100 "$T/sweep.d/r0000.h5" > "$T/sweep.d/r0012.h5.tmp.4242"

# --- merge a directory ------------------------------------------------------
"$BINDLAB" merge -o "$T/sweep.h5" "$T/sweep.d" > "$T/out" 2> "$T/err" \
    || fail "merge dir: exit $? $(cat "$T/err")"
grep -qxF "$T/sweep.h5: 12 runs (9 ok, 1 failed, 1 timeout, 1 invalid), 0 duplicates kept once, 0 unreadable inputs" "$T/out" \
    || fail "merge dir summary line: $(cat "$T/out")"
[ -s "$T/err" ] && fail "merge dir: unexpected stderr: $(cat "$T/err")"
ls "$T" | grep -q '\.tmp\.' && fail "merge left a temporary file"

# --- merge again with a duplicate, a conflict, a truncated and a run file ---
cp "$T/sweep.d/r0004.h5" "$T/cut.h5"
truncate -s 2000 "$T/cut.h5"
printf 'not hdf5\n' > "$T/text.h5"
"$BINDLAB" merge -o "$T/sweep.h5" "$T/sweep.h5" "$T/sweep.d/r0003.h5" "$T/cut.h5" \
    "$T/text.h5" "$T/other.d" > "$T/out" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] || fail "merge with unreadable inputs: exit $rc, expected 1"
grep -q "12 runs (9 ok, 1 failed, 1 timeout, 1 invalid), 2 duplicates kept once, 2 unreadable inputs" "$T/out" \
    || fail "merge counts: $(cat "$T/out")"
# the superblock of the cut copy still says where the whole file ended
whole=$(stat -c %s "$T/sweep.d/r0004.h5")
grep -qF "skipped: $T/cut.h5 is truncated or damaged: it has 2000 bytes, but its superblock says it ends at byte $whole; re-run" "$T/err" ||
    fail "truncated input not named: $(cat "$T/err")"
grep -q "skipped: $T/text.h5: not an HDF5 file" "$T/err" || fail "text input not named: $(cat "$T/err")"
grep -q "run id r0000 is 'triad np1 .*' in $T/sweep.h5 but 'stencil np2 map=core bind=core (another sweep)' in $T/other.d/r0000.h5" "$T/err" \
    || fail "label conflict not named: $(cat "$T/err")"
[ "$(grep -c . "$T/err")" = 3 ] || fail "merge stderr: $(cat "$T/err")"

# nothing readable: the output is left alone
cp "$T/sweep.h5" "$T/keep.h5"
"$BINDLAB" merge -o "$T/keep.h5" "$T/cut.h5" 2> "$T/err" >/dev/null; rc=$?
[ "$rc" = 1 ] || fail "all inputs unreadable: exit $rc"
cmp -s "$T/sweep.h5" "$T/keep.h5" || fail "output changed although no input was readable"

# usage errors
"$BINDLAB" merge "$T/sweep.d" 2>/dev/null; [ $? = 2 ] || fail "merge without -o not 2"
"$BINDLAB" merge -o "$T/x.h5" 2>/dev/null; [ $? = 2 ] || fail "merge without inputs not 2"
"$BINDLAB" merge -o "$T/x.h5" --frob "$T/sweep.d" 2>/dev/null; [ $? = 2 ] || fail "merge bad option not 2"
"$BINDLAB" merge --help | grep -q '^usage: bindlab merge' || fail "merge --help"

# --- report: ranked table ---------------------------------------------------
"$BINDLAB" report "$T/sweep.h5" > "$T/table" 2> "$T/err" || fail "report: exit $? $(cat "$T/err")"
[ -s "$T/err" ] && fail "report: stderr: $(cat "$T/err")"
# run ids in rank order: triad best first, unusable runs after, then stencil
order=$(awk 'NR > 1 && /^r[0-9]/ {printf "%s ", $1}' "$T/table")
[ "$order" = "r0004 r0005 r0000 r0001 r0002 r0003 r0006 r0007 r0008 r0009 r0010 r0011 " ] \
    || fail "report order: '$order'"
# the columns line up: status starts at the same offset on every row
col=$(head -1 "$T/table" | awk '{print index($0, "status")}')
awk -v c="$col" 'NR > 1 && /^r[0-9]/ && substr($0, c - 1, 1) != " " {exit 1}' "$T/table" \
    || fail "status column not aligned"
# r0000: 8.52 GB/s, vs best 8.52/14.6 = 0.58, rank 3 (every layout has one
# run: no interval, no tie; r0004 14.6 and r0005 11.2 are faster), vs its
# np1 t2 baseline r0003 8.52/6.10 = 1.40
grep -E '^r0000 .* ok +2 +[0-9.]+ +8\.520 +GB/s +0\.58 +3 +1\.40 +yes +1\.00 +-$' "$T/table" >/dev/null \
    || fail "r0000 line: $(grep '^r0000' "$T/table")"
grep -E '^r0006 .* failed +1 +- +- +- +- +- +- +- +- +-$' "$T/table" >/dev/null \
    || fail "failed run line: $(grep '^r0006' "$T/table")"
grep -E '^r0009 .* ok +1 +[0-9.]+ +15\.90 +GB/s +- +- +- +no ' "$T/table" >/dev/null \
    || fail "unverified run line: $(grep '^r0009' "$T/table")"
grep -q "^triad: best r0004 'triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel' 14.60 GB/s; baseline (bind_to none) r0005 .* 11.20 GB/s, best is 1.30x; 4 runs not ok or not verified$" "$T/table" \
    || fail "triad closing line: $(tail -2 "$T/table")"
grep -q "^stencil: best r0010 .* 600.0 MLUP/s; baseline (bind_to none) r0011 .*best is 1.03x$" "$T/table" \
    || fail "stencil closing line"

"$BINDLAB" report "$T/sweep.h5" --kernel stencil > "$T/k" || fail "--kernel"
[ "$(grep -c '^r0' "$T/k")" = 2 ] || fail "--kernel stencil rows: $(cat "$T/k")"
"$BINDLAB" report "$T/sweep.h5" --sort=run | awk 'NR > 1 && /^r[0-9]/ {printf "%s ", $1}' > "$T/o"
[ "$(cat "$T/o")" = "r0000 r0001 r0002 r0003 r0004 r0005 r0006 r0007 r0008 r0009 r0010 r0011 " ] \
    || fail "--sort=run: $(cat "$T/o")"

# --- report: errors ------------------------------------------------------------
"$BINDLAB" report "$T/cut.h5" > "$T/out" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] || fail "truncated file: exit $rc"
[ "$(wc -l < "$T/err")" = 1 ] && grep -qF "bindlab report: $T/cut.h5 is truncated or damaged: it has 2000 bytes, but its superblock says it ends at byte $whole" "$T/err" || fail "truncated message: $(cat "$T/err")"
[ -s "$T/out" ] && fail "truncated file: output on stdout"
# A variable-length string's object in the global heap whose size field
# is damaged (what libhdf5's H5HG_read would copy past its collection):
# report, compare and merge refuse the file before libhdf5 reads it. The
# first object after the first collection's 16-byte header ("GCOL", version
# 1, 3 zero bytes, the size): its size is at bytes 8-15 of the object.
python3 - "$T/sweep.h5" "$T/heap.h5" <<'PYEOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.find(b"GCOL\x01\x00\x00\x00")
assert at >= 0, "no global heap collection"
obj = at + 16
d[obj + 8:obj + 16] = (1 << 40).to_bytes(8, "little")
open(sys.argv[2], "wb").write(d)
PYEOF
"$BINDLAB" report "$T/heap.h5" > "$T/out" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] && grep -q "^bindlab report: $T/heap.h5 is truncated or damaged: object 1 of the global heap collection at byte [0-9]* (where text values are kept) says it has 1099511627776 bytes: past the collection's end" "$T/err" ||
    fail "damaged heap: exit $rc, $(cat "$T/err")"
[ -s "$T/out" ] && fail "damaged heap: output on stdout"
"$BINDLAB" compare "$T/heap.h5" "$T/sweep.h5" > /dev/null 2> "$T/err"; rc=$?
[ "$rc" = 1 ] || fail "compare of a damaged file: exit $rc, expected 1 (a run-time failure)"
grep -q "heap.h5 is truncated or damaged: object 1 of the global heap" "$T/err" || fail "compare: $(cat "$T/err")"
"$BINDLAB" merge -o "$T/heap-merged.h5" "$T/heap.h5" "$T/sweep.d/r0003.h5" > "$T/out" 2> "$T/err"; rc=$?
grep -q "skipped: $T/heap.h5 is truncated or damaged: object 1 of the global heap" "$T/err" &&
    grep -q "1 unreadable input" "$T/out" || fail "merge of a damaged file: exit $rc, $(cat "$T/out" "$T/err")"
"$BINDLAB" report "$T/text.h5" 2> "$T/err"; [ $? = 1 ] || fail "text file not 1"
"$BINDLAB" report "$T/missing.h5" 2> "$T/err"; [ $? = 1 ] || fail "missing file not 1"
grep -q "missing.h5: No such file" "$T/err" || fail "missing message: $(cat "$T/err")"
"$BINDLAB" report "$T/sweep.h5" --kernel lu 2> "$T/err"; [ $? = 2 ] || fail "unknown kernel not 2"
grep -q "no runs of kernel 'lu'; this file has triad, stencil" "$T/err" || fail "unknown kernel message: $(cat "$T/err")"
"$BINDLAB" report "$T/sweep.h5" --sort speed 2>/dev/null; [ $? = 2 ] || fail "bad --sort not 2"
"$BINDLAB" report 2>/dev/null; [ $? = 2 ] || fail "no input not 2"
"$BINDLAB" report --help | grep -q '^usage: bindlab report' || fail "report --help"
"$BINDLAB" --help | grep -q '^  report ' || fail "report missing from bindlab --help"

# a run file written by bindlab-app itself has no /summary (the app runs
# as a singleton, without a launcher: a failure there is a failure here)
"$BINDLAB_BUILD_DIR/bindlab-app" --kernel triad --size 8MiB --iters 2 --out "$T/app.h5" >"$T/app.out" 2>&1 ||
    fail "bindlab-app could not write a run file: $(tail -5 "$T/app.out")"
"$BINDLAB" report "$T/app.h5" 2> "$T/err"; [ $? = 1 ] || fail "app run file not 1"
grep -q "no /summary" "$T/err" || fail "app run file message: $(cat "$T/err")"

# --- CSV, read back by Python's csv module ---------------------------------
"$BINDLAB" report "$T/sweep.h5" --csv > "$T/csv" || fail "--csv"
PY=/usr/bin/python3
$PY - "$T/csv" <<'EOF' || fail "CSV check"
import csv, sys
raw = open(sys.argv[1], newline="").read()
assert raw.count("\r\n") == 13, "CRLF line ends, 13 records"
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [r["run_id"] for r in rows][:3] == ["r0004", "r0005", "r0000"], rows[:3]
by = {r["run_id"]: r for r in rows}
assert by["r0006"]["omp_places"] == "{0:1},{1:1}", by["r0006"]["omp_places"]
assert by["r0006"]["status"] == "failed" and by["r0006"]["ratio_best"] == ""
assert by["r0007"]["status"] == "timeout" and by["r0007"]["exit_status"] == "137"
assert by["r0000"]["baseline_run_id"] == "r0003"
assert abs(float(by["r0000"]["ratio_baseline"]) - 8.52 / 6.10) < 1e-12
assert abs(float(by["r0000"]["rate"]) - 8.52) < 1e-12
assert by["r0005"]["flags"] == "omp-unbound,migrated"
for col in ("label", "kernel", "np", "threads", "map_by", "bind_to", "omp_proc_bind",
            "median_s", "rate_unit", "verified", "local_page_fraction", "wall_s"):
    assert col in rows[0], col
EOF

# --- /summary from h5py and pandas, as docs/schema.md shows -------------------
# python3-h5py and python3-pandas are bindlab dependencies (scripts/deps.sh)
$PY -c 'import h5py, pandas' 2>/dev/null ||
    fail "python3-h5py or python3-pandas missing: run scripts/deps.sh"
$PY - "$T/sweep.h5" <<'EOF' || fail "pandas check"
import sys
import h5py
import pandas as pd
with h5py.File(sys.argv[1], "r") as f:
    df = pd.DataFrame(f["summary"][()])
    assert "r0004" in f["runs"], list(f["runs"])
    assert f["runs/r0004/result"].attrs["rate"] == 14.6
    assert f.attrs["file_kind"] == "sweep"
assert len(df) == 12, len(df)
# variable-length strings arrive as bytes: decode them as docs/schema.md says
for c in df.columns[df.dtypes == object]:
    df[c] = df[c].str.decode("utf-8")
ok = df[(df.status == "ok") & (df.verified == 1) & (df.kernel == "triad")]
best = ok.loc[ok.rate.idxmax()]
assert best.run_id == "r0004", best.run_id
assert set(df.status) == {"ok", "failed", "timeout", "invalid"}
assert df.loc[df.run_id == "r0006", "omp_places"].item() == "{0:1},{1:1}"
assert df.np.dtype.kind == "i" and df.rate.dtype.kind == "f"
EOF
echo ok
