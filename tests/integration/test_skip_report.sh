#!/usr/bin/env bash
# scripts/skip_report.py, the end of scripts/test.sh: a JUnit file with a
# passed test, two skipped ones (exit 77, SKIP lines) and one Not Run,
# against an allow-list. A skip on the list for the reason it gave is
# allowed; one on the list for another reason, one not on it, a Not Run
# and a missing JUnit file fail; the report names each with its reason.
source "$(dirname "$0")/common.sh"
: "${BINDLAB_SOURCE_DIR:?run through ctest}"
REPORT=("/usr/bin/python3" "$BINDLAB_SOURCE_DIR/scripts/skip_report.py")

cat >"$WORK/j.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="4" failures="0" disabled="0" skipped="3">
	<testcase name="unit.ran" classname="unit.ran" time="0.1" status="run">
		<system-out>SKIP: this line is in a test that ran</system-out>
	</testcase>
	<testcase name="unit.one_cpu" classname="unit.one_cpu" time="0.1" status="notrun">
		<skipped message="SKIP_RETURN_CODE=77"/>
		<system-out>[  SKIPPED ] case
SKIP: case: this process may run on one CPU only (0)
</system-out>
	</testcase>
	<testcase name="integration.other" classname="integration.other" time="0.1" status="notrun">
		<skipped message="SKIP_RETURN_CODE=77"/>
		<system-out>SKIP: no mpirun in PATH</system-out>
	</testcase>
	<testcase name="integration.gone" classname="integration.gone" time="0" status="notrun">
		<skipped message="Unable to find executable"/>
		<system-out>Unable to find executable: /nowhere</system-out>
	</testcase>
</testsuite>
XML
printf '# comment\nunit.one_cpu | one CPU only | one CPU: nothing to migrate\n' >"$WORK/allow.txt"

rc=0
"${REPORT[@]}" "$WORK/allow.txt" "$WORK/j.xml" >"$WORK/out" 2>&1 || rc=$?
cat "$WORK/out"
[ "$rc" = 1 ] || fail "two not allowed: exit $rc, expected 1"
grep -q "unit.ran" "$WORK/out" && fail "a test that ran is listed"
grep -A2 "^  unit.one_cpu " "$WORK/out" | grep -q "allowed: one CPU: nothing to migrate" || fail "the allowed skip"
grep -A2 "^  unit.one_cpu " "$WORK/out" | grep -q "said: SKIP: case: this process may run on one CPU only (0)$" ||
    fail "the skip's own SKIP line (not cmocka's [ SKIPPED ])"
grep -A2 "^  integration.other " "$WORK/out" | grep -q "NOT ALLOWED" || fail "a skip not on the list"
grep -A2 "^  integration.gone " "$WORK/out" | grep -q "said: Unable to find executable" || fail "Not Run's reason"
grep -q "2 test(s) did not run and are not on the allow-list" "$WORK/out" || fail "the count"

# On the list, but skipping for another reason: not allowed.
printf 'integration.other | two ranks need 2 cores | one CPU\n' >>"$WORK/allow.txt"

python3 - "$WORK/j.xml" "$WORK/j2.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]); root = t.getroot()
for c in list(root):
    if c.get("name") == "integration.gone":
        root.remove(c)
t.write(sys.argv[2])
PY
rc=0
"${REPORT[@]}" "$WORK/allow.txt" "$WORK/j2.xml" >"$WORK/out2" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/out2"; fail "a listed test skipping for another reason: exit $rc, expected 1"; }

# Everything allowed: exit 0; a missing JUnit file: exit 1.
printf 'integration.other | no mpirun | not here\n' >>"$WORK/allow.txt"
"${REPORT[@]}" "$WORK/allow.txt" "$WORK/j2.xml" >"$WORK/out3" 2>&1 || { cat "$WORK/out3"; fail "all allowed: exit $?"; }
rc=0
"${REPORT[@]}" "$WORK/allow.txt" "$WORK/j2.xml" "$WORK/missing.xml" >"$WORK/out4" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/out4"; fail "a missing JUnit file: exit $rc, expected 1"; }
# A malformed allow-list line: exit 1 with FILE:LINE.
printf 'just a name\n' >"$WORK/bad.txt"
rc=0
"${REPORT[@]}" "$WORK/bad.txt" "$WORK/j2.xml" >"$WORK/out5" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "bad.txt:1: want 'TEST | SKIP TEXT | WHY'" "$WORK/out5" ||
    { cat "$WORK/out5"; fail "malformed allow-list: exit $rc"; }
# The real allow-list parses (j2.xml's skips are not on it: exit 1).
rc=0
"${REPORT[@]}" "$BINDLAB_SOURCE_DIR/tests/skip-allow.txt" "$WORK/j2.xml" >"$WORK/out6" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/out6"; fail "j2.xml against tests/skip-allow.txt: exit $rc, expected 1"; }
grep -q "want 'TEST" "$WORK/out6" && { cat "$WORK/out6"; fail "tests/skip-allow.txt does not parse"; }
grep -q "^== not tested here" "$WORK/out6" || { cat "$WORK/out6"; fail "no report from tests/skip-allow.txt"; }
echo "ok: skip_report.py allows only listed skips for their reason"
