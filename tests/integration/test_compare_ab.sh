#!/usr/bin/env bash
# bindlab compare FILE --ab A B on a real sweep (mpirun, tiny sizes): the
# numbers it prints are worked out a second way, in Python straight from the
# merged file (h5py): medians of the rates, the type-7 quantiles of the
# per-iteration slowest-rank times, and per run the sums over every thread
# of the cpu_migrations and context_switches counters and of the placement
# table's ctx_involuntary (recorded, >= 0, for every thread). Also: layouts
# named by run id and label, and the refusals.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py is not installed"; exit 77; }

allowed_cpus # two ranks, or one inside one allowed CPU (a sweep refuses more)
NP=$((ALLOWED_CORES < 2 ? ALLOWED_CORES : 2))
cat >"$WORK/ab.yaml" <<YAML
name: ab
kernels: [{name: triad, size: 2MiB, iters: 12, warmup: 1}]
defaults: {np: $NP, threads: 1, repetitions: 2, timeout: 60}
layouts:
  - {name: pinned, bind_to: core}
  - {name: free, bind_to: none}
YAML
"$BINDLAB" sweep --results "$WORK/res" "$WORK/ab.yaml" >"$WORK/sweep.out" 2>&1 ||
    { cat "$WORK/sweep.out"; fail "sweep failed"; }
"$BINDLAB" compare "$WORK/res/ab.h5" --ab pinned free >"$WORK/out" 2>"$WORK/err" ||
    { cat "$WORK/err"; fail "compare --ab: exit $?"; }
[ -s "$WORK/err" ] && fail "compare --ab: stderr: $(cat "$WORK/err")"
cat "$WORK/out"

"$PY" - "$WORK/res/ab.h5" >"$WORK/want" <<'PYEOF'
import math, sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else v
def q7(v, p):
    v = sorted(v); h = (len(v) - 1) * p; lo = math.floor(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])
def med(v): return q7(v, 0.5)
def span(v): return "%.0f [%.0f..%.0f]" % (med(v), min(v), max(v))
f = h5py.File(sys.argv[1], "r")
rows = f["summary"][()]
side = {}
for tag, name in (("A", "pinned"), ("B", "free")):
    rs = [r for r in rows if s(r["name"]) == name and s(r["status"]) == "ok" and r["verified"] == 1]
    assert len(rs) == 2, (name, len(rs))
    times, mig, sw, inv = [], [], [], []
    for r in rs:
        g = f["runs/" + s(r["run_id"])]
        t = g["timings"][()]
        times += [max(row) for row in t]
        c = g["counters"][()]
        for name_, out in (("cpu_migrations", mig), ("context_switches", sw)):
            vals = [x for x in c if s(x["name"]) == name_]
            assert vals and all(x["available"] == 1 for x in vals), name_
            out.append(sum(int(x["value"]) for x in vals))
        p = g["placement"][()]
        assert all(x["ctx_involuntary"] >= 0 and x["ctx_voluntary"] >= 0 for x in p)
        inv.append(sum(int(x["ctx_involuntary"]) for x in p))
    side[tag] = dict(rate=med([r["rate"] for r in rs]), label=s(rs[0]["label"]),
                     times=times, mig=mig, sw=sw, inv=inv)
a, b = side["A"], side["B"]
print("  A %.4g GB/s '%s' (2 runs)" % (a["rate"], a["label"]))
print("  B %.4g GB/s '%s' (2 runs) ratio B/A %.2f" % (b["rate"], b["label"], b["rate"] / a["rate"]))
print("    iteration times p50/p90/p99/max: A %.4g/%.4g/%.4g/%.4g s, B %.4g/%.4g/%.4g/%.4g s" %
      tuple([q7(a["times"], p) for p in (.5, .9, .99, 1)] + [q7(b["times"], p) for p in (.5, .9, .99, 1)]))
print("    in the timed region, all threads, per run (median [min..max]):")
for tag in "AB":
    x = side[tag]
    print("      %s: %s migrations, %s context switches, %s involuntary" %
          (tag, span(x["mig"]), span(x["sw"]), span(x["inv"])))
PYEOF
while IFS= read -r line; do expect_line "$WORK/out" "$line"; done <"$WORK/want"
grep -q '^    95% interval of the ratio \[' "$WORK/out" || fail "no interval line"
echo "ok: compare --ab on a real sweep: rates, ratio, tails, migrations and switches as the file says"

# By run id without the repetition, and by label: the same A/B.
lbl=$(sed -n "s/^  B [0-9.e+]* GB\/s '\(.*\)' (2 runs).*/\1/p" "$WORK/out")
"$BINDLAB" compare "$WORK/res/ab.h5" --ab r0000 "$lbl" >"$WORK/out2" || fail "compare --ab r0000 LABEL"
cmp -s "$WORK/out" "$WORK/out2" || { diff "$WORK/out" "$WORK/out2"; fail "--ab by run id and label differs"; }
echo "ok: layouts named by run id and by label"

set +e
"$BINDLAB" compare "$WORK/res/ab.h5" --ab pinned nosuch >"$WORK/o3" 2>"$WORK/e3"; rc=$?
"$BINDLAB" compare "$WORK/res/ab.h5" --ab pinned >"$WORK/o4" 2>"$WORK/e4"; rc4=$?
"$BINDLAB" compare "$WORK/res/ab.h5" --ab pinned free --csv >"$WORK/o5" 2>"$WORK/e5"; rc5=$?
set -e
[ "$rc" = 1 ] && grep -q "no usable runs of layout 'nosuch'" "$WORK/e3" || fail "unknown layout: exit $rc $(cat "$WORK/e3")"
[ "$rc4" = 2 ] && grep -q -- "--ab needs two layouts" "$WORK/e4" || fail "one layout: exit $rc4 $(cat "$WORK/e4")"
[ "$rc5" = 2 ] && grep -q -- "--ab writes text" "$WORK/e5" || fail "--ab --csv: exit $rc5 $(cat "$WORK/e5")"
echo "ok: refusals"
echo "3 passed, 0 failed"
