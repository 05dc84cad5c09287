#!/usr/bin/env bash
# What a run on several namespaced nodes (tests/slurm/nodes.sh) records
# about them: one machine record per node (/nodes/<k>, each with the
# hostname and topology of the node it describes, built there), every rank
# row naming its node, and what each rank sent per step inside its node and
# to the other (/run/traffic), against the count worked out by hand from
# the layout:
#   - stencil, 2D tiles of an NX x NY grid over MPI_Dims_create's grid
#     (3 ranks: 3x1, 4 ranks: 2x2; ranks row-major), radius R: a halo to
#     the west/east neighbour is ly*R doubles, to the south/north lx*R;
#     ppr:1:node puts every halo between nodes, block by 2 cores puts only
#     the middle one between nodes (3 ranks) or the north/south ones (4),
#     cyclic the west/east ones (nodes of one CPU: 2 ranks, one a node);
#   - LU on 1x2 (one rank per node): every byte between nodes, the panel
#     broadcasts of the panels a rank owns, 8*jb per block row of the solve
#     and the final 8-byte pivot check; LU on 2x2 with a process row per
#     node: what stays inside a node is the row's panel broadcasts, the
#     solve and the pivot check (the rest depends on the pivots).
# Each run verifies with the checksum of the same run on one node. Then a
# sweep inside the allocation merged after a one-node sweep: the cluster's
# nodes are renumbered, and every rank, check and traffic row still names
# the node of its host; each check read its report line with that node's
# topology.
source "$(dirname "$0")/cluster_common.sh"
: "${BINDLAB:?run through ctest}"
set +e +o pipefail
export OMP_NUM_THREADS=1
cd "$WORK" || fail "no work dir"
APP=$BINDLAB_APP
SRUN=(srun --mpi=pmix "--cpu-bind=verbose,cores")

# run NAME REFKEY CMD... (on the login node, --out NAME.h5 appended);
# launched again (at most twice, and said) when it died of Open MPI 4.1's
# MPI_Init race (init_race, cluster_common.sh)
run() {
    local name=$1 key=$2 rc
    shift 2
    on_head_launch "$name" "$WORK/$name.out" "$@" --out "$WORK/$name.h5"
    rc=$?
    [ "$rc" = 0 ] || { bad "$name: exit $rc"; tail -n 15 "$WORK/$name.out"; return 1; }
    [ "$(result "$WORK/$name.out" verified)" = yes ] || bad "$name: not verified"
    local c
    c=$(result "$WORK/$name.out" checksum)
    awk -v a="$c" -v b="${REF[$key]}" 'BEGIN { d = a - b; if (d < 0) d = -d;
        m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-9 * m) }' ||
        bad "$name: checksum '$c' != one node's ${REF[$key]}"
}

# check_records NAME WANT-HOSTS KIND ARGS: the run file against the layout
# (KIND stencil NX NY R, lu1x2 N NB, lu2x2 N NB).
check_records() {
    "$PY" - "$WORK/$1.h5" "$2" "$3" "${@:4}" <<'PYEOF'
import sys, h5py
path, want, kind, args = sys.argv[1], sys.argv[2].split(), sys.argv[3], [int(a) for a in sys.argv[4:]]
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    nodes = {int(k): s(f["nodes"][k].attrs["hostname"]) for k in f["nodes"]}
    assert sorted(nodes.values()) == sorted(set(want)), nodes
    assert nodes[0] == want[0], nodes                      # rank 0's node first
    assert f["machine"].attrs["hostname"] == f["nodes/0"].attrs["hostname"]
    for k in nodes:                                        # each built on its node
        xml = s(f["nodes/%d/topology_xml" % k][()])
        assert 'name="HostName" value="%s"' % nodes[k] in xml, (k, nodes[k])
    ranks = sorted(f["run/ranks"][()], key=lambda r: r["rank"])
    hosts = [s(r["host"]) for r in ranks]
    assert hosts == want, (hosts, want)
    node_of = [int(r["node"]) for r in ranks]
    assert [nodes[k] for k in node_of] == hosts, (node_of, hosts)
    t = {int(r["rank"]): r for r in f["run/traffic"][()]}
    assert sorted(t) == list(range(len(want)))
    for q in t:
        assert int(t[q]["node"]) == node_of[q], (q, t[q])
    np_ = len(want)
    same = lambda a, b: want[a] == want[b]
    if kind == "stencil":
        nx, ny, r = args
        dims = {2: (2, 1), 3: (3, 1), 4: (2, 2)}[np_]      # MPI_Dims_create
        def split(n, parts, i): return n // parts + (1 if i < n % parts else 0)
        for q in range(np_):
            row, col = divmod(q, dims[1])
            lx, ly = split(nx, dims[1], col), split(ny, dims[0], row)
            exp = [0, 0]
            for dr, dc, cells in ((0, -1, ly), (0, 1, ly), (-1, 0, lx), (1, 0, lx)):
                rr, cc = row + dr, col + dc
                if 0 <= rr < dims[0] and 0 <= cc < dims[1]:
                    exp[0 if same(q, rr * dims[1] + cc) else 1] += 8 * cells * r
            got = [t[q]["bytes_same_node"], t[q]["bytes_other_nodes"]]
            assert got == exp, (q, got, exp)
            print("rank %d: %d B per step inside its node, %d B between nodes (as worked out)" % (q, got[0], got[1]))
    else:
        n, nb = args
        p, qq = (1, 2) if kind == "lu1x2" else (2, 2)
        def rows_of(pr, below): return sum(1 for g in range(below) if (g // nb) % p == pr)
        for q in range(np_):
            myrow, mycol = divmod(q, qq)
            inside = 0
            for k0 in range(0, n, nb):                     # panel broadcasts
                jb = min(nb, n - k0)
                if (k0 // nb) % qq == mycol:
                    below = rows_of(myrow, n) - rows_of(myrow, k0 + jb)
                    inside += 8 * (jb + jb * jb + below * jb) * (qq - 1)
            for r0 in range(0, n, nb):                     # solve: reduce / x_R
                if (r0 // nb) % p == myrow:
                    inside += 8 * min(nb, n - r0)
            inside += 8                                    # pivot check
            got = [t[q]["bytes_same_node"], t[q]["bytes_other_nodes"]]
            if kind == "lu1x2":                            # one rank per node
                assert got == [0, inside], (q, got, inside)
            else:                                          # a process row per node
                assert got[0] == inside and got[1] > 0, (q, got, inside)
            print("rank %d: %d B per step inside its node, %d B between nodes" % (q, got[0], got[1]))
PYEOF
}

STENCIL=(--kernel stencil --iters 3 --warmup 1 --radius 2)
LU=(--kernel lu --n 203 --nb 16 --seed 11 --iters 2 --warmup 1)
# K ranks per node where a layout puts several (2; 1 on nodes of one CPU,
# cluster_common.sh): block of 2K, and of 2K-1 ranks (3: the middle halo
# between nodes; 1 CPU per node: 2 ranks, one a node); LU with a process
# row per node on 2x2 (K=2), else one rank per node under mpirun as well.
K=$CLUSTER_PER_NODE
N2=$((2 * K)) NB=$((K == 2 ? 3 : 2))
BLOCK_NB=$(block_hosts "$K" 1)" bl2"
BLOCK2=$(block_hosts "$K" 2)
CYCLIC2=$(cyclic_hosts "$N2" 2)
# the app's traffic line for the block of NB: 3 ranks 256x255, radius 2:
# the 0-1 halo inside bl1, the 1-2 one between; 2 ranks: one halo between
declare -A BLOCK_TRAFFIC=([3]="8192 B inside nodes, 8192 B between nodes"
    [2]="0 B inside nodes, 8192 B between nodes")
ref st2 2 "${STENCIL[@]}" --grid 256x255
ref stb $NB "${STENCIL[@]}" --grid 256x255
ref stq $N2 "${STENCIL[@]}" --grid 256x128
ref lu2 2 "${LU[@]}" --grid 1x2
[ "$K" = 2 ] && ref lu4 4 "${LU[@]}" --grid 2x2

start_cluster 2

# srun: one rank per node, block (2 cores of bl1 first), cyclic
run st-ppr1 st2 "${SRUN[@]}" -N2 -n2 "$APP" "${STENCIL[@]}" --grid 256x255 &&
    { check_records st-ppr1 "bl1 bl2" stencil 256 255 2 || bad "st-ppr1 records"; }
run st-block$NB stb "${SRUN[@]}" -N2 -n$NB --distribution=block "$APP" "${STENCIL[@]}" --grid 256x255 &&
    { check_records st-block$NB "$BLOCK_NB" stencil 256 255 2 || bad "st-block$NB records"; }
run st-block$N2 stq "${SRUN[@]}" -N2 -n$N2 --distribution=block "$APP" "${STENCIL[@]}" --grid 256x128 &&
    { check_records st-block$N2 "$BLOCK2" stencil 256 128 2 || bad "st-block$N2 records"; }
run st-cyclic$N2 stq "${SRUN[@]}" -N2 -n$N2 --distribution=cyclic "$APP" "${STENCIL[@]}" --grid 256x128 &&
    { check_records st-cyclic$N2 "$CYCLIC2" stencil 256 128 2 || bad "st-cyclic$N2 records"; }
grep -q "^traffic per step on 2 nodes: ${BLOCK_TRAFFIC[$NB]}$" "$WORK/st-block$NB.out" ||
    bad "st-block$NB: the app's traffic line: $(grep '^traffic' "$WORK/st-block$NB.out")"
run lu-ppr1 lu2 "${SRUN[@]}" -N2 -n2 "$APP" "${LU[@]}" --grid 1x2 &&
    { check_records lu-ppr1 "bl1 bl2" lu1x2 203 16 || bad "lu-ppr1 records"; }
# mpirun inside the allocation (its daemons started through Slurm)
if [ "$K" = 2 ]; then
    run lu-ppr2 lu4 salloc -N2 -n4 mpirun --allow-run-as-root --bind-to core --map-by ppr:2:node -n 4 \
        "$APP" "${LU[@]}" --grid 2x2 &&
        { check_records lu-ppr2 "bl1 bl1 bl2 bl2" lu2x2 203 16 || bad "lu-ppr2 records"; }
else
    run lu-mpirun-ppr1 lu2 salloc -N2 -n2 mpirun --allow-run-as-root --bind-to core --map-by ppr:1:node \
        -n 2 "$APP" "${LU[@]}" --grid 1x2 &&
        { check_records lu-mpirun-ppr1 "bl1 bl2" lu1x2 203 16 || bad "lu-mpirun-ppr1 records"; }
fi

# The harness: a one-node sweep here, a two-node sweep in the cluster,
# merged in that order: bl1 and bl2 become nodes 1 and 2.
stencil_sweep "$WORK/local.yaml" here local
stencil_sweep "$WORK/two.yaml" two ppr1
"$BINDLAB" sweep --results "$WORK/here" "$WORK/local.yaml" >"$WORK/here.out" 2>&1 ||
    { bad "one-node sweep: exit $?"; tail -n 20 "$WORK/here.out"; }
sweep_in_salloc "$WORK/two" "$WORK/two.yaml" two || bad "two-node sweep: exit $?"
two=$SWEPT
"$BINDLAB" merge -o "$WORK/merged.h5" "$WORK/here/here.h5" "$two/two.h5" >"$WORK/merge.out" 2>&1 ||
    { bad "merge: exit $?"; cat "$WORK/merge.out"; }
if "$PY" - "$WORK/merged.h5" "$(hostname)" <<'PYEOF'; then
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    nodes = {int(k): s(f["nodes"][k].attrs["hostname"]) for k in f["nodes"]}
    assert nodes == {0: sys.argv[2], 1: "bl1", 2: "bl2"}, nodes
    seen = {}
    for k in f["runs"]:
        r = f["runs"][k]; a = r.attrs
        assert s(a["status"]) == "ok", (k, s(a["reason"]))
        name = s(a["name"])
        ranks = r["ranks"][()]
        for row in ranks:
            assert nodes[int(row["node"])] == s(row["host"]), (k, row)
        for c in r["checks"][()]:
            # the report line was read with the topology of its rank's node
            assert c["matches"] == 1 and int(c["node"]) >= 0, (k, c)
            assert nodes[int(c["node"])] == s(c["host"]), (k, c)
        for t in r["traffic"][()]:
            row = [x for x in ranks if x["rank"] == t["rank"]][0]
            assert int(t["node"]) == int(row["node"]), (k, t)
        assert s(a["nodes"]) == ",".join(str(n) for n in sorted({int(x["node"]) for x in ranks})), (k, s(a["nodes"]))
        seen[name] = s(a["nodes"])
    assert seen == {"local": "0", "ppr1": "1,2"}, seen
    print("merged:", nodes, seen)
PYEOF
    echo "ok: merged one-node and two-node sweeps: nodes renumbered in ranks, checks and traffic"
else
    bad "merged records"
fi
"$BINDLAB" report "$WORK/merged.h5" >"$WORK/report.out" 2>&1 || bad "report: exit $?"
cat "$WORK/report.out"
# ppr:1:node on 256x256: each rank's one halo of 256 x 2 doubles crosses
grep -qxF "  r0000@bl1 (nodes 1,2, stencil): 0 B inside, 8192 B between" "$WORK/report.out" ||
    bad "report: no traffic line for the two-node run"

[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all cluster record checks passed"
