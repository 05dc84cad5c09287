#!/bin/bash
# bindlab-app --check: each rank judges its own placement after
# --mem-policy and before the first touch; the findings land in the run
# file's findings table (read here with h5py, not bindlab's reader) and on
# stderr. Each finding is provoked for real (taskset, the environment), and
# `bindlab check` run standalone in the same placement is the second
# opinion: the same finding ids. A clean placement records no warning (but
# the kernel's NUMA balancing one on a machine of several NUMA nodes).
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
BINDLAB=${BINDLAB:-$BINDLAB_BUILD_DIR/bindlab}

allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${allowed%%[-,]*}

# run NAME NP ENV... -- APP-ARGS...: bindlab-app --check on NP ranks, each
# under taskset -c $first (one CPU), with ENV set for the ranks.
run() {
    local name=$1 np=$2 rc=0
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env -u OMP_PLACES -u OMP_PROC_BIND -u OMP_NUM_THREADS "${envs[@]}" \
        "${MPIRUN[@]}" -np "$np" --bind-to none taskset -c "$first" "$BINDLAB_APP" \
        --kernel triad --size 3MiB --iters 2 --warmup 0 "$@" \
        --out "$WORK/$name.h5" >"$WORK/$name.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/$name.out" >&2; fail "$name: exit $rc"; }
}
# findings NAME: "RANK SEVERITY ID" lines of the file, sorted.
findings() {
    "$PY" - "$WORK/$1.h5" <<'EOF' | sort
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else v
with h5py.File(sys.argv[1], "r") as f:
    r = f["run"]
    if "findings" in r:
        for row in r["findings"][:]:
            print(row["rank"], s(row["severity"]), s(row["id"]))
EOF
}
# standalone_ids ENV...: the warning ids of `bindlab check --json` in the
# same placement (one rank, one CPU).
standalone_ids() {
    local rc=0
    env -u OMP_PLACES -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@" \
        taskset -c "$first" "$BINDLAB" check --json >"$WORK/standalone.json" || rc=$?
    [ "$rc" -le 1 ] || fail "bindlab check exited $rc"
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for f in d["findings"]:
    if f["severity"] == "warning": print(f["id"])' "$WORK/standalone.json" | sort
}

# 1. More threads than CPUs: 3 threads on one CPU.
run threads 1 OMP_NUM_THREADS=3 OMP_PROC_BIND=close -- --check
findings threads >"$WORK/threads.f"
expect_line "$WORK/threads.f" "0 warning omp-threads-exceed-cpus"
grep -q "rank 0 .*warning omp-threads-exceed-cpus" "$WORK/threads.out" ||
    fail "the finding is not on stderr"
[ "$(grep ' warning ' "$WORK/threads.f" | awk '{print $3}')" = \
  "$(standalone_ids OMP_NUM_THREADS=3 OMP_PROC_BIND=close)" ] ||
    fail "app --check and bindlab check disagree: $(cat "$WORK/threads.f") vs $(standalone_ids OMP_NUM_THREADS=3 OMP_PROC_BIND=close)"

# 2. Two ranks, OMP_PLACES without OMP_PROC_BIND: one warning per rank, each
#    row naming its own rank.
run places 2 OMP_NUM_THREADS=1 OMP_PLACES=cores -- --check
findings places >"$WORK/places.f"
expect_line "$WORK/places.f" "0 warning omp-places-without-bind"
expect_line "$WORK/places.f" "1 warning omp-places-without-bind"

# 3. The memory policy as --mem-policy left it is what is judged: bind to
#    the rank's own node is coherent (no memory warning), and a clean
#    placement has no warning at all (notes such as THP may remain).
run clean 1 OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores -- --check \
    --mem-policy bind:local-to-rank
findings clean >"$WORK/clean.f"
# NUMA balancing on a machine of several NUMA nodes is the kernel's own
# warning in every placement (as in test_check.sh): expected there, and
# the only one.
kernel_warning=""
[ "$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo 0)" != 0 ] &&
    [ "$(hwloc-calc -N numa all)" -gt 1 ] && kernel_warning=numa-balancing
if [ "$(awk '$2 == "warning" { print $3 }' "$WORK/clean.f")" != "$kernel_warning" ]; then
    cat "$WORK/clean.out" >&2
    fail "clean placement has warnings other than the kernel's (${kernel_warning:-none}): $(cat "$WORK/clean.f")"
fi
[ "$(standalone_ids OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores)" = "$kernel_warning" ] ||
    fail "bindlab check finds other warnings than the app (${kernel_warning:-none})"

# 4. Without --check nothing is judged and nothing recorded.
run unchecked 1 OMP_NUM_THREADS=3 -- 
[ -z "$(findings unchecked)" ] || fail "findings recorded without --check"
grep -q -- "--check:" "$WORK/unchecked.out" && fail "findings printed without --check"
echo "ok: --check findings recorded per rank, same ids as bindlab check"
