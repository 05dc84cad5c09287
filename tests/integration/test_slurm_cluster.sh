#!/usr/bin/env bash
# bindlab slurm on a real Slurm: a private one-node cluster (munged,
# slurmctld, slurmd from tests/slurm/cluster.sh) runs a generated
# single-job sweep, a generated array sweep with its merge job, and an
# srun-launched sweep; the merged HDF5 files must hold every run, ok and
# verified. The Slurm and munge packages come from scripts/deps.sh (a
# missing one is a failure: the test installs nothing); skipped (77) only
# when not root, as slurmd must be to start jobs. The daemons are stopped
# by their pids whatever happens.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}" "${BINDLAB_SOURCE_DIR:?run through ctest}"
PY=/usr/bin/python3
CLUSTER="$BINDLAB_SOURCE_DIR/tests/slurm/cluster.sh"
PACKAGES=(slurmctld slurmd slurm-client munge)

skip() {
    echo "SKIPPED: $*" >&2
    exit 77
}

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$p")
done
[ "${#missing[@]}" = 0 ] || fail "Slurm packages missing (${missing[*]}): run scripts/deps.sh (as root) to install them"
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs"

# Three quick layouts sized to the cores this process may use, as Open MPI
# sees them (hwloc's cores in the allowed cpuset): two ranks and PE=2 where
# there are 2 cores, one where there is 1.
command -v hwloc-calc >/dev/null || fail "hwloc-calc is missing (scripts/deps.sh installs hwloc)"
NCORES=$(hwloc-calc -N core all)
TWO=$((NCORES < 2 ? NCORES : 2))
echo "cores available: $NCORES; layouts use up to $TWO"
SWEEP="$WORK/small.yaml"
cat >"$SWEEP" <<YAML
name: slurmsmall
kernels:
  - {name: triad, size: 8MiB, iters: 3, warmup: 1}
defaults:
  omp_places: cores
  omp_proc_bind: close
  threads: 1
  timeout: 60
layouts:
  - {name: one-core, np: 1, map_by: core, bind_to: core}
  - {name: two-cores, np: $TWO, map_by: core, bind_to: core, omp_proc_bind: spread}
  - {name: one-rank-two-threads, np: 1, map_by: "slot:PE=$TWO", threads: fill}
YAML

# The cluster lives in its own directory; the jobs write under it too.
# (Paths here are absolute: the jobs run in slurmd's working directory.)
CL="$WORK/cluster"
mkdir -p "$CL"
chmod 0711 "$WORK" # munged wants every directory above its socket open to all (x)
stop_cluster() {
    local rc=$?
    bash "$CLUSTER" stop "$CL" || true
    if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        for f in "$CL"/slurmctld.log "$CL"/slurmd.log; do
            [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
        done
        find "$WORK" -path '*/slurm/*.out' -exec sh -c 'echo "--- $1"; cat "$1"' _ {} \; >&2
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap stop_cluster EXIT
bash "$CLUSTER" start "$CL" || fail "the test cluster did not start"
export SLURM_CONF="$CL/slurm.conf"
sinfo

# wait_jobs ID...: until squeue lists none of them (at most 150 s).
wait_jobs() {
    local ids
    ids=$(IFS=,; echo "$*")
    for _ in $(seq 1 300); do
        [ -z "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    squeue >&2
    fail "jobs $* still queued or running after 150 s"
}

# check_merged FILE N: N runs, every one ok and verified.
check_merged() {
    "$PY" - "$1" "$2" <<'PYEOF' || fail "$1: not $2 ok, verified runs"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["summary"][()]
    print(sys.argv[1], [(r["run_id"].decode(), r["status"].decode(), int(r["verified"])) for r in rows])
    assert len(rows) == int(sys.argv[2]), len(rows)
    assert all(r["status"] == b"ok" and r["verified"] == 1 for r in rows)
PYEOF
}

cd "$WORK"
NCPU=$(sinfo -h -o %c | head -n 1 | tr -d +)
[ "$NCPU" -ge "$TWO" ] || fail "the test node has $NCPU CPUs in Slurm but the sweep needs $TWO (cluster.sh takes them from slurmd -C)"

# 1. A layout set that needs more CPUs per node than the partition has is
# refused with the arithmetic, before anything is written or submitted.
cat >"$WORK/wide.yaml" <<YAML
name: wide
kernels: [{name: triad, size: 8MiB, iters: 2}]
layouts:
  - {name: too-many, np: $((NCPU + 1)), map_by: core, bind_to: none}
YAML
set +e
"$BINDLAB" slurm "$WORK/wide.yaml" --oversubscribe -o "$WORK/wide.sbatch" --submit >"$WORK/wide.out" 2>&1
rc=$?
set -e
cat "$WORK/wide.out"
[ "$rc" = 2 ] || fail "too wide a sweep: exit $rc, expected 2"
grep -q "needs $((NCPU + 1)) CPUs per node ($((NCPU + 1)) ranks x 1 CPUs), but partition bltest's largest node has $NCPU (sinfo)" \
    "$WORK/wide.out" || fail "no arithmetic in the refusal"
[ -e "$WORK/wide.sbatch" ] && fail "a refused sweep wrote its script"
[ -z "$(squeue -h -o %i)" ] || fail "a refused sweep was submitted"
echo "ok: too wide a sweep refused with the arithmetic"

# A step of one CPU (TaskPlugin=task/affinity): check prints the step's
# CPU with Slurm's grant, and a sweep started there refuses before
# launching a layout that needs the node's two CPUs, naming the set.
srun -n 1 -c 1 "$BINDLAB" check >"$WORK/step.out" 2>&1 || true
grep -q "^rank 0: allowed cpus [0-9]* (affinity [0-9]*, .*SLURM_CPUS_ON_NODE 1, SLURM_JOB_CPUS_PER_NODE 1" "$WORK/step.out" ||
    fail "check in a one-CPU step: $(cat "$WORK/step.out")"
cat >"$WORK/two.yaml" <<YAML
name: two
kernels: [{name: triad, size: 8MiB, iters: 2}]
layouts:
  - {name: two-ranks, np: 2, map_by: core, bind_to: core}
YAML
rc=0
srun -n 1 -c 1 "$BINDLAB" sweep --dry-run --results "$WORK/two" "$WORK/two.yaml" >"$WORK/two.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "inside the allowed CPUs [0-9]* (affinity .*SLURM_CPUS_ON_NODE 1.*): np 2 needs 2 slots" "$WORK/two.out" ||
    fail "sweep in a one-CPU step: exit $rc: $(cat "$WORK/two.out")"
echo "ok: a one-CPU step: check shows it, the sweep refuses 2 ranks naming it"

# 2. The whole sweep as one job.
"$BINDLAB" slurm "$SWEEP" --results "$WORK/one" -o "$WORK/one.sbatch" --time 5 \
    --submit >"$WORK/one.out"
cat "$WORK/one.out"
single=$(sed -n 's/^submitted: job \([0-9][0-9]*\)$/\1/p' "$WORK/one.out")
[ -n "$single" ] || fail "no job id printed"

# 3. The same sweep as an array of 2 shards plus its merge job.
"$BINDLAB" slurm "$SWEEP" --results "$WORK/arr" -o "$WORK/arr.sbatch" --array=2 \
    --time 5 --submit >"$WORK/arr.out"
cat "$WORK/arr.out"
read -r array merge < <(sed -n 's/^submitted: array job \([0-9]*\), merge job \([0-9]*\)$/\1 \2/p' "$WORK/arr.out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no array and merge job ids printed"
squeue -h -j "$merge" -o %E | grep -q "afterany:${array}" || fail "merge job does not depend on the array"

# 4. The sweep launched with srun (--mpi=pmix, --cpu-bind) instead of mpirun.
"$BINDLAB" slurm "$SWEEP" --results "$WORK/srun" -o "$WORK/srun.sbatch" --launcher srun \
    --time 5 --submit >"$WORK/srun.out"
srunjob=$(sed -n 's/^submitted: job \([0-9][0-9]*\)$/\1/p' "$WORK/srun.out")
[ -n "$srunjob" ] || fail "no srun job id printed"

wait_jobs "$single" "$array" "$merge" "$srunjob"

check_merged "$WORK/one/slurmsmall.h5" 3
meta="$WORK/one/slurm/slurmsmall-$single"
grep -q "JobId=$single " "$meta/scontrol-show-job.txt" || fail "scontrol show job not recorded"
grep -qx "SLURM_JOB_ID=$single" "$meta/slurm-env.txt" || fail "SLURM_* not recorded"
grep -q "Core" "$meta/lstopo.txt" || fail "lstopo not recorded"
grep -qx "SLURM_CPU_BIND=none" "$meta/slurm-env.txt" || fail "SLURM_CPU_BIND=none not set for mpirun"
grep -q "^\[3/3\]" "$WORK/one/slurm/bindlab-slurmsmall-$single.out" || fail "job output not where #SBATCH --output says"
echo "ok: single job: 3 runs ok and verified, node recorded"

check_merged "$WORK/arr/slurmsmall.h5" 3
ameta="$WORK/arr/slurm/slurmsmall-$array"
for i in 1 2; do
    [ "$(cat "$ameta/shard-$i.status")" = 0 ] || fail "shard $i status"
done
grep -qx "merged: $WORK/arr/slurmsmall.h5" "$WORK/arr/slurm/bindlab-slurmsmall-merge-$merge.out" ||
    fail "merge job did not say it merged"
# Each shard ran its own runs: 2 and 1 of 3 (runs 1,3 and 2).
grep -c '^\[' "$WORK/arr/slurm/bindlab-slurmsmall-${array}_1.out" | grep -qx 2 || fail "shard 1 should run 2 runs"
grep -c '^\[' "$WORK/arr/slurm/bindlab-slurmsmall-${array}_2.out" | grep -qx 1 || fail "shard 2 should run 1 run"
echo "ok: array of 2 shards + merge job: 3 runs ok and verified"

"$PY" - "$WORK/srun/slurmsmall.h5" <<'PYEOF' || fail "srun sweep"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["summary"][()]
    assert len(rows) == 3 and all(r["status"] == b"ok" and r["verified"] == 1 for r in rows), rows
    assert all(f["runs"][k].attrs["launcher"] in ("srun", b"srun") for k in f["runs"]), "launcher"
    assert b"cpu-bind=MASK" in f["runs"]["r0001"]["binding_report"][()], "no srun binding report"
    for k in f["runs"]:  # the batch job's CPUs, recorded with Slurm's view
        a = f["runs"][k].attrs
        assert a["allowed_cpus"] and "SLURM_CPUS_ON_NODE" in a["allowed_from"], (k, a["allowed_from"])
PYEOF
echo "ok: srun-launched sweep: 3 runs ok and verified"

# 5. The merge job reports a shard that never finished, and fails.
rm "$ameta/shard-2.status"
mjob=$(sbatch --parsable "$WORK/arr.merge.sbatch" "$array")
wait_jobs "$mjob"
grep -qx "shard 2/2: missing (no exit status: the task did not finish)" \
    "$WORK/arr/slurm/bindlab-slurmsmall-merge-$mjob.out" || fail "missing shard not reported"
scontrol show job "$mjob" | grep -q "ExitCode=1:0" || fail "merge with a missing shard should exit 1"
echo "ok: merge job reports a missing shard and exits 1"
