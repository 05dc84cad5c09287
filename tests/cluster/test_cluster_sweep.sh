#!/usr/bin/env bash
# bindlab across namespaced Slurm nodes (tests/slurm/nodes.sh): a sweep
# whose layouts name their nodes (nodes: 2, ppr:1:node, ppr:2:node, block
# by core, cyclic by node) run by `bindlab sweep` inside an allocation, with
# mpirun and with srun, and by the scripts of `bindlab slurm` (one job, an
# array of 2 + merge, srun); every run ok and verified, no binding
# mismatch, each rank on the node worked out by hand from its layout (as
# the run file's ranks table records it), the layout's nodes in the record,
# each node's lstopo saved by the job. Then a node killed in the middle of a
# run (its slurmd, step daemons and ranks) once both ranks are past
# MPI_Init: that run is recorded failed (not timed out) with the reason,
# and the sweep goes on to the next run (on the node still up).
source "$(dirname "$0")/cluster_common.sh"
: "${BINDLAB:?run through ctest}"
set +e +o pipefail
cd "$WORK" || fail "no work dir"
# where each layout's ranks land, by hand: CLUSTER_HOSTS (cluster_common.sh)
stencil_sweep "$WORK/nodes.yaml" nodesweep ppr1 ppr2 block cyclic

# check_sweep FILE NRUNS LAUNCHER: the merged file's runs against CLUSTER_HOSTS.
check_sweep() {
    "$PY" - "$1" "$2" "$3" "$(hosts_py)" <<'PYEOF'
import os, sys, h5py
path, nruns, launcher, want = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
want = dict((k, v.split()) for k, v in (kv.split("=") for kv in want.split(";") if kv))
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(path, "r") as f:
    # one machine record per node, each rank row and check row naming the
    # node of its host (the check: whose topology read the report line)
    nodes = {int(k): s(f["nodes"][k].attrs["hostname"]) for k in f["nodes"]}
    assert set(nodes.values()) == {"bl1", "bl2"}, nodes
    runs = f["runs"]
    assert len(runs) == nruns, (path, len(runs))
    for k in runs:
        r = runs[k]; a = r.attrs
        name = s(a["name"])
        if s(a["status"]) != "ok":
            # the launch's whole output, kept beside the record: the reason's one line
            # rarely says which system call failed
            log = os.path.join(os.path.dirname(path), os.path.basename(path)[:-3] + ".d", k + ".log")
            if os.path.exists(log):
                print("--- " + log); print(open(log, errors="replace").read()[-6000:])
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
        for x in r["ranks"][()]:
            assert nodes[int(x["node"])] == s(x["host"]), (k, x)
        for c in checks:
            assert nodes[int(c["node"])] == s(c["host"]), (k, c)
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

# 2. bindlab sweep inside salloc (the harness on the login node), mpirun;
# a run that died of the MPI_Init race is launched again by the sweep
# itself (retry: 2 in the sweep file, stencil_sweep).
sweep_in_salloc "$WORK/salloc" "$WORK/nodes.yaml" nodesweep || bad "sweep in salloc: exit $?"
if check_sweep "$SWEPT/nodesweep.h5" 4 mpirun; then echo "ok: sweep in salloc with mpirun"; else bad "sweep in salloc with mpirun"; fi

# 3. The same with srun as the launcher.
sweep_in_salloc "$WORK/srun" "$WORK/nodes.yaml" nodesweep --launcher srun || bad "srun sweep: exit $?"
if check_sweep "$SWEPT/nodesweep.h5" 4 srun; then echo "ok: sweep in salloc with srun"; else bad "sweep in salloc with srun"; fi

# 4. bindlab slurm: one job, an array of 2 + merge, and srun; the job's
# nodes come from the layouts (2). submit TAG DIR ARGS...: write and submit
# the script for results DIR; sets JOBS[TAG] to the job ids to wait for.
declare -A JOBS
submit() {
    local tag=$1 dir=$2
    shift 2
    on head "$BINDLAB" slurm "$WORK/nodes.yaml" --results "$dir" -o "$dir.sbatch" --time 5 "$@" \
        --submit >"$dir.submit" 2>&1
    cat "$dir.submit"
    JOBS[$tag]=$(sed -n -e 's/^submitted: job \([0-9][0-9]*\)$/\1/p' \
        -e 's/^submitted: array job \([0-9]*\), merge job \([0-9]*\)$/\1 \2/p' "$dir.submit")
    [ -n "${JOBS[$tag]}" ] || fail "$tag: not submitted"
}
declare -A ARGS=([one]="" [arr]="--array=2" [ssrun]="--launcher srun")
declare -A DIR
for tag in one arr ssrun; do
    DIR[$tag]=$WORK/$tag
    # shellcheck disable=SC2086 # ARGS are words
    submit "$tag" "${DIR[$tag]}" ${ARGS[$tag]}
done
grep -qx "#SBATCH --nodes=2" "$WORK/one.sbatch" || bad "the script does not ask for 2 nodes"
# shellcheck disable=SC2086 # job ids are words
wait_jobs ${JOBS[one]} ${JOBS[arr]} ${JOBS[ssrun]}
single=${JOBS[one]}
# a run that died of the MPI_Init race was launched again inside its job
# (the sweep file's retry: 2)
for tag in one arr ssrun; do retried_launches "${DIR[$tag]}" nodesweep; done
for j in "${DIR[one]}"/slurm/*.out "${DIR[arr]}"/slurm/*.out "${DIR[ssrun]}"/slurm/*.out; do
    grep -q 'FAIL\|error' "$j" && { echo "--- $j"; cat "$j"; }
done
if check_sweep "${DIR[one]}/nodesweep.h5" 4 mpirun; then echo "ok: bindlab slurm, one job"; else bad "bindlab slurm, one job"; fi
if check_sweep "${DIR[arr]}/nodesweep.h5" 4 mpirun; then echo "ok: bindlab slurm, array of 2 + merge"; else bad "bindlab slurm, array + merge"; fi
if check_sweep "${DIR[ssrun]}/nodesweep.h5" 4 srun; then echo "ok: bindlab slurm, srun"; else bad "bindlab slurm, srun"; fi
meta="${DIR[one]}/slurm/nodesweep-$single"
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
# until both ranks of the first run are past MPI_Init, the app's started
# line in the run's log (r0000.log.part while it runs; polled, 120 s a
# deadline for a hang): bl2 then dies inside the run, not in its wire-up
started() {
    grep -qs "^bindlab-app: started: 2 ranks past MPI_Init" \
        "$WORK/kill/killsweep.d/r0000.log.part" "$WORK/kill/killsweep.d/r0000.log"
}
for _ in $(seq 1 480); do
    started && break
    sleep 0.25
done
started || bad "the first run's 2 ranks never got past MPI_Init"
bash "$NODES_SH" kill-node "$CL" bl2
echo "killed bl2 at $(($(date +%s) - start)) s"
wait "$sweep_pid"
rc=$?
took=$(($(date +%s) - start))
cat "$WORK/kill.out"
echo "sweep exit $rc after $took s"
if "$PY" - "$WORK/kill/killsweep.h5" <<'PYEOF'; then
import sys, h5py
def s(v): return v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    runs = {s(f["runs"][k].attrs["name"]): f["runs"][k].attrs for k in f["runs"]}
    print({n: (s(a["status"]), s(a["reason"])[:200]) for n, a in runs.items()})
    # failed when the node went away, not ended at its 90 s timeout
    assert s(runs["both"]["status"]) == "failed", s(runs["both"]["status"])
    # the reason names the node that went away (Open MPI's own message;
    # its TCP warning alone names the node's address: nodes.sh gives blK
    # the address 10.250.0.K)
    reason = s(runs["both"]["reason"])
    assert "bl2" in reason or "connect() to 10.250.0.2:" in reason, reason
    assert s(runs["first"]["status"]) == "ok", (s(runs["first"]["status"]), s(runs["first"]["reason"]))
PYEOF
    echo "ok: the dead node's run failed with its reason, the next ran"
else
    bad "node killed mid-run"
    echo "--- the run's log"
    cat "$WORK/kill/killsweep.d/r0000.log"
fi

[ "$fails" = 0 ] || fail "$fails checks failed"
echo "all cluster sweep checks passed"
