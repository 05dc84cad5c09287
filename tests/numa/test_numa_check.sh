#!/usr/bin/env bash
# bindlab check on a real NUMA kernel: judges here what
# tests/numa/guest_check.sh wrote inside the emulated 2s node's one boot
# (numa.boot.2s; two packages, one NUMA node each: node 0 = CPUs 0-3,
# node 1 = CPUs 4-7). The
# expected findings follow from what each numactl option means; the node
# layout is checked first from the guest's own numactl --hardware.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
guest_results 2s check

expect_line "$share/hardware.txt" "node 0 cpus: 0 1 2 3"
expect_line "$share/hardware.txt" "node 1 cpus: 4 5 6 7"

has() { grep -q -- "$2" "$share/$1.out" || { cat "$share/$1.out" >&2; fail "$1: expected '$2'"; }; }
hasnt() { ! grep -q -- "$2" "$share/$1.out" || { cat "$share/$1.out" >&2; fail "$1: did not expect '$2'"; }; }
rc_is() { [ "$(cat "$share/$1.rc")" = "$2" ] || { cat "$share/$1.out" >&2; fail "$1: exit $(cat "$share/$1.rc"), expected $2"; }; }

has clean '^cpus 0-3 on NUMA node 0$'
has clean '^memory policy bind nodes 0, allowed nodes 0-1$'
hasnt clean '^warning'; hasnt clean '^note'; rc_is clean 0
# --membind=1 from node 0's CPUs: every page remote.
has remote '^warning cpu-mem-nodes: .*every page is remote'; rc_is remote 1
# CPUs on both nodes, memory on node 0: node 1's threads get remote memory.
has partly '^warning cpu-mem-nodes: .*threads on node 1 get remote memory'
has partly '^warning cpus-cross-nodes'; rc_is partly 1
has wider '^note mem-nodes-wider'; rc_is wider 0
has preferred-remote '^warning preferred-remote: memory preferred on node 1'; rc_is preferred-remote 1
hasnt preferred-local '^warning'; rc_is preferred-local 0
# --localalloc with the CPUs on node 0 only: local memory, wider memory mask.
has localalloc '^memory policy local, allowed nodes 0-1$'
has localalloc '^note local-mask-wider'; rc_is localalloc 0
has interleave '^note interleave-remote: .*1 of every 2 pages'; rc_is interleave 0
has interleave-remote '^warning cpu-mem-nodes: memory interleave over node 1'; rc_is interleave-remote 1
has cross '^warning cpus-cross-nodes'; rc_is cross 1
[ "$(tr '\n' ' ' <"$share/siblings.txt")" = "0-1 0-1 2-3 2-3 " ] || fail "node 0's SMT siblings: $(cat "$share/siblings.txt")"
has smt '^warning smt-siblings: OMP_PLACES=threads with OMP_PROC_BIND=close puts the 2 threads on CPUs 0-1, two or more sharing core 0 .*, while core 2 of the process stays idle'
rc_is smt 1
hasnt smt-spread '^warning'; rc_is smt-spread 0
has balancing '^kernel numa_balancing 1,'
has balancing '^warning numa-balancing'; rc_is balancing 1
has thp '^kernel numa_balancing 0, transparent huge pages always$'
has thp '^note thp-always'; rc_is thp 0
# the guest's own kernel has cgroup v2 cpusets: a guest without them fails
[ ! -f "$share/cgroup.unavailable" ] || fail "$(cat "$share/cgroup.unavailable")"
has cgroup '^cgroup cpuset cpus 0-3 mems 1$'
has cgroup '^warning cpu-mem-nodes: CPUs on NUMA node 0, but memory is allowed only on node 1'
rc_is cgroup 1
# inside the cpuset the job may use its CPUs only, and check says where
# that set comes from (a real cgroup: the host's tests fake the tree)
has cgroup '^allowed cpus 0-3 (affinity 0-3, cgroup cpuset 0-3)$'
for r in 0 1; do
    grep -q "^rank $r: cpus $((r * 4))-$((r * 4 + 3)) on NUMA node $r\$" "$share/mpirun.out" ||
        { cat "$share/mpirun.out" >&2; fail "mpirun: rank $r not on node $r"; }
    grep -q "^rank $r: result coherent" "$share/mpirun.out" || fail "mpirun: rank $r not coherent"
done
rc_is mpirun 0

# --mem-policy: pages per node and the policy the kernel reported, read with
# h5py. 16 MiB of triad = 4096 pages (+1 for the arrays' alignment).
for name in firsttouch interleave remote local shared-serial shared-interleave; do
    rc_is "app-$name" 0
done
/usr/bin/python3 - "$share" <<'PY'
import sys, h5py
def run(name):
    with h5py.File(f"{sys.argv[1]}/app-{name}.h5", "r") as f:
        r = f["run"]
        pages = {int(m["numa_node"]): int(m["pages"]) for m in r["memory"][:]}
        kernel = [k.decode() if isinstance(k, bytes) else k for k in r["ranks"]["mem_policy"]]
        return pages, kernel, float(r["result"].attrs["local_page_fraction"])
ft, k, lf = run("firsttouch")
total = sum(v for n, v in ft.items() if n >= 0)
assert k == ["default"] and ft.get(0, 0) == total and lf == 1.0, (ft, k, lf)
il, k, lf = run("interleave")
assert k == ["interleave:0-1"], k
assert abs(il.get(0, 0) - total / 2) <= 4 and abs(il.get(1, 0) - total / 2) <= 4, (il, total)
rm, k, lf = run("remote")
assert k == ["bind:1"] and rm.get(1, 0) == total and rm.get(0, 0) == 0 and lf == 0.0, (rm, k, lf)
lo, k, lf = run("local")
assert k == ["bind:1"] and lo.get(1, 0) == total and lf == 1.0, (lo, k, lf)
# The shared table (16 MiB, 4096 pages) built by the master on CPU 0:
# all on node 0 under first touch, half on each node interleaved.
ss, k, lf = run("shared-serial")
sh = sum(v for n, v in ss.items() if n >= 0)
assert ss.get(0, 0) == sh and k == ["default"], (ss, k)
si, k, lf = run("shared-interleave")
assert abs(si.get(0, 0) - sh / 2) <= 2 and abs(si.get(1, 0) - sh / 2) <= 2, (si, sh)
print(f"ok: shared table built by one thread: first touch {ss}, interleave {si}")
print(f"ok: --mem-policy: first touch {ft}, interleave {il}, bind:1 from node 0 {rm}, local-to-rank on node 1 {lo}")
PY
echo "ok: bindlab check on the emulated NUMA node"
