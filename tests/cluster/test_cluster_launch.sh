#!/usr/bin/env bash
# MPI across namespaced nodes of a real Slurm cluster (tests/slurm/nodes.sh):
# Debian's Open MPI launched by `srun --mpi=pmix` and by `mpirun` inside an
# allocation (salloc, and sbatch where mpirun runs on the first node) on 2
# and 3 nodes. For each launch, three sources must agree on which node each
# rank ran on: the placement the app recorded (its --show-placement table
# and, for one run, the run file), the launcher's own report (Open MPI
# --report-bindings, srun --cpu-bind=verbose) and the answer worked out by
# hand from the layout and the nodes' CPUs (CLUSTER_PER_NODE ranks per node,
# cluster_common.sh; block: a node's ranks, then the next node's; cyclic /
# --map-by node: round robin over the nodes; ppr:K:node: K per node). The
# stencil and LU give the same checksums as on one node with the same
# ranks. A run restricted to shared memory (btl self,vader) cannot connect
# ranks on two nodes: the nodes share no memory transport; their messages
# go over TCP between the namespaces.
source "$(dirname "$0")/cluster_common.sh"
set +e +o pipefail # the checks below read exit statuses themselves
export OMP_NUM_THREADS=1
cd "$WORK" || fail "no work dir"

STENCIL=(--kernel stencil --grid 256x256 --iters 3 --warmup 1)
LU=(--kernel lu --n 203 --nb 16 --seed 11 --iters 2 --warmup 1)
# One-node references (ref, cluster_common.sh): the same kernel and rank
# count under plain mpirun.

# check NAME EXPECTED REFKEY CMD...: run CMD (on the login node), then
# recorded hosts == launcher's hosts == EXPECTED, verified, same checksum.
check() {
    local name=$1 want=$2 key=$3 out="$WORK/$1.out" got said c
    shift 3
    local rc
    on_head_launch "$name" "$out" "$@"
    rc=$?
    [ "$rc" = 0 ] || { bad "$name: exit $rc"; tail -n 15 "$out"; return; }
    got=$(ranks_hosts "$out")
    said=$(launcher_hosts "$out")
    [ "$got" = "$want" ] || bad "$name: ranks recorded on '$got', expected '$want'"
    [ "$said" = "$want" ] || bad "$name: the launcher says '$said', expected '$want'"
    [ "$(result "$out" verified)" = yes ] || bad "$name: not verified"
    c=$(result "$out" checksum)
    if [ "$key" = lu ] || [[ "$key" == lu* ]]; then
        awk -v a="$c" -v b="${REF[$key]}" 'BEGIN { d = a - b; if (d < 0) d = -d;
            m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-9 * m) }' ||
            bad "$name: LU checksum '$c' != one node's ${REF[$key]}"
    else
        [ "$c" = "${REF[$key]}" ] || bad "$name: checksum '$c' != one node's ${REF[$key]}"
    fi
    echo "ok: $name: $got"
}

# K ranks per node where a layout puts several (2; 1 on nodes of one CPU):
# 2K ranks on 2 nodes, 3K on 3; LU's process grid a row per node.
K=$CLUSTER_PER_NODE
N2=$((2 * K)) N3=$((3 * K))
ref st2 2 "${STENCIL[@]}"
ref st$N2 $N2 "${STENCIL[@]}"
ref st3 3 "${STENCIL[@]}"
ref st$N3 $N3 "${STENCIL[@]}"
ref lu2 2 "${LU[@]}" --grid 1x2
ref lurows $N2 "${LU[@]}" --grid 2x$K
ref lu3 3 "${LU[@]}" --grid 3x1
BLOCK2=$(numbered "$(block_hosts "$K" 2)")   # 0:bl1 1:bl1 2:bl2 3:bl2 (K=2)
CYCLIC2=$(numbered "$(cyclic_hosts "$N2" 2)") # 0:bl1 1:bl2 2:bl1 3:bl2

APP=$BINDLAB_APP
SHOW=(--show-placement)
MPIRUN_IN=(mpirun --allow-run-as-root --report-bindings --bind-to core)

start_cluster 2
on head sinfo -N
[ "$(on head sinfo -h -N -o %N | sort | tr '\n' ' ')" = "bl1 bl2 " ] || fail "nodes bl1 bl2 expected"

# srun --mpi=pmix: Slurm places and starts the ranks, PMIx wires them up.
SRUN=(srun --mpi=pmix "--cpu-bind=verbose,cores")
check srun-1-per-node "0:bl1 1:bl2" st2 "${SRUN[@]}" -N2 -n2 "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check srun-block "$BLOCK2" st$N2 "${SRUN[@]}" -N2 -n$N2 --distribution=block \
    "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check srun-cyclic "$CYCLIC2" st$N2 "${SRUN[@]}" -N2 -n$N2 --distribution=cyclic \
    "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check srun-lu "0:bl1 1:bl2" lu2 "${SRUN[@]}" -N2 -n2 "$APP" "${LU[@]}" --grid 1x2 "${SHOW[@]}"

# mpirun inside an allocation: Open MPI reads the allocation from Slurm and
# starts its daemons on the other nodes through Slurm itself.
check mpirun-ppr1 "0:bl1 1:bl2" st2 salloc -N2 -n2 "${MPIRUN_IN[@]}" --map-by ppr:1:node -n 2 \
    "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check mpirun-ppr$K "$BLOCK2" st$N2 salloc -N2 -n$N2 "${MPIRUN_IN[@]}" \
    --map-by ppr:$K:node -n $N2 "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check mpirun-by-slot "$BLOCK2" st$N2 salloc -N2 -n$N2 "${MPIRUN_IN[@]}" \
    --map-by slot -n $N2 "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check mpirun-by-node "$CYCLIC2" st$N2 salloc -N2 -n$N2 "${MPIRUN_IN[@]}" \
    --map-by node -n $N2 "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check mpirun-lu "$BLOCK2" lurows salloc -N2 -n$N2 "${MPIRUN_IN[@]}" \
    --map-by ppr:$K:node -n $N2 "$APP" "${LU[@]}" --grid 2x$K "${SHOW[@]}"

# sbatch: mpirun itself on the first node of the job, the run file written
# to the shared directory; its placement table names both nodes.
cat >"$WORK/job.sh" <<'JOB'
#!/bin/bash
mpirun --allow-run-as-root --report-bindings --bind-to core --map-by node -n 2 "$@"
JOB
jid=$(on head sbatch --parsable -N2 -n2 -o "$WORK/job.out" "$WORK/job.sh" \
    "$APP" "${STENCIL[@]}" "${SHOW[@]}" --out "$WORK/job.h5")
for _ in $(seq 1 240); do
    [ -z "$(on head squeue -h -j "$jid" -o %i 2>/dev/null)" ] && break
    sleep 0.5
done
[ -z "$(on head squeue -h -j "$jid" -o %i 2>/dev/null)" ] || bad "sbatch job $jid still there after 120 s"
[ "$(ranks_hosts "$WORK/job.out")" = "0:bl1 1:bl2" ] || bad "sbatch: ranks on '$(ranks_hosts "$WORK/job.out")'"
[ "$(result "$WORK/job.out" checksum)" = "${REF[st2]}" ] || bad "sbatch: checksum"
if "$PY" - "$WORK/job.h5" <<'PYEOF'; then
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    p = f["run/placement"][()]
    hosts = sorted({(int(r["rank"]), r["host"].decode()) for r in p})
    print("run file placement:", hosts)
    assert hosts == [(0, "bl1"), (1, "bl2")], hosts
PYEOF
    echo "ok: sbatch with mpirun on the first node: ranks on bl1 and bl2, run file agrees"
else
    bad "sbatch: the run file's placement hosts"
fi

# No shared memory between nodes: with only self and vader, Open MPI finds
# no path between ranks on bl1 and bl2 (and the run fails).
timeout 120 bash "$NODES_SH" exec "$CL" head salloc -N2 -n2 "${MPIRUN_IN[@]}" --map-by node -n 2 \
    --mca btl self,vader "$APP" "${STENCIL[@]}" >"$WORK/novader.out" 2>&1
rc=$?
[ "$rc" != 0 ] || bad "btl self,vader across two nodes succeeded: the nodes share memory?"
grep -q "unable to reach each other\|unreachable" "$WORK/novader.out" ||
    { bad "btl self,vader: not the unreachable-peer error"; tail -n 20 "$WORK/novader.out"; }
echo "ok: shared memory alone cannot join two nodes (exit $rc)"
bash "$NODES_SH" stop "$CL"

start_cluster 3
check srun3 "0:bl1 1:bl2 2:bl3" st3 "${SRUN[@]}" -N3 -n3 "$APP" "${STENCIL[@]}" "${SHOW[@]}"
check mpirun3-ppr1 "0:bl1 1:bl2 2:bl3" lu3 salloc -N3 -n3 "${MPIRUN_IN[@]}" --map-by ppr:1:node \
    -n 3 "$APP" "${LU[@]}" --grid 3x1 "${SHOW[@]}"
check mpirun3-ppr$K "$(numbered "$(block_hosts "$K" 3)")" st$N3 salloc -N3 -n$N3 "${MPIRUN_IN[@]}" \
    --map-by ppr:$K:node -n $N3 "$APP" "${STENCIL[@]}" "${SHOW[@]}"

[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all cluster launch checks passed"
