#!/bin/bash
# bindlab bindings: golden output on shipped fixtures, exit statuses, and a
# live mpirun --report-bindings capture checked against what each rank's
# process was really allowed to run on (/proc/self/status).
set -u
: "${BINDLAB:?BINDLAB not set (is the bindlab target built?)}"
: "${BINDLAB_FIXTURES:?}"
F=$BINDLAB_FIXTURES/bindreport
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Golden: Open MPI 5 report of the PRRTE docs on a synthetic node.
"$BINDLAB" bindings "$F/ompi5-prrte-docs.txt" --topology "pack:2 core:10 pu:8" \
    > "$T/out" 2> "$T/err" || fail "ompi5 fixture: exit $?"
tail -n +2 "$F/ompi5-prrte-docs.expected" | diff -u - "$T/out" || fail "ompi5 golden differs"
[ -s "$T/err" ] && fail "ompi5 fixture: unexpected stderr: $(cat "$T/err")"

# Golden: rejected lines go to stderr with their line numbers, exit 1.
( cd "$F" && "$BINDLAB" bindings ompi4-malformed.txt --topology "pack:1 core:2 pu:1" \
    > "$T/out" 2> "$T/err" ); rc=$?
[ "$rc" = 1 ] || fail "malformed fixture: exit $rc, expected 1"
tail -n +2 "$F/ompi4-malformed.expected-stderr" | diff -u - "$T/err" || fail "malformed stderr differs"
[ "$(awk '{print $2}' "$T/out" | tr '\n' ' ')" = "1 7 " ] || fail "malformed: ranks $(cat "$T/out")"

# Standard input, and --format.
"$BINDLAB" bindings - --format=slurm --topology "pack:2 core:14 pu:2" \
    < "$F/slurm-docs.txt" > "$T/out" || fail "slurm from stdin: exit $?"
grep -qx 'rank 6 host rishon1 cpus 0,32 core 0,16 l3 - numa 0 package 0-1' "$T/out" \
    || fail "slurm rank 6: $(cat "$T/out")"

# Usage errors: exit 2.
"$BINDLAB" bindings "$T/no-such-file" 2>/dev/null; [ $? = 2 ] || fail "missing file not 2"
"$BINDLAB" bindings "$F/slurm-docs.txt" --format mpich 2>/dev/null; [ $? = 2 ] || fail "bad format not 2"
"$BINDLAB" bindings 2>/dev/null; [ $? = 2 ] || fail "no input not 2"
"$BINDLAB" bindings --help | grep -q 'usage: bindlab bindings' || fail "--help"
"$BINDLAB" frobnicate 2> "$T/err"; [ $? = 2 ] || fail "unknown verb not 2"
grep -q 'bindings' "$T/err" || fail "unknown verb message does not name the verbs"
"$BINDLAB" --version | grep -q '^bindlab [0-9]' || fail "--version"

# Live: this machine, one rank per core.
command -v mpirun >/dev/null || { echo "no mpirun: live part skipped"; exit 77; }
npus=$(nproc --all)
[ "$npus" -ge 2 ] || { echo "fewer than 2 PUs: live part skipped"; exit 77; }
mpirun -np 2 --map-by core --bind-to core --report-bindings \
    sh -c 'echo "allowed $OMPI_COMM_WORLD_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' \
    > "$T/live" 2>&1 || fail "mpirun failed: $(cat "$T/live")"
"$BINDLAB" bindings "$T/live" > "$T/out" 2> "$T/err" || fail "live capture: exit $? $(cat "$T/err")"
[ "$(wc -l < "$T/out")" = 2 ] || fail "live: expected 2 ranks, got $(cat "$T/out")"
for r in 0 1; do
    want=$(awk -v r=$r '$1 == "allowed" && $2 == r {print $3}' "$T/live")
    got=$(awk -v r=$r '$1 == "rank" && $2 == r {print $6}' "$T/out")
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "rank $r: report says '$got', process saw '$want'"
done
[ "$(awk '{print $6}' "$T/out" | sort -u | wc -l)" = 2 ] || fail "live: both ranks on one CPU"
echo "ok"
