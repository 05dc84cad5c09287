#!/usr/bin/env python3
"""Checks what the runs inside the emulated NUMA node recorded against
expectations computed from the node's own topology (the lstopo XML taken
inside it) and from what the kernel was asked to do (numactl), never from
bindlab's own code. Reads HDF5 with h5py (independent of bindlab's reader).

  check_numa.py SHARE               the runs
  check_numa.py SHARE PLAN.tsv      plan equals reality

Prints one line per check; exits 1 when any fails."""
import sys
import xml.etree.ElementTree as ET

import h5py

share = sys.argv[1]
plan_tsv = sys.argv[2] if len(sys.argv) > 2 else None
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def cpus(text):
    """'0-3,8' -> {0,1,2,3,8}"""
    out = set()
    text = text.decode() if isinstance(text, bytes) else text
    for part in text.split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out |= set(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def bitmap(mask):
    """hwloc XML cpuset '0x0000000f' (or '0x..,0x..') -> set of indexes"""
    words = mask.split(",")
    value = 0
    for w in words:
        value = (value << 32) | (int(w, 16) if w.startswith("0x") and w != "0x" else 0)
    return {i for i in range(value.bit_length()) if value >> i & 1}


# --- the topology, from the node's own lstopo XML --------------------------
root = ET.parse(f"{share}/topo.xml").getroot()
numa_pus = []   # logical NUMA index -> set of PU OS indexes
numa_os = []    # logical NUMA index -> OS index
numa_pkg = []   # logical NUMA index -> package logical index
pkgs = []


def walk(obj, pkg):
    if obj.get("type") == "Package":
        pkg = len(pkgs)
        pkgs.append(obj)
    for child in obj.findall("object"):
        if child.get("type") == "NUMANode":
            numa_pus.append(bitmap(child.get("cpuset")))
            numa_os.append(int(child.get("os_index")))
            numa_pkg.append(pkg)
        walk(child, pkg)


for top in root.findall("object"):
    walk(top, -1)
all_pus = set().union(*numa_pus)
nnodes = len(numa_pus)
print(f"topology: {len(pkgs)} packages, {nnodes} NUMA nodes, {len(all_pus)} PUs")
check(nnodes >= 2, "the node has several NUMA nodes")


def node_of_cpu(cpu):
    return next(n for n in range(nnodes) if cpu in numa_pus[n])


def table(group, name):
    return group[name][()] if name in group else []


def rows(group, name):
    data = table(group, name)
    return [{k: (v.decode() if isinstance(v, bytes) else v)
             for k, v in zip(data.dtype.names, r)} for r in data]


def pages_by_rank(group):
    out = {}
    for r in rows(group, "memory"):
        out.setdefault(r["rank"], {})[r["numa_node"]] = r["pages"]
    return out


def present(counts):
    return sum(v for n, v in counts.items() if 0 <= n < nnodes)


def attr(g, k):
    v = g.attrs[k]
    return v.decode() if isinstance(v, bytes) else str(v)


def sweep(name):
    f = h5py.File(f"{share}/{name}.h5", "r")
    runs = {}
    for rid, g in f["runs"].items():
        runs[attr(g, "name")] = (rid, g)
    return f, runs


def check_runs():
    """Every figure the runs recorded, against the topology."""
    # --- one rank, one thread per NUMA node ----------------------------------
    def one_rank(name, run_id=None):
        """A bindlab-app run file (/run), or run run_id of a sweep file."""
        f = h5py.File(f"{share}/{name}.h5", "r")
        g = f["run"] if run_id is None else f["runs"][run_id]
        return f, g, rows(g, "placement"), pages_by_rank(g)[0]


    def run_id_of(sweep_name, layout):
        with h5py.File(f"{share}/{sweep_name}.h5", "r") as f:
            for rid, g in f["runs"].items():
                if g.attrs["name"] in (layout, layout.encode()):
                    return rid
        raise SystemExit(f"FAIL {sweep_name}: no layout named {layout}")


    f, run, place, pages = one_rank("numa-snc2", run_id_of("numa-snc2", "1rank-numa-spread"))
    thread_nodes = [node_of_cpu(p["cpu_last"]) for p in place]
    check(sorted(thread_nodes) == list(range(nnodes)),
          f"par: threads on NUMA nodes {thread_nodes}, one per node")
    for p in place:
        n = node_of_cpu(p["cpu_last"])
        check(cpus(p["cpuset"]) == numa_pus[n],
              f"par: thread {p['thread']} bound to {p['cpuset']} = NUMA node {n}'s PUs")
    share_pages = present(pages) / len(place)
    for p, n in zip(place, thread_nodes):
        frac = pages.get(n, 0) / share_pages
        check(frac >= 0.99, f"par: thread {p['thread']}'s share on its node {n}: {frac:.4f} >= 0.99")
    check(f["machine"].attrs["numa_balancing"] == 0, "par: numa_balancing 0 recorded")
    virt = f["machine"].attrs.get("virtualization", b"")
    virt = virt.decode() if isinstance(virt, bytes) else str(virt)
    check(virt.startswith("emulated:"), f"par: the run file says the machine is emulated ({virt!r})")
    lpf = run["result"].attrs["local_page_fraction"]
    check(lpf >= 0.99, f"par: recorded local page fraction {lpf:.4f} >= 0.99")

    f, run, place, pages = one_rank("numa-snc2", run_id_of("numa-snc2", "1rank-numa-serial"))
    master = node_of_cpu(place[0]["cpu_last"])
    frac = pages.get(master, 0) / present(pages)
    check(frac >= 0.99, f"ser: pages on the master's node {master}: {frac:.4f} >= 0.99")
    lpf = run["result"].attrs["local_page_fraction"]
    check(abs(lpf - 1 / nnodes) < 0.02, f"ser: local page fraction {lpf:.4f} ~ 1/{nnodes}")

    f, run, place, pages = one_rank("membind")
    want = numa_os.index(2)
    frac = pages.get(want, 0) / present(pages)
    check(frac == 1.0, f"membind: numactl --membind=2: fraction on node 2 {frac:.4f} = 1")

    f, run, place, pages = one_rank("interleave")
    for n in range(nnodes):
        frac = pages.get(n, 0) / present(pages)
        check(abs(frac - 1 / nnodes) < 0.01,
              f"interleave: numactl --interleave=all: node {n} holds {frac:.4f} ~ 1/{nnodes}")

    # With 2 MiB huge pages each of the 3 arrays has nthreads - 1 share
    # boundaries whose huge page lands whole on one side: at most one huge page
    # per boundary is remote, plus the unaligned head and tail.
    f, run, place, pages = one_rank("par-thp")
    total = present(pages)
    bound = 1 - 3 * (len(place) + 1) * 512 / total
    lpf = run["result"].attrs["local_page_fraction"]
    check(lpf >= bound, f"par-thp: THP always: local fraction {lpf:.4f} >= {bound:.4f} (huge-page bound)")

    f, run, place, pages = one_rank("numa-first-touch", run_id_of("numa-first-touch", "first-touch-parallel"))
    check(f["machine"].attrs["numa_balancing"] == 1, "par-bal1: numa_balancing 1 recorded")
    lpf = run["result"].attrs["local_page_fraction"]
    check(lpf >= 0.99, f"par-bal1: local page fraction {lpf:.4f} >= 0.99 with balancing on")


    # --- the sweeps ---------------------------------------------------------
    def sweep(name):
        f = h5py.File(f"{share}/{name}.h5", "r")
        runs = {}
        for rid, g in f["runs"].items():
            runs[g.attrs["name"].decode() if isinstance(g.attrs["name"], bytes)
                 else g.attrs["name"]] = (rid, g)
        return f, runs


    def attr(g, k):
        v = g.attrs[k]
        return v.decode() if isinstance(v, bytes) else str(v)


    ft, fruns = sweep("numa-first-touch")
    check(ft["machine"].attrs["numa_balancing"] == 1, "first-touch sweep: numa_balancing 1 recorded")
    for name, (rid, g) in fruns.items():
        flags = attr(g, "flags").split(",")
        check("numa-balancing" in flags, f"first-touch sweep {name}: flags {flags} have numa-balancing")
        # With balancing on, the kernel migrates pages towards the threads
        # that use them: a serial first touch ends anywhere between 1/nodes
        # local and all local, depending on how long the run lasted.
        lpf = g["result"].attrs["local_page_fraction"]
        want = 0.99 if name == "first-touch-parallel" else 1 / nnodes - 0.02
        # Pages the balancer had just made NUMA-hinting PROT_NONE entries,
        # which move_pages calls not present, are located through
        # /proc/self/pagemap (app/measure/pagemap.c): never "unknown" (-1).
        check(lpf >= want, f"first-touch sweep {name}: local pages {lpf:.4f} >= {want:.2f} with balancing on")

    fs, runs = sweep("numa-snc2")
    check(fs["machine"].attrs["numa_balancing"] == 0, "numa-snc2 sweep: numa_balancing 0 recorded")
    for name, (rid, g) in sorted(runs.items()):
        check(attr(g, "status") == "ok", f"{rid} {name}: status {attr(g, 'status')}")
        flags = set(attr(g, "flags").split(",")) - {""}
        check("numa-balancing" not in flags, f"{rid} {name}: no numa-balancing flag with it off")
        place = rows(g, "placement")
        pages = pages_by_rank(g)
        bind = attr(g, "omp_proc_bind")
        check(("omp-unbound" in flags) == (bind in ("", "false")),
              f"{rid} {name}: omp-unbound flag iff OMP_PROC_BIND unset ({sorted(flags)})")
        # rank-spans-numa: a rank whose threads ran on CPUs of 2+ NUMA nodes.
        spans = any(len({node_of_cpu(p["cpu_last"]) for p in place if p["rank"] == r}) > 1
                    for r in {p["rank"] for p in place})
        check(("rank-spans-numa" in flags) == spans,
              f"{rid} {name}: rank-spans-numa flag iff a rank's threads span nodes ({spans})")
        if attr(g, "bind_to") == "numa" or attr(g, "map_by").startswith("ppr:1:numa"):
            seen = set()
            for p in place:
                if p["thread"] != 0:
                    continue
                rank_set = cpus(p["rank_cpuset"])
                n = node_of_cpu(min(rank_set))
                seen.add(n)
                check(rank_set == numa_pus[n],
                      f"{rid} {name}: rank {p['rank']}'s cpuset {p['rank_cpuset']} = node {n}'s PUs")
                c = pages.get(p["rank"], {})
                frac = c.get(n, 0) / max(present(c), 1)
                check(frac >= 0.99, f"{rid} {name}: rank {p['rank']}'s pages on node {n}: {frac:.4f}")
            check(len(seen) == nnodes, f"{rid} {name}: one rank per NUMA node")
        # places threads + close with one thread per PU: thread t on the
        # rank's t-th PU.
        if attr(g, "omp_places") == "threads" and bind == "close":
            for p in place:
                mine = sorted(cpus(next(q["rank_cpuset"] for q in place
                                        if q["rank"] == p["rank"] and q["thread"] == 0)))
                if p["thread"] < len(mine):
                    check(cpus(p["cpuset"]) == {mine[p["thread"]]},
                          f"{rid} {name}: close thread {p['rank']}.{p['thread']} on PU {mine[p['thread']]} ({p['cpuset']})")
        if name == "ppr-socket":
            check("rank-spans-numa" in flags, f"{rid} {name}: one rank per socket spans NUMA nodes")
        if name == "nothing-bound":
            check(all(cpus(p["rank_cpuset"]) == all_pus for p in place),
                  f"{rid} {name}: unbound ranks may use every PU")
        if name == "1rank-numa-serial":
            check("remote-pages" in flags, f"{rid} {name}: serial first touch flagged remote-pages")
        if name == "1rank-numa-spread":
            check("remote-pages" not in flags, f"{rid} {name}: parallel first touch not flagged")


    check_memory()


def check_memory():
    """configs/sweeps/numa-memory.yaml: first touch against interleave for
    triad and the shared table, one unbound rank with a thread on every PU."""
    fm, runs = sweep("numa-memory")
    seen = set()
    for layout_kernel, (rid, g) in sorted(((attr(g, "name"), attr(g, "kernel")), (rid, g))
                                          for rid, g in fm["runs"].items()):
        name, kernel = layout_kernel
        seen.add(layout_kernel)
        what = f"numa-memory {rid} {name} {kernel}"
        check(attr(g, "status") == "ok", f"{what}: status {attr(g, 'status')}")
        c = pages_by_rank(g).get(0, {})
        total = present(c)
        per_node = [c.get(n, 0) for n in range(nnodes)]
        check(total > 0, f"{what}: pages recorded ({c})")
        if total == 0:
            continue
        ranks = rows(g, "ranks")
        kpol = ranks[0].get("mem_policy", "") if ranks else ""
        if name == "interleave":
            # Round robin page by page over every node: equal shares, up to
            # one page per array and node.
            check(kpol.startswith("interleave"), f"{what}: kernel reports {kpol!r}")
            check(min(per_node) > 0 and max(per_node) - min(per_node) <= max(4, total // 100),
                  f"{what}: interleave spreads pages evenly: {per_node}")
        elif name == "firsttouch-serial":
            # The master thread touched everything: one node holds it all.
            master = next(p for p in rows(g, "placement") if p["rank"] == 0 and p["thread"] == 0)
            home = node_of_cpu(master["cpu_first"])
            check(c.get(home, 0) / total >= 0.99,
                  f"{what}: serial first touch puts the table on the master's node {home}: {per_node}")
        else:
            # Parallel first touch: each thread's block on its node, so
            # every node holds about a quarter and the pages are local.
            check(min(per_node) >= total / nnodes * 0.8,
                  f"{what}: parallel first touch spreads the blocks over every node: {per_node}")
            lpf = g["result"].attrs["local_page_fraction"]
            check(lpf >= 0.99, f"{what}: parallel first touch local pages {lpf:.4f} >= 0.99")
    want = {(n, k) for n in ("firsttouch-parallel", "firsttouch-serial", "interleave")
            for k in ("triad", "shared")}
    check(seen == want, f"numa-memory: every layout ran for both kernels ({sorted(seen)})")
    with open(f"{share}/report-memory.txt") as t:
        text = t.read()
    check("one NUMA node" not in text,
          "numa-memory report: no one-NUMA-node note on a 4-node machine")


def check_plan():
    """bindlab plan on the node's own topology vs the recorded placement."""
    # --- plan equals reality --------------------------------------------------
    fs, runs = sweep("numa-snc2")
    planned = {}
    with open(plan_tsv) as t:
        head = t.readline().rstrip("\n").split("\t")
        for line in t:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            planned.setdefault(r["run_id"], {})[(int(r["rank"]), int(r["thread"]))] = cpus(r["pus"])
    compared = 0
    for name, (rid, g) in sorted(runs.items()):
        recorded = {(p["rank"], p["thread"]): cpus(p["cpuset"]) for p in rows(g, "placement")}
        if rid not in planned:
            # The plan places a layout once: runs that differ only in what
            # does not move ranks or threads (init, kernel) share it.
            keys = ("np", "map_by", "bind_to", "rank_by", "omp_places", "omp_proc_bind", "threads")
            twin = [r for r, h in runs.values() if r in planned and
                    all(attr(h, k) == attr(g, k) for k in keys)]
            if twin:
                print(f"     {rid} is planned as {twin[0]} (same layout)")
                planned[rid] = planned[twin[0]]
        if rid not in planned:
            check(False, f"plan {rid} {name}: bindlab plan gave no placement for this layout")
            continue
        same = planned[rid] == recorded
        if not same:
            diff = [(k, sorted(planned[rid].get(k, ())), sorted(recorded.get(k, ())))
                    for k in sorted(set(planned[rid]) | set(recorded))
                    if planned[rid].get(k) != recorded.get(k)]
            print(f"     plan vs recorded: {diff[:4]}")
        check(same, f"plan {rid} {name}: every thread's planned PUs = recorded cpuset")
        compared += same
    check(compared >= 10, f"plan equals reality for {compared} layouts (>= 10)")



if plan_tsv is None:
    check_runs()
else:
    check_plan()
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
