#!/bin/bash
# The sweep file's mem_policy key: crossed like any layout key, passed to
# the app as --mem-policy (nothing for firsttouch), refused with the app's
# own words when the app would refuse it, and recorded by the app in every
# run (read with h5py from the merged sweep file). Also the shared kernel's
# writes key, read by the app's own parser (0 to 100).
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }

cat >"$WORK/mp.yaml" <<'YAML'
name: mp
kernels:
  - {name: triad, size: 8MiB, iters: 1, warmup: 0}
defaults:
  np: 1
  threads: 1
  timeout: 120
sweep:
  mem_policy: [firsttouch, interleave, "bind:local-to-rank"]
YAML
"$BINDLAB" sweep --dry-run --results "$WORK/dry" "$WORK/mp.yaml" >"$WORK/dry.out" 2>&1 ||
    { cat "$WORK/dry.out" >&2; fail "dry run failed"; }
[ "$(grep -c '^mpirun' "$WORK/dry.out")" = 3 ] || { cat "$WORK/dry.out" >&2; fail "expected 3 runs"; }
[ "$(grep '^mpirun' "$WORK/dry.out" | grep -vc -- '--mem-policy')" = 1 ] || fail "firsttouch should pass no --mem-policy"
grep -q -- '--mem-policy interleave --out' "$WORK/dry.out" || fail "no --mem-policy interleave: $(cat "$WORK/dry.out")"
grep -q -- '--mem-policy bind:local-to-rank --out' "$WORK/dry.out" || fail "no --mem-policy bind:local-to-rank"
echo "ok: mem_policy crossed into 3 command lines"

sed 's/\[firsttouch, interleave, "bind:local-to-rank"\]/[firsttouch, spread]/' "$WORK/mp.yaml" >"$WORK/bad.yaml"
rc=0
"$BINDLAB" sweep --dry-run --results "$WORK/bad" "$WORK/bad.yaml" >"$WORK/bad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "mem_policy spread: exit $rc, expected 2"
grep -q "bad.yaml:[0-9]*:[0-9]*: .*mem_policy: 'spread' is not accepted; use firsttouch" "$WORK/bad.out" ||
    fail "message: $(cat "$WORK/bad.out")"
echo "ok: a bad mem_policy is refused with its place in the file"

# The shared kernel's writes: passed on, and refused past 100 at its line.
printf 'kernels:\n  - {name: shared, size: 4MiB, writes: 30}\nlayouts: [{np: 1, threads: 1}]\n' >"$WORK/w.yaml"
"$BINDLAB" sweep --dry-run --results "$WORK/wdry" "$WORK/w.yaml" >"$WORK/w.out" 2>&1 ||
    { cat "$WORK/w.out" >&2; fail "writes: dry run failed"; }
grep -q -- '--kernel shared --size 4MiB --writes 30 ' "$WORK/w.out" || fail "writes not passed: $(cat "$WORK/w.out")"
sed -i 's/writes: 30/writes: 101/' "$WORK/w.yaml"
rc=0
"$BINDLAB" sweep --dry-run --results "$WORK/wbad" "$WORK/w.yaml" >"$WORK/wbad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "w.yaml:2:.*writes" "$WORK/wbad.out" || fail "writes 101: exit $rc: $(cat "$WORK/wbad.out")"
echo "ok: writes passed to the shared kernel, 101 refused"

sed 's/\[firsttouch, interleave, "bind:local-to-rank"\]/[firsttouch, interleave]/' "$WORK/mp.yaml" >"$WORK/run.yaml"
"$BINDLAB" sweep --results "$WORK/res" -o "$WORK/run.h5" "$WORK/run.yaml" >"$WORK/run.out" 2>&1 ||
    { tail -n 20 "$WORK/run.out" >&2; fail "sweep failed"; }
"$PY" - "$WORK/run.h5" <<'PY'
import sys, h5py
def s(v):
    return v.decode() if isinstance(v, bytes) else v
seen = {}
with h5py.File(sys.argv[1], "r") as f:
    for rid, g in f["runs"].items():
        seen[s(g.attrs["label"])] = s(g.attrs["mem_policy"])
labels = sorted(seen)
assert len(seen) == 2, seen
assert sorted(seen.values()) == ["firsttouch", "interleave"], seen
for label, pol in seen.items():
    assert (" mem=interleave" in label) == (pol == "interleave"), (label, pol)
print("ok: runs recorded", seen)
PY

# The report: on one NUMA node the two policies cannot differ, and the
# table says so instead of ranking them; on several nodes it does not.
# (The node count is the machine's, from /sys.)
"$BINDLAB" report "$WORK/run.h5" >"$WORK/report.txt" || fail "report failed"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
note="note: triad: this machine has one NUMA node, so every memory policy (firsttouch, interleave) puts every page on it"
if [ "$nodes" -le 1 ]; then
    grep -qF "$note" "$WORK/report.txt" || { cat "$WORK/report.txt" >&2; fail "no one-NUMA-node note"; }
else
    grep -q "one NUMA node" "$WORK/report.txt" && fail "one-NUMA-node note on a $nodes-node machine"
fi
"$PY" - "$WORK/run.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    pols = sorted(v.decode() if isinstance(v, bytes) else v for v in f["summary"]["mem_policy"])
assert pols == ["firsttouch", "interleave"], pols
print("ok: /summary has each run's mem_policy", pols)
PY
# One policy only: nothing to say.
sed 's/\[firsttouch, interleave, "bind:local-to-rank"\]/[firsttouch]/' "$WORK/mp.yaml" >"$WORK/one.yaml"
"$BINDLAB" sweep --results "$WORK/res1" -o "$WORK/one.h5" "$WORK/one.yaml" >"$WORK/one.out" 2>&1 ||
    { tail -n 20 "$WORK/one.out" >&2; fail "one-policy sweep failed"; }
"$BINDLAB" report "$WORK/one.h5" >"$WORK/one.txt" || fail "report failed"
grep -q "one NUMA node" "$WORK/one.txt" && fail "one-NUMA-node note with a single policy"
echo "ok: report says when memory policies cannot differ"
