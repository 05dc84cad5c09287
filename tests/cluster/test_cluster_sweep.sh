#!/usr/bin/env bash
# bindlab across namespaced Slurm nodes (tests/slurm/nodes.sh): a sweep
# whose layouts name their nodes (nodes: 2, ppr:1:node, ppr:2:node, block
# by core, cyclic by node) run by `bindlab sweep` inside an allocation, with
# mpirun and with srun, and by the scripts of `bindlab slurm` (one job, an
# array of 2 + merge, srun); every run ok and verified, no binding
# mismatch, each rank on the node worked out by hand from its layout (as
# the run file's ranks table records it), the layout's nodes in the record,
# each node's lstopo saved by the job. Then a node killed in the middle of a
# run (its slurmd, step daemons and ranks): that run is recorded failed with
# the reason, the sweep goes on to the next run (on the node still up), and
# all of it ends before the run's timeout.
source "$(dirname "$0")/cluster_common.sh"
: "${BINDLAB:?run through ctest}"
set +e +o pipefail
cd "$WORK" || fail "no work dir"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$WORK/nodes.yaml" <<'YAML'
name: nodesweep
kernels:
  - {name: stencil, grid: 256x256, iters: 3, warmup: 1}
defaults: {threads: 1, timeout: 120, bind_to: core}
layouts:
  - {name: ppr1, np: 2, nodes: 2, map_by: "ppr:1:node"}
  - {name: ppr2, np: 4, nodes: 2, map_by: "ppr:2:node"}
  - {name: block, np: 4, nodes: 2, map_by: core}
  - {name: cyclic, np: 4, nodes: 2, map_by: node}
YAML
# Where each layout's ranks land (rank 0, 1, ...), by hand: 2 cores per
# node; ppr:K:node and block fill a node's K (2) slots before the next;
# by node deals the ranks round robin.
declare -A WANT=(
    [ppr1]="bl1 bl2"
    [ppr2]="bl1 bl1 bl2 bl2"
    [block]="bl1 bl1 bl2 bl2"
    [cyclic]="bl1 bl2 bl1 bl2"
)
WANT_PY=$(for k in "${!WANT[@]}"; do printf '%s=%s;' "$k" "${WANT[$k]}"; done)

# check_sweep FILE NRUNS LAUNCHER: the merged file's runs against WANT.
check_sweep() {
    "$PY" - "$1" "$2" "$3" "$WANT_PY" <<'PYEOF'
import sys, h5py
path, nruns, launcher, want = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
want = dict((k, v.split()) for k, v in (kv.split("=") for kv in want.split(";") if kv))
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    runs = f["runs"]
    assert len(runs) == nruns, (path, len(runs))
    for k in runs:
        r = runs[k]; a = r.attrs
        name = s(a["name"])
        assert s(a["status"]) == "ok", (k, name, s(a["status"]), s(a["reason"]))
        assert r["result"].attrs["verified"] == 1, (k, name)
        assert "binding-mismatch" not in s(a["flags"]), (k, name, s(a["flags"]))
        assert "host-mismatch" not in s(a["flags"]), (k, name, s(a["flags"]))
        # every rank's report line came from its own node and was read
        checks = r["checks"][()]
        assert len(checks) == len(want[name]) and all(c["matches"] == 1 for c in checks), (k, checks)
        assert s(a["launcher"]) == launcher, (k, s(a["launcher"]))
        assert int(a["layout_nodes"]) == 2, (k, int(a["layout_nodes"]))
        hosts = [s(x["host"]) for x in sorted(r["ranks"][()], key=lambda x: x["rank"])]
        assert hosts == want[name], (k, name, hosts, want[name])
        print(k, name, "ok on", " ".join(hosts))
PYEOF
}

wait_jobs() {
    local ids
    ids=$(IFS=,; echo "$*")
    for _ in $(seq 1 360); do
        [ -z "$(on head squeue -h -j "$ids" -o %i 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    on head squeue >&2
    bad "jobs $* still there after 180 s"
}

start_cluster 2

# 1. Outside an allocation mpirun cannot reach the other node: refused
# before anything runs, with the reason.
"$BINDLAB" sweep --results "$WORK/outside" "$WORK/nodes.yaml" >"$WORK/outside.out" 2>&1
rc=$?
[ "$rc" = 2 ] || bad "a nodes: 2 sweep outside an allocation: exit $rc, expected 2"
grep -q "nodes 2: mpirun reaches other nodes through a Slurm allocation, and SLURM_JOB_NODELIST is not set" \
    "$WORK/outside.out" || { bad "no reason for the refusal"; cat "$WORK/outside.out"; }

# 2. bindlab sweep inside salloc (the harness on the login node), mpirun.
on head salloc -N2 --exclusive "$BINDLAB" sweep --results "$WORK/salloc" "$WORK/nodes.yaml" \
    >"$WORK/salloc.out" 2>&1 || { bad "sweep in salloc: exit $?"; tail -n 20 "$WORK/salloc.out"; }
if check_sweep "$WORK/salloc/nodesweep.h5" 4 mpirun; then echo "ok: sweep in salloc with mpirun"; else bad "sweep in salloc with mpirun"; fi

# 3. The same with srun as the launcher.
on head salloc -N2 --exclusive "$BINDLAB" sweep --launcher srun --results "$WORK/srun" \
    "$WORK/nodes.yaml" >"$WORK/srun.out" 2>&1 || { bad "srun sweep: exit $?"; tail -n 20 "$WORK/srun.out"; }
if check_sweep "$WORK/srun/nodesweep.h5" 4 srun; then echo "ok: sweep in salloc with srun"; else bad "sweep in salloc with srun"; fi

# 4. bindlab slurm: one job, an array of 2 + merge, and srun; the job's
# nodes come from the layouts (2).
on head "$BINDLAB" slurm "$WORK/nodes.yaml" --results "$WORK/one" -o "$WORK/one.sbatch" --time 5 \
    --submit >"$WORK/one.out" 2>&1
cat "$WORK/one.out"
grep -qx "#SBATCH --nodes=2" "$WORK/one.sbatch" || bad "the script does not ask for 2 nodes"
single=$(sed -n 's/^submitted: job \([0-9][0-9]*\)$/\1/p' "$WORK/one.out")
on head "$BINDLAB" slurm "$WORK/nodes.yaml" --results "$WORK/arr" -o "$WORK/arr.sbatch" --array=2 \
    --time 5 --submit >"$WORK/arr.out" 2>&1
cat "$WORK/arr.out"
read -r array merge < <(sed -n 's/^submitted: array job \([0-9]*\), merge job \([0-9]*\)$/\1 \2/p' "$WORK/arr.out")
on head "$BINDLAB" slurm "$WORK/nodes.yaml" --results "$WORK/ssrun" -o "$WORK/ssrun.sbatch" \
    --launcher srun --time 5 --submit >"$WORK/ssrun.out" 2>&1
srunjob=$(sed -n 's/^submitted: job \([0-9][0-9]*\)$/\1/p' "$WORK/ssrun.out")
if [ -z "$single" ] || [ -z "$array" ] || [ -z "$merge" ] || [ -z "$srunjob" ]; then
    fail "not every job was submitted"
fi
wait_jobs "$single" "$array" "$merge" "$srunjob"
for j in "$WORK"/one/slurm/*.out "$WORK"/arr/slurm/*.out "$WORK"/ssrun/slurm/*.out; do
    grep -q 'FAIL\|error' "$j" && { echo "--- $j"; cat "$j"; }
done
if check_sweep "$WORK/one/nodesweep.h5" 4 mpirun; then echo "ok: bindlab slurm, one job"; else bad "bindlab slurm, one job"; fi
if check_sweep "$WORK/arr/nodesweep.h5" 4 mpirun; then echo "ok: bindlab slurm, array of 2 + merge"; else bad "bindlab slurm, array + merge"; fi
if check_sweep "$WORK/ssrun/nodesweep.h5" 4 srun; then echo "ok: bindlab slurm, srun"; else bad "bindlab slurm, srun"; fi
meta="$WORK/one/slurm/nodesweep-$single"
[ "$(tr '\n' ' ' <"$meta/nodes.txt" 2>/dev/null)" = "bl1 bl2 " ] || bad "the job's node list: $(cat "$meta/nodes.txt")"
for n in bl1 bl2; do
    grep -q '<object type="Core"' "$meta/nodes/$n/lstopo.xml" 2>/dev/null || bad "no lstopo of $n in $meta/nodes"
done
grep -q "JobId=$single " "$meta/scontrol-show-job.txt" || bad "no job record"
echo "ok: the job saved its node list and each node's lstopo"

# 5. A node dies in the middle of a run. r0000 (both nodes) runs long
# enough to be killed; r0001 needs only bl1. --no-kill keeps the
# allocation when a node fails, as a site would for a sweep. Slurm keeps
# the dead run's step (Open MPI's daemons, one on the dead node) holding
# the live node's CPUs, so the next mpirun's daemon step may overlap it
# (plm_slurm_args --overlap; without it that step waits, "Requested nodes
# are busy", until the run's timeout: docs/multi-node.md).
cat >"$WORK/kill.yaml" <<'YAML'
name: killsweep
kernels:
  - {name: stencil, label: long, grid: 512x512, iters: 100000, warmup: 1}
  - {name: stencil, label: short, grid: 256x256, iters: 3, warmup: 1}
defaults: {threads: 1, timeout: 90, bind_to: core}
layouts:
  - {name: both, kernel: long, np: 2, nodes: 2, map_by: "ppr:1:node"}
  - {name: first, kernel: short, np: 2, nodes: 1, map_by: core, timeout: 30}
YAML
start=$(date +%s)
OMPI_MCA_plm_slurm_args=--overlap on head salloc -N2 --exclusive --no-kill "$BINDLAB" sweep --results "$WORK/kill" "$WORK/kill.yaml" \
    >"$WORK/kill.out" 2>&1 &
sweep_pid=$!
# until the first run's ranks run on bl2 (its app process in bl2's namespace)
bl2_ns="bl$(cat "$CL/id")-bl2"
for _ in $(seq 1 120); do
    for p in $(ip netns pids "$bl2_ns" 2>/dev/null); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = bindlab-app ] && break 2
    done
    sleep 0.25
done
sleep 2
bash "$NODES_SH" kill-node "$CL" bl2
echo "killed bl2 at $(($(date +%s) - start)) s"
wait "$sweep_pid"
rc=$?
took=$(($(date +%s) - start))
cat "$WORK/kill.out"
echo "sweep exit $rc after $took s"
[ "$took" -lt 90 ] || bad "the sweep with a dead node took $took s, the run's timeout is 90 s"
if "$PY" - "$WORK/kill/killsweep.h5" <<'PYEOF'; then
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    runs = {s(f["runs"][k].attrs["name"]): f["runs"][k].attrs for k in f["runs"]}
    print({n: (s(a["status"]), s(a["reason"])[:200]) for n, a in runs.items()})
    assert s(runs["both"]["status"]) == "failed", s(runs["both"]["status"])
    # the reason names the node that went away (Open MPI's own message)
    assert "bl2" in s(runs["both"]["reason"]), s(runs["both"]["reason"])
    assert s(runs["first"]["status"]) == "ok", (s(runs["first"]["status"]), s(runs["first"]["reason"]))
PYEOF
    echo "ok: the dead node's run failed with its reason, the next ran"
else
    bad "node killed mid-run"
fi

[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all cluster sweep checks passed"
