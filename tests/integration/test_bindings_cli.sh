#!/bin/bash
# bindlab bindings: golden output on shipped fixtures, exit statuses, and a
# live mpirun --report-bindings capture checked against what each rank's
# process was really allowed to run on (/proc/self/status).
set -u
: "${BINDLAB:?BINDLAB not set (is the bindlab target built?)}"
: "${BINDLAB_FIXTURES:?}"
F=$BINDLAB_FIXTURES/bindreport
source "$(dirname "$0")/common.sh"
# These checks run on after a failed command (they test exit statuses):
set +e +o pipefail
T=$WORK

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

# Interleaved output of two ranks: refused at its line, exit 1, no rank
# half-read from it (rank 1 has the same map as rank 0, so reading the first
# binding alone would look fine).
printf '%s\n' '[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.][vm:1] MCW rank 1 bound to socket 0[core 0[hwt 0]]: [B/.]' \
    > "$T/interleaved"
"$BINDLAB" bindings "$T/interleaved" --topology "pack:1 core:2 pu:1" > "$T/out" 2> "$T/err"; rc=$?
[ "$rc" = 1 ] || fail "interleaved: exit $rc, expected 1"
grep -q "interleaved:1: more than one rank's binding in one line" "$T/err" || fail "interleaved: $(cat "$T/err")"
[ -s "$T/out" ] && fail "interleaved: printed a binding: $(cat "$T/out")"

# Inputs that are not captured output: a device, and more than the limit.
"$BINDLAB" bindings /dev/zero 2> "$T/err"; rc=$?
[ "$rc" = 2 ] || fail "/dev/zero: exit $rc, expected 2"
grep -q "'/dev/zero' is not a regular file or a pipe" "$T/err" || fail "/dev/zero: $(cat "$T/err")"
head -c $((64 * 1024 * 1024 + 1)) /dev/zero | "$BINDLAB" bindings - 2> "$T/err"; rc=$?
[ "$rc" = 2 ] || fail "64 MiB + 1 on stdin: exit $rc, expected 2"
grep -q "larger than 67108864 bytes (64 MiB)" "$T/err" || fail "big input: $(cat "$T/err")"
echo "ok"
