#!/usr/bin/env bash
# Kill anywhere: SIGKILL the harness at 20 random moments of sweeps (and, in
# some rounds, the app at a random moment of its run, its write included),
# resume each time, and check after every kill and at the end of each sweep:
#  - no process of the sweep is left (polled; 60 s is a deadline for a hung
#    test, not a timing assertion);
#  - no file under a final name (records, the app's files, the merged file)
#    is unreadable;
#  - a record, once it exists, never changes;
#  - a finished sweep's merged file holds every run exactly once, each one
#    as its record holds it, and the same set of runs as a clean sweep.
# The moments come from a seed and a span printed first:
# BINDLAB_KILL_SEED=N BINDLAB_KILL_SPAN_MS=M replays them.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
KILLS=${BINDLAB_KILLS:-20}
SEED=${BINDLAB_KILL_SEED:-$(( $(od -An -N2 -tu2 /dev/urandom) % 32768 ))}
echo "seed: $SEED"

# Every draw reads RANDOM in this shell: bash reseeds RANDOM in a subshell,
# so a draw inside $(...) would not come back with the seed.
# draw N: DRAW = a random whole number in [0, N).
draw() { DRAW=$((RANDOM % $1)); }
# ms N: DELAY = a random delay in [0, N) ms, as seconds for sleep.
ms() { draw "$1"; printf -v DELAY '%d.%03d' $((DRAW / 1000)) $((DRAW % 1000)); }
# The seed gives the same moments twice (no draw went through a subshell).
moments() { local out= i; RANDOM=$SEED; for i in 1 2 3 4 5 6 7 8; do ms 32000; out+="$DELAY "; done; echo "$out" >"$1"; }
moments "$WORK/moments1"
moments "$WORK/moments2"
cmp -s "$WORK/moments1" "$WORK/moments2" ||
    fail "seed $SEED gave other moments the second time: $(cat "$WORK/moments1") / $(cat "$WORK/moments2")"
RANDOM=$SEED

# Layouts that run on 1 core as well as on 64 (the cores this process may
# use: a sweep refuses a layout wider than the allowed set).
command -v hwloc-calc >/dev/null || fail "hwloc-calc is missing (scripts/deps.sh installs hwloc)"
allowed_cpus
NCORES=$ALLOWED_CORES
TWO=$((NCORES < 2 ? NCORES : 2))
cat >"$WORK/k.yaml" <<YAML
name: ka
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
defaults: {threads: 1, timeout: 120}
layouts:
  - {name: a, np: 1, bind_to: none}
  - {name: b, np: $TWO, omp_places: cores}
  - {name: c, np: 1, omp_proc_bind: close, repetitions: 2}
YAML

cat >"$WORK/check.py" <<'PYEOF'
"""check.py readable RESULTS NAME SEEN  |  check.py final RESULTS NAME SEEN CLEAN"""
import glob, hashlib, os, sys
import h5py, numpy as np

def s(v):
    return v.decode() if isinstance(v, bytes) else v

def read_all(path):
    """Opens path and reads every dataset and attribute in it."""
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            dict(obj.attrs)
            if isinstance(obj, h5py.Dataset):
                obj[()]
        f.visititems(visit)
        dict(f.attrs)

def final_names(d, name):
    out = [p for p in glob.glob(f"{d}/{name}.d/*.h5") + glob.glob(f"{d}/{name}.d/app/*.h5")
           if ".tmp." not in os.path.basename(p)]
    if os.path.exists(f"{d}/{name}.h5"):
        out.append(f"{d}/{name}.h5")
    return out

def records(d, name):
    return sorted(p for p in glob.glob(f"{d}/{name}.d/r*.h5") if ".tmp." not in p)

def md5(p):
    return hashlib.md5(open(p, "rb").read()).hexdigest()

def check_readable_and_unchanged(d, name, seen_path):
    seen = {}
    if os.path.exists(seen_path):
        for line in open(seen_path):
            k, v = line.split()
            seen[k] = v
    for p in final_names(d, name):
        try:
            read_all(p)
        except Exception as e:
            sys.exit(f"unreadable under its final name: {p}: {e}")
    for p in records(d, name):
        h = md5(p)
        if p in seen and seen[p] != h:
            sys.exit(f"a finished run's record changed: {p}")
        seen[p] = h
    with open(seen_path, "w") as f:
        for k, v in sorted(seen.items()):
            print(k, v, file=f)

def same(a, b, where):
    if set(a.attrs) != set(b.attrs):
        sys.exit(f"{where}: attributes differ: {sorted(a.attrs)} vs {sorted(b.attrs)}")
    for k in a.attrs:
        if not np.array_equal(np.asarray(a.attrs[k]), np.asarray(b.attrs[k])):
            sys.exit(f"{where}: attribute {k} differs")
    if isinstance(a, h5py.Dataset):
        if not isinstance(b, h5py.Dataset) or a.dtype != b.dtype or \
           not np.array_equal(a[()], b[()]):
            sys.exit(f"{where}: data differ")
        return
    if set(a) != set(b):
        sys.exit(f"{where}: members differ: {sorted(a)} vs {sorted(b)}")
    for k in a:
        same(a[k], b[k], f"{where}/{k}")

def runs_of(path):
    with h5py.File(path, "r") as f:
        return [(s(r["run_id"]), s(r["label"])) for r in f["summary"][()]]

mode, d, name, seen_path = sys.argv[1:5]
check_readable_and_unchanged(d, name, seen_path)
if mode == "final":
    clean = sorted(runs_of(sys.argv[5]))
    merged_path = f"{d}/{name}.h5"
    got = runs_of(merged_path)
    ids = [r for r, _ in got]
    dups = sorted({r for r in ids if ids.count(r) > 1})
    if dups:
        sys.exit(f"runs merged more than once: {dups}")
    if sorted(got) != clean:
        sys.exit(f"runs {sorted(got)} differ from a clean sweep's {clean}")
    with h5py.File(merged_path, "r") as m:
        for p in records(d, name):
            with h5py.File(p, "r") as r:
                for run in r["runs"]:
                    same(r["runs"][run], m["runs"][run], f"{p}:/runs/{run}")
    print(f"ok: {merged_path}: {len(got)} runs, each once, as recorded, = clean sweep")
PYEOF

# sweep_procs RESULTS: processes of a sweep on RESULTS (harness, supervisor,
# mpirun, ranks: each names RESULTS on its command line).
sweep_procs() { pgrep -f -- "--results $1 |$1/" || true; }
none_left() {
    for _ in $(seq 1 600); do
        [ -z "$(sweep_procs "$1")" ] && return 0
        sleep 0.1
    done
    fail "processes of the sweep on $1 still run after 60 s: $(pgrep -af -- "$1/" || true)"
}
# A clean sweep: the set of runs every killed sweep must end with. Its
# length (on this machine, under this load) scales the kill moments: a
# harness is killed within the first third of a whole sweep's time, so a
# killed sweep advances by about a run and kills land in every phase.
t0=$(date +%s%N)
"$BINDLAB" sweep --results "$WORK/clean" "$WORK/k.yaml" >"$WORK/clean.out" 2>&1 ||
    { cat "$WORK/clean.out"; fail "the clean sweep failed"; }
span=$(( ($(date +%s%N) - t0) / 3000000 + 1 ))
[ "$span" -lt 32000 ] || span=32000
span=${BINDLAB_KILL_SPAN_MS:-$span}
echo "clean sweep: $(grep -c '^\[' "$WORK/clean.out") runs; kills within the first $span ms of a harness"
echo "replay: BINDLAB_KILL_SEED=$SEED BINDLAB_KILL_SPAN_MS=$span ctest -R test_kill_anywhere"

cycle=1
kills=0
res="$WORK/k$cycle"
while [ "$kills" -lt "$KILLS" ]; do
    "$BINDLAB" sweep --resume --results "$res" "$WORK/k.yaml" >>"$WORK/k$cycle.out" 2>&1 &
    harness=$!
    what="harness"
    draw 3
    if [ "$DRAW" = 0 ]; then
        # The app at a random moment of its run (start-up, kernel, write).
        for _ in $(seq 1 300); do
            pgrep -f -- "^[^ ]*bindlab-app --kernel .*$res/" >/dev/null && break
            kill -0 "$harness" 2>/dev/null || break
            sleep 0.02
        done
        ms 400
        sleep "$DELAY"
        pkill -9 -f -- "^[^ ]*bindlab-app --kernel .*$res/" && what="app after $DELAY s, then harness"
    fi
    ms "$span"
    sleep "$DELAY"
    what+=" after $DELAY s"
    if kill -9 "$harness" 2>/dev/null; then
        wait "$harness" 2>/dev/null || true
        kills=$((kills + 1))
        none_left "$res"
        "$PY" "$WORK/check.py" readable "$res" ka "$WORK/seen$cycle" || fail "after kill $kills ($what)"
        echo "kill $kills ($what): $(ls "$res/ka.d" 2>/dev/null | grep -c '^r.*\.h5$' || true) records; nothing left running, all readable, records unchanged"
        continue
    fi
    # The sweep ended before the kill: it must have finished.
    set +e
    wait "$harness"
    rc=$?
    set -e
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$WORK/k$cycle.out"; fail "resumed sweep exit $rc"; }
    none_left "$res"
    "$PY" "$WORK/check.py" final "$res" ka "$WORK/seen$cycle" "$WORK/clean/ka.h5" || fail "sweep $cycle"
    cycle=$((cycle + 1))
    res="$WORK/k$cycle"
done

# The last sweep, resumed to its end.
set +e
"$BINDLAB" sweep --resume --results "$res" "$WORK/k.yaml" >>"$WORK/k$cycle.out" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$WORK/k$cycle.out"; fail "resumed sweep exit $rc"; }
none_left "$res"
"$PY" "$WORK/check.py" final "$res" ka "$WORK/seen$cycle" "$WORK/clean/ka.h5" || fail "sweep $cycle"
echo "ok: $kills kills over $cycle sweeps (seed $SEED)"
echo "1 passed, 0 failed"
