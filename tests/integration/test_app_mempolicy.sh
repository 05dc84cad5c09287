#!/bin/bash
# bindlab-app --mem-policy: the policy asked, the one the kernel reports and
# the pages per node, read from the run file with h5py (not bindlab's
# reader). Expectations: what each policy means on this machine's NUMA
# nodes (/sys), and the same run under first touch. With one NUMA node every
# policy puts the same pages on it; with two nodes holding memory,
# interleave spreads them evenly and bind to another node than the CPUs'
# makes all of them remote (tests/numa/test_numa_check.sh does that on the
# emulated NUMA node too).
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }

allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${allowed%%[-,]*}
N=$(node_of "$first")
# Nodes with memory, as the kernel numbers them.
mem_nodes=$(for d in /sys/devices/system/node/node[0-9]*; do
    awk '/MemTotal/ { exit !($4 > 0) }' "$d/meminfo" && echo "${d##*node}"
done | sort -n | paste -sd, -)
[ -n "$mem_nodes" ] || mem_nodes=0
echo "machine: CPU $first on node $N; nodes with memory: $mem_nodes"

# One rank on one CPU (its node is N), two threads.
app() { # app NAME POLICY
    local rc=0
    OMP_NUM_THREADS=2 "${MPIRUN[@]}" -np 1 --bind-to none taskset -c "$first" "$BINDLAB_APP" \
        --kernel triad --size 24MiB --iters 2 --warmup 0 --mem-policy "$2" \
        --out "$WORK/$1.h5" >"$WORK/$1.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/$1.out" >&2; fail "--mem-policy $2: exit $rc"; }
}
# facts NAME: "asked A", "kernel K", "node N pages P" lines from the file.
facts() {
    "$PY" - "$WORK/$1.h5" <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    r = f["run"]
    asked = r.attrs["mem_policy"]
    print("asked", asked.decode() if isinstance(asked, bytes) else asked)
    for row in r["ranks"][:]:
        k = row["mem_policy"]
        print("kernel", k.decode() if isinstance(k, bytes) else k)
    for row in r["memory"][:]:
        print("node", row["numa_node"], "pages", row["pages"])
EOF
}
want() { # want NAME LINE
    facts "$1" >"$WORK/$1.facts"
    expect_line "$WORK/$1.facts" "$2"
}

app ft firsttouch
want ft "asked firsttouch"
want ft "kernel default"
pages=$(awk '$1 == "node" && $2 == '"$N"' {print $4}' "$WORK/ft.facts")
if [ -z "$pages" ] || [ "$pages" -le 0 ]; then fail "first touch: no pages on node $N: $(cat "$WORK/ft.facts")"; fi

# The policy the kernel reports is what the option means (numactl's words).
app bind "bind:$N"
want bind "asked bind:$N"
want bind "kernel bind:$N"
app local bind:local-to-rank
want local "kernel bind:$N"
app pref "preferred:$N"
want pref "kernel preferred:$N"
app il interleave
want il "asked interleave"
want il "kernel interleave:$mem_nodes"
app il1 "interleave:$N"
want il1 "kernel interleave:$N"

if [ "$mem_nodes" = "$N" ]; then
    # One node with memory: every policy puts the same pages on it.
    for name in bind local pref il il1; do
        want "$name" "node $N pages $pages"
    done
    echo "ok: one NUMA node with memory: every policy gave first touch's $pages pages on node $N"
else
    # Two or more: interleave spreads evenly, bind to another node is remote.
    other=$(tr ',' '\n' <<<"$mem_nodes" | grep -vx "$N" | head -n1)
    app remote "bind:$other"
    want remote "node $other pages $pages"
    "$PY" - "$WORK/il.facts" "$mem_nodes" "$pages" <<'EOF'
import sys
counts = {}
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "node":
        counts[int(w[1])] = int(w[3])
nodes = [int(n) for n in sys.argv[2].split(",")]
total = int(sys.argv[3])
for n in nodes:
    # Round robin page by page: within one page per array of the even share.
    assert abs(counts.get(n, 0) - total / len(nodes)) <= max(4, total / 100), (n, counts, total)
EOF
    echo "ok: interleave spread $pages pages evenly over $mem_nodes; bind:$other put all on node $other"
fi

# Bad input: a node that does not exist, and a policy that is not one.
missing=$(( $(tr ',' '\n' <<<"$mem_nodes" | sort -n | tail -n1) + 1 ))
rc=0
"${MPIRUN[@]}" -np 1 "$BINDLAB_APP" --mem-policy "bind:$missing" --size 1MiB --iters 1 >"$WORK/bad" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "bind to a missing node: exit $rc, expected 2: $(cat "$WORK/bad")"
grep -q "mem-policy bind:$missing: this process may use NUMA node" "$WORK/bad" || fail "missing node message: $(cat "$WORK/bad")"
rc=0
"$BINDLAB_APP" --mem-policy spread >"$WORK/bad2" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--mem-policy spread: exit $rc, expected 2"
grep -q "'spread' is not accepted" "$WORK/bad2" || fail "bad policy message: $(cat "$WORK/bad2")"
echo "ok: --mem-policy recorded as asked and as the kernel reports it"
