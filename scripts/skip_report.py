#!/usr/bin/env python3
"""skip_report.py ALLOW JUNIT [JUNIT...]: what did not run, and whether it may.

Reads the JUnit files `ctest --output-junit` wrote (one per pass) and the
allow-list ALLOW (tests/skip-allow.txt). Every test CTest did not run
(Skipped: exit 77, Not Run, Disabled) is printed with the reason its output
gives (its `SKIP: ...` lines). Exit status 1 when one of them is not allowed:
an allow-list entry names the test and a text its SKIP line must contain, so
a test skipping for another reason than the reviewed one fails too.

Allow-list lines: `TEST | TEXT IN ITS SKIP LINE | why this machine kind
cannot run it`; a line starting with `#` is a comment."""
import sys
import xml.etree.ElementTree as ET


def read_allow(path):
    """The entries of ALLOW as (test, text, why); exits 2 on a malformed line."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or not all(parts):
                sys.exit(f"skip_report.py: {path}:{n}: want 'TEST | SKIP TEXT | WHY'")
            entries.append(tuple(parts))
    return entries


def not_run(junit):
    """(pass, test, status, reason) of each test of JUNIT that did not run."""
    found = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = case.get("status", "run")
        if status == "run":
            continue
        out = case.findtext("system-out") or ""
        reasons = [l.strip() for l in out.splitlines() if l.strip().startswith("SKIP")]
        skipped = case.find("skipped")
        why = "; ".join(reasons) or (skipped.get("message") if skipped is not None else "") \
            or status
        found.append((junit, case.get("name"), status, why))
    return found


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    allow = read_allow(argv[1])
    missing = []
    for junit in argv[2:]:
        try:
            missing += not_run(junit)
        except (OSError, ET.ParseError) as e:
            missing.append((junit, "(the whole pass)", "no JUnit file", str(e)))
    bad = 0
    print("== not tested here")
    if not missing:
        print("  nothing: every test ran")
    for junit, test, status, reason in missing:
        ok = [why for name, text, why in allow if name == test and text in reason]
        bad += not ok
        verdict = f"allowed: {ok[0]}" if ok else "NOT ALLOWED (tests/skip-allow.txt)"
        print(f"  {test} [{junit}, {status}]\n    said: {reason}\n    {verdict}")
    if bad:
        print(f"skip_report.py: {bad} test(s) did not run and are not on the allow-list",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
