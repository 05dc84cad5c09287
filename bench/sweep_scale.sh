#!/usr/bin/env bash
# Harness overhead per run against sweep size: sweeps of 10, 100 and 1,000
# runs of a tiny kernel (triad, 1 MiB, 1 iteration, 1 rank x 1 thread).
# Overhead = the sweep's wall time minus the launcher's wall time of every
# run (what bindlab itself spends: planning, the record, the append to the
# merged file), per run. For the sweeps of 200 runs or more, also the
# overhead of the first 100 runs and of the last 100: each run's time is
# the gap between its progress line and the previous one (timestamped as
# printed), minus its launcher time (wall_s in the merged file, read with
# h5py). Goals (bench/all.sh): <= 0.10 s per run at 1,000 runs, last 100
# within 20% of the first 100.
# usage: bench/sweep_scale.sh [ROUNDS [SIZE ...]]   (default 1 10 100 1000;
#        1,000 runs take some 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
shift $(( $# > 0 ? 1 : 0 )); sizes=${*:-"10 100 1000"}
bindlab=${BINDLAB:-build/bindlab}
PY=/usr/bin/python3
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
"$PY" -c 'import h5py' 2>/dev/null || { echo "needs python3-h5py" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for n in $sizes; do
    cat >"$work/s$n.yaml" <<YAML
name: s$n
kernels: [{name: triad, size: 1MiB, iters: 1, warmup: 0}]
layouts: [{name: tiny, np: 1, threads: 1, repetitions: $n}]
YAML
done

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
for r in $(seq 1 "$rounds"); do
    for n in $sizes; do
        rm -rf "$work/res$n"
        start=$EPOCHREALTIME
        "$bindlab" sweep --results "$work/res$n" "$work/s$n.yaml" 2>&1 |
            while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done \
            >"$work/out$n.$r"
        end=$EPOCHREALTIME
        "$PY" - "$work/res$n/s$n.h5" "$work/out$n.$r" "$start" "$end" "$n" <<'PYEOF' >>"$work/rows"
import sys, h5py, re
path, out, start, end, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
with h5py.File(path, "r") as f:
    s = f["summary"][()]
wall = {r["run_id"].decode(): float(r["wall_s"]) for r in s}
assert len(wall) == n, (len(wall), n)
# progress lines: "<time> [i/N] RUN_ID ..."
t = [(float(l.split()[0]), l.split()[2]) for l in open(out) if re.match(r"^\S+ \[\d+/\d+\] ", l)]
assert len(t) == n, (len(t), n)
total = (end - start) - sum(wall.values())
line = "%d %.4f" % (n, total / n)
if n >= 200:
    over = [t[i][0] - t[i - 1][0] - wall[t[i][1]] for i in range(1, n)]
    line += " %.4f %.4f" % (sum(over[:100]) / 100, sum(over[-100:]) / 100)
print(line)
PYEOF
        tail -n1 "$work/rows" | awk -v r="$r" '{
            extra = (NF > 2) ? sprintf(" (first 100: %.3f, last 100: %.3f)", $3, $4) : ""
            printf "# round %d, %d runs: overhead %.3f s per run%s\n", r, $1, $2, extra }'
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh   # median
for n in $sizes; do
    o=$(awk -v n="$n" '$1 == n {print $2}' "$work/rows" | median)
    printf "sweep of %5d runs: harness overhead %.3f s per run (median of %d)\n" "$n" "$o" "$rounds"
    echo "bench-result sweep.n$n.overhead_s $o"
    if awk -v n="$n" '$1 == n && NF > 2 {f = 1} END {exit !f}' "$work/rows"; then
        a=$(awk -v n="$n" '$1 == n {print $3}' "$work/rows" | median)
        b=$(awk -v n="$n" '$1 == n {print $4}' "$work/rows" | median)
        printf "  first 100 runs %.3f s per run, last 100 %.3f s: last / first %.2f\n" "$a" "$b" "$(echo "$b / $a" | bc -l)"
        echo "bench-result sweep.n$n.last_vs_first $(echo "$b / $a" | bc -l | cut -c1-6)"
    fi
done
