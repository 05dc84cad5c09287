#!/usr/bin/env bash
# Repetitions run interleaved (A B A B) unless asked otherwise: the order is
# read back from the records' start_time (when each launch began), not from
# the harness's progress lines. The expected orders are worked out by hand
# from the sweep file below: layouts a and b with 3 repetitions, c with 1.
#   interleaved:  a.1 b.1 c  a.2 b.2  a.3 b.3
#   consecutive:  a.1 a.2 a.3  b.1 b.2 b.3  c
# Shards are chosen on the layout-by-layout index (a.1=0 a.2=1 a.3=2 b.1=3
# b.2=4 b.3=5 c=6), so shard 1/2 holds a.1 a.3 b.2 c and shard 2/2 a.2 b.1
# b.3, each run interleaved.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py is not installed"; exit 77; }

cat >"$WORK/s.yaml" <<'YAML'
name: ilv
kernels: [{name: triad, size: 1MiB, iters: 3, warmup: 0}]
defaults: {np: 1, threads: 1, timeout: 60}
layouts:
  - {name: a, repetitions: 3}
  - {name: b, bind_to: none, repetitions: 3}
  - {name: c, omp_places: cores}
YAML

# order DIR: the run ids of the records in DIR by their start_time, and
# checks each record's repetition_order is $2.
order() {
    "$PY" - "$1" "$2" <<'PYEOF'
import glob, sys, h5py
rows = []
for p in glob.glob(sys.argv[1] + "/*.h5"):
    with h5py.File(p, "r") as f:
        for rid, g in f["runs"].items():
            a = g.attrs
            ro = a["repetition_order"]
            ro = ro.decode() if isinstance(ro, bytes) else ro
            if ro != sys.argv[2]:
                sys.exit(f"{p}: repetition_order {ro!r}, expected {sys.argv[2]!r}")
            st = a["status"]
            st = st.decode() if isinstance(st, bytes) else st
            if st != "ok":
                sys.exit(f"{p}: status {st}")
            rows.append((float(a["start_time"]), rid))
rows.sort()
print(" ".join(r for _, r in rows))
PYEOF
}

"$BINDLAB" sweep --results "$WORK/i" "$WORK/s.yaml" >"$WORK/i.out" 2>&1 ||
    { cat "$WORK/i.out"; fail "interleaved sweep failed"; }
got=$(order "$WORK/i/ilv.d" interleaved)
want="r0000.1 r0001.1 r0002 r0000.2 r0001.2 r0000.3 r0001.3"
[ "$got" = "$want" ] || fail "interleaved start order: $got, expected $want"
echo "ok: default order is interleaved by start time: $got"

"$BINDLAB" sweep --repetition-order consecutive --results "$WORK/c" "$WORK/s.yaml" >"$WORK/c.out" 2>&1 ||
    { cat "$WORK/c.out"; fail "consecutive sweep failed"; }
got=$(order "$WORK/c/ilv.d" consecutive)
want="r0000.1 r0000.2 r0000.3 r0001.1 r0001.2 r0001.3 r0002"
[ "$got" = "$want" ] || fail "consecutive start order: $got, expected $want"
echo "ok: --repetition-order consecutive: $got"

# The same through the sweep file's key.
sed 's/^name: ilv/name: ilv\nrepetition_order: consecutive/' "$WORK/s.yaml" >"$WORK/k.yaml"
"$BINDLAB" sweep --dry-run "$WORK/k.yaml" >"$WORK/k.dry"
got=$(awk '$1 == "#" {print $2}' "$WORK/k.dry" | tr '\n' ' ')
[ "$got" = "$want " ] || fail "repetition_order: consecutive in the file: dry run order $got"
echo "ok: repetition_order: consecutive in the sweep file"

# Bad values are refused with what is accepted.
sed 's/^name: ilv/name: ilv\nrepetition_order: random/' "$WORK/s.yaml" >"$WORK/bad.yaml"
set +e
"$BINDLAB" sweep --dry-run "$WORK/bad.yaml" >"$WORK/bad.out" 2>&1; rc=$?
"$BINDLAB" sweep --dry-run --repetition-order abab "$WORK/s.yaml" >"$WORK/bad2.out" 2>&1; rc2=$?
set -e
[ "$rc" = 2 ] && grep -q "bad.yaml:2:19: repetition_order: 'random' is not accepted; use interleaved" "$WORK/bad.out" ||
    { cat "$WORK/bad.out"; fail "a bad repetition_order: exit $rc"; }
[ "$rc2" = 2 ] && grep -q "repetition-order: 'abab' is not accepted" "$WORK/bad2.out" ||
    { cat "$WORK/bad2.out"; fail "a bad --repetition-order: exit $rc2"; }
echo "ok: bad repetition orders refused"

# --resume after two records went missing reruns just those, interleaved
# (b.2 before a.3), after every kept run.
rm "$WORK/i/ilv.d/r0001.2.h5" "$WORK/i/ilv.d/r0000.3.h5"
"$BINDLAB" sweep --resume --results "$WORK/i" "$WORK/s.yaml" >"$WORK/r.out" 2>&1 ||
    { cat "$WORK/r.out"; fail "resume failed"; }
grep -q '5 already done' "$WORK/r.out" || { cat "$WORK/r.out"; fail "resume did not keep 5 runs"; }
got=$(order "$WORK/i/ilv.d" interleaved)
want="r0000.1 r0001.1 r0002 r0000.2 r0001.3 r0001.2 r0000.3"
[ "$got" = "$want" ] || fail "after --resume: $got, expected $want"
echo "ok: --resume reruns the missing runs in interleaved order"

# Shards: the same split as before interleaving, each shard interleaved.
for s in 1 2; do
    "$BINDLAB" sweep --shard "$s/2" --results "$WORK/sh" -o "$WORK/sh$s.h5" "$WORK/s.yaml" >"$WORK/sh$s.out" 2>&1 ||
        { cat "$WORK/sh$s.out"; fail "shard $s/2 failed"; }
done
# A shard's records are those its progress lines name.
shard_order() {
    sed -n 's/^\[[0-9]*\/[0-9]*\] \(r[0-9.]*\) .*/\1/p' "$1" | tr '\n' ' '
}
[ "$(shard_order "$WORK/sh1.out")" = "r0000.1 r0002 r0001.2 r0000.3 " ] ||
    fail "shard 1/2 ran $(shard_order "$WORK/sh1.out")"
[ "$(shard_order "$WORK/sh2.out")" = "r0001.1 r0000.2 r0001.3 " ] ||
    fail "shard 2/2 ran $(shard_order "$WORK/sh2.out")"
got=$(order "$WORK/sh/ilv.d" interleaved)
[ "$got" = "r0000.1 r0002 r0001.2 r0000.3 r0001.1 r0000.2 r0001.3" ] ||
    fail "shards' records by start time: $got"
echo "ok: shards keep their runs and run them interleaved"
echo "5 passed, 0 failed"
