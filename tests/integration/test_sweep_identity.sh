#!/usr/bin/env bash
# Which run a record is: --resume after the sweep file was edited keeps
# every record and refuses a run id that now means another run (with the
# difference said), runs a layout added after the others; merge keeps the
# runs of two sweeps that share run ids, and a true duplicate once.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
cd "$WORK"

sweep_file() { # NAME KERNEL LAYOUTS...: a sweep of tiny one-rank runs
    local name=$1 kernel=$2
    shift 2
    {
        printf 'name: %s\nkernels:\n  - {name: %s, size: 1MiB, iters: 2, warmup: 0}\n' "$name" "$kernel"
        printf 'defaults: {map_by: core, threads: 1, timeout: 60}\nlayouts:\n'
        for l in "$@"; do printf '  - %s\n' "$l"; done
    } >"$name.yaml"
}

# --- resume after an edit -------------------------------------------------
sweep_file s triad "{name: a, np: 1, bind_to: core}"
"$BINDLAB" sweep s.yaml --results res >first.out 2>&1 || fail "first sweep: $(cat first.out)"
stamp=$(stat -c '%i %Y' res/s.d/r0000.h5)

# layout a changed (bound -> unbound), b added: r0000 now means another run
sweep_file s triad "{name: a, np: 1, bind_to: none}" "{name: b, np: 1, bind_to: core}"
set +e
"$BINDLAB" sweep s.yaml --results res --resume >changed.out 2>&1
rc=$?
set -e
cat changed.out
[ "$rc" = 2 ] || fail "resume of a changed layout: exit $rc, expected 2"
grep -q 'r0000 was ".*bind=core.*", the sweep file now makes it ".*bind=none' changed.out ||
    fail "the refusal does not show both descriptions of r0000"
grep -q -- '-bind=core +bind=none' changed.out || fail "the refusal does not name the words that differ"
[ "$(stat -c '%i %Y' res/s.d/r0000.h5)" = "$stamp" ] || fail "r0000.h5 was rewritten"
[ ! -e res/s.d/r0001.h5 ] || fail "a refused resume ran a run"
echo "ok: a run id that now means another run is refused, its record kept"

# a layout added after the others: only it runs
sweep_file s triad "{name: a, np: 1, bind_to: core}" "{name: b, np: 1, bind_to: none}"
"$BINDLAB" sweep s.yaml --results res --resume >added.out 2>&1 || fail "resume with b added: $(cat added.out)"
[ "$(stat -c '%i %Y' res/s.d/r0000.h5)" = "$stamp" ] || fail "r0000.h5 was rewritten"
[ -e res/s.d/r0001.h5 ] || fail "the added layout did not run"
grep -q '1 already done' added.out || fail "resume did not skip r0000: $(cat added.out)"
echo "ok: a layout added after the others runs alone"

# --- merge of two sweeps that share run ids -------------------------------
sweep_file tri triad "{name: t, np: 1}"
sweep_file sten stencil "{name: s1, np: 1}" "{name: s2, np: 1, bind_to: none}"
"$BINDLAB" sweep tri.yaml --results m >tri.out 2>&1 || fail "triad sweep: $(cat tri.out)"
"$BINDLAB" sweep sten.yaml --results m >sten.out 2>&1 || fail "stencil sweep: $(cat sten.out)"
# each sweep twice (its merged file and its records): 3 runs, 3 duplicates
"$BINDLAB" merge -o all.h5 m/tri.h5 m/sten.h5 m/tri.d m/sten.d >merge.out 2>&1 || fail "merge: $(cat merge.out)"
cat merge.out
grep -q '3 duplicates kept once' merge.out || fail "merge did not keep the true duplicates once"
/usr/bin/python3 - all.h5 <<'PYEOF' || fail "merged runs"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    runs = {k: (f["runs"][k].attrs["sweep"], f["runs"][k].attrs["kernel"]) for k in f["runs"]}
    rows = sorted(r["run_id"].decode() for r in f["summary"][()])
print(runs, rows)
assert len(runs) == 3 and rows == sorted(runs), (runs, rows)
assert sorted(runs.values()) == [("sten", "stencil"), ("sten", "stencil"), ("tri", "triad")], runs
assert runs["r0000"][0] in ("tri", "sten")
other = "sten" if runs["r0000"][0] == "tri" else "tri"
assert f"{other}:r0000" in runs, runs
PYEOF
# report and compare read it
"$BINDLAB" report all.h5 >report.out 2>&1 || fail "report of the merged file: $(cat report.out)"
grep -q 'r0000' report.out || fail "report does not list the runs"
echo "ok: merge keeps both sweeps' r0000 (one qualified by its sweep) and duplicates once"
