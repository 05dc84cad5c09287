#!/usr/bin/env bash
# --shard I/K outside a Slurm cluster: the K shards of a sweep are disjoint
# and together are the whole sweep. Expected run ids are derived by hand
# from the sweep file below (4 layouts, the last repeated 3 times = 6 runs),
# not from the harness.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3

cat >"$WORK/s.yaml" <<'YAML'
name: shardt
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
defaults: {np: 1, threads: 1}
layouts:
  - {name: a}
  - {name: b, bind_to: none}
  - {name: c, omp_places: cores}
  - {name: d, omp_proc_bind: close, repetitions: 3}
YAML
want="r0000 r0001 r0002 r0003.1 r0003.2 r0003.3"

# ids FILE: the run ids a --dry-run printed ("# rNNNN label" lines).
ids() { awk '$1 == "#" && $2 ~ /^r[0-9]/ {print $2}' "$1" | sort; }

"$BINDLAB" sweep --dry-run "$WORK/s.yaml" >"$WORK/all.dry"
[ "$(ids "$WORK/all.dry" | tr '\n' ' ')" = "$want " ] ||
    fail "unsharded run ids: $(ids "$WORK/all.dry" | tr '\n' ' '), expected $want"

# Every K, including more shards than runs: disjoint, union = the sweep.
for k in 1 2 4 7; do
    : >"$WORK/union"
    for i in $(seq 1 "$k"); do
        "$BINDLAB" sweep --dry-run --shard "$i/$k" "$WORK/s.yaml" >"$WORK/shard.dry"
        ids "$WORK/shard.dry" >>"$WORK/union"
    done
    dup=$(sort "$WORK/union" | uniq -d | tr '\n' ' ')
    [ -z "$dup" ] || fail "K=$k: runs in two shards: $dup"
    [ "$(sort "$WORK/union" | tr '\n' ' ')" = "$want " ] ||
        fail "K=$k: union of shards is $(sort "$WORK/union" | tr '\n' ' ')"
done
echo "ok: --shard I/K (dry run) for K = 1, 2, 4, 7"

# Really run K=2 the way a Slurm array does: both shards into one results
# directory at the same time, each with its own merged file.
"$BINDLAB" sweep --shard 1/2 --results "$WORK/res" -o "$WORK/s1.h5" "$WORK/s.yaml" >"$WORK/s1.out" 2>&1 &
p1=$!
"$BINDLAB" sweep --shard 2/2 --results "$WORK/res" -o "$WORK/s2.h5" "$WORK/s.yaml" >"$WORK/s2.out" 2>&1 ||
    { cat "$WORK/s2.out"; fail "shard 2/2 failed"; }
wait "$p1" || { cat "$WORK/s1.out"; fail "shard 1/2 failed"; }
# Which runs each shard ran: its own progress lines.
ran() { sed -n 's/^\[[0-9]*\/[0-9]*\] \(r[0-9.]*\) .*: ok .*/\1/p' "$1" | sort; }
ran "$WORK/s1.out" >"$WORK/ran1"
ran "$WORK/s2.out" >"$WORK/ran2"
[ -s "$WORK/ran1" ] && [ -s "$WORK/ran2" ] || fail "a shard ran nothing"
[ -z "$(comm -12 "$WORK/ran1" "$WORK/ran2")" ] || fail "both shards ran $(comm -12 "$WORK/ran1" "$WORK/ran2")"
[ "$(sort "$WORK/ran1" "$WORK/ran2" | tr '\n' ' ')" = "$want " ] || fail "shards ran $(sort "$WORK/ran1" "$WORK/ran2" | tr '\n' ' ')"
# The records on disk: one per run, each readable, merged by bindlab merge.
"$BINDLAB" merge -o "$WORK/all.h5" "$WORK/res/shardt.d" >/dev/null
got=$("$PY" - "$WORK/all.h5" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    ids = [r["run_id"].decode() if isinstance(r["run_id"], bytes) else r["run_id"] for r in f["summary"][()]]
    print(" ".join(sorted(ids)))
PYEOF
)
[ "$got " = "$want " ] || fail "merged shards hold $got, expected $want"
echo "ok: two shards run side by side in one results directory, disjoint, union = the sweep"
echo "1 passed, 0 failed"
