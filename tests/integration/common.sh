# shellcheck shell=bash disable=SC2034 # sourced: its variables are used by the scripts
# Shared by the integration scripts: the mpirun command for this machine and
# small assertions. Sourced, not run.
set -euo pipefail

: "${BINDLAB_APP:?run through ctest}" "${BINDLAB_BUILD_DIR:?run through ctest}"

# Root needs --allow-run-as-root; more ranks than cores need --oversubscribe.
MPIRUN=(mpirun --oversubscribe)
if [ "$(id -u)" = 0 ]; then MPIRUN+=(--allow-run-as-root); fi

RUNFILE_DUMP="$BINDLAB_BUILD_DIR/tests/runfile_dump"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_line FILE LINE: FILE has LINE as a whole line.
expect_line() {
    grep -qxF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "expected line '$2' in $1"; }
}

# wait_until DESC CMD...: polls CMD every 0.1 s until it succeeds; fails
# after 120 s (a deadline for a hung test, not a timing assertion).
wait_until() {
    local desc=$1 until=$(($(date +%s) + 120))
    shift
    while [ "$(date +%s)" -lt "$until" ]; do
        if "$@"; then return 0; fi
        sleep 0.1
    done
    fail "still not the case after 120 s: $desc"
}

# allowed_cpus: the CPUs this process may use (its affinity, as taskset or a
# cgroup cpuset leave it): ALLOWED the list ("0-3,8"), ALLOWED_PUS and
# ALLOWED_CORES how many PUs and cores it holds, ALLOWED_CORE_IDS (an array)
# the logical indexes of those cores. hwloc-calc's "all" is the
# whole machine, not this set: counts from it fail under taskset -c 0.
allowed_cpus() {
    local parts=() p
    ALLOWED=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    for p in ${ALLOWED//,/ }; do parts+=("pu:$p"); done
    ALLOWED_PUS=$(hwloc-calc --pi -N pu "${parts[@]}")
    ALLOWED_CORES=$(hwloc-calc --pi -N core "${parts[@]}")
    # their logical indexes, in order: Open MPI's rank r goes to the r-th
    read -r -a ALLOWED_CORE_IDS <<<"$(hwloc-calc --pi --intersect core "${parts[@]}" | tr , ' ')"
}

# fake_gpu BUS NUMA CPULIST: an NVIDIA GPU (a 3D controller) in the fake
# sysfs tree $WORK/sys, for BINDLAB_SYSFS_ROOT=$WORK/sys.
fake_gpu() {
    local d=$WORK/sys/bus/pci/devices/$1
    mkdir -p "$d"
    echo 0x10de >"$d/vendor"; echo 0x030200 >"$d/class"
    echo "$2" >"$d/numa_node"; echo "$3" >"$d/local_cpulist"
}

# fake_gpu_node: a fake GPU node, BINDLAB_SYSFS_ROOT=$WORK/sys exported:
# GPUs A and B local to every CPU this process may use (ALLOWED), C far
# away (NUMA node 1, local to CPU 1000 only).
fake_gpu_node() {
    allowed_cpus
    A=0000:01:00.0 B=0000:02:00.0 C=0000:81:00.0
    fake_gpu $A 0 "$ALLOWED"
    fake_gpu $B 0 "$ALLOWED"
    fake_gpu $C 1 1000
    export BINDLAB_SYSFS_ROOT=$WORK/sys
}

# need_allowed_cores N WHY: skip (77) unless this process may use N cores
# (ranks bound one per core need that many), saying so in the words
# tests/skip-allow.txt matches: "needs N allowed CPUs (this process may
# use M)", M its cores.
need_allowed_cores() {
    allowed_cpus
    [ "$ALLOWED_CORES" -ge "$1" ] || {
        echo "SKIP: needs $1 allowed CPUs (this process may use $ALLOWED_CORES: CPUs $ALLOWED): $2"
        exit 77
    }
}

# fake_slurm_allocation: a made-up allocation of two nodes, bl1 and bl2,
# each with this machine's cores (set in NC): SLURM_JOB_NODELIST=bl[1-2],
# expanded by the real scontrol with a config in $WORK that names those
# nodes and is never served (no slurmctld). Skips (77) without scontrol.
fake_slurm_allocation() {
    command -v scontrol >/dev/null ||
        { echo "SKIP: no scontrol (slurm-client, scripts/deps.sh)"; exit 77; }
    NC=$(hwloc-calc -N core all)
    printf 'ClusterName=plan\nSlurmctldHost=localhost\nNodeName=bl[1-2] CPUs=%s\nPartitionName=p Nodes=bl[1-2]\n' \
        "$NC" >"$WORK/slurm.conf"
    export SLURM_CONF=$WORK/slurm.conf SLURM_JOB_NODELIST='bl[1-2]'
}

# For scripts whose checks run on after a miss (they test exit statuses):
# bad MESSAGE reports one and counts it in fails; the script ends with
# [ "$fails" = 0 ] || fail ... (or exits 1 when fails > 0).
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# result FILE FIELD: a field of the app's "bindlab-app: result" line in
# FILE ("-": standard input).
result() { sed -n "s/^bindlab-app: result .* $2=\([^ ]*\).*/\1/p" "$1"; }

# run_kernel KERNEL NP THREADS ARGS...: bindlab-app --kernel KERNEL ARGS
# under mpirun, NP ranks (oversubscribed, unbound) of THREADS threads, 300 s
# at most; sets rc and out (stdout and stderr).
run_kernel() {
    local kernel=$1 np=$2 th=$3
    shift 3
    out=$(OMP_NUM_THREADS=$th timeout 300 mpirun -np "$np" --oversubscribe \
          --bind-to none "$BINDLAB_APP" --kernel "$kernel" "$@" 2>&1)
    rc=$?
}

# node_of CPU: the NUMA node holding CPU, from sysfs (0 on a kernel
# without NUMA: one node).
node_of() {
    local d
    for d in /sys/devices/system/node/node[0-9]*; do
        [ -e "$d/cpu$1" ] && { echo "${d##*node}"; return; }
    done
    echo 0
}

# golden_review DIR HEADER [LINE...]: after BINDLAB_UPDATE_GOLDEN=1 rewrote
# the golden files in DIR (run from the source tree, a git checkout): exit
# 0 when none changed; otherwise write DIR/SOURCE (HEADER, the bindlab
# commit, a note when the tree has other changes on top of it, each LINE,
# the date), print the diff and fail until the files are committed with
# the change that caused it (docs/testing.md).
golden_review() {
    local g=$1 header=$2 new head
    shift 2
    new=$(git ls-files --others --exclude-standard -- "$g")
    if git diff --quiet -- "$g" && [ -z "$new" ]; then
        echo "golden files regenerated: unchanged"
        exit 0
    fi
    head=$(git rev-parse HEAD)
    { printf '%s\n' "$header"
      echo "bindlab_commit $head"
      git diff --quiet HEAD -- . ":(exclude)$g" ||
          echo "bindlab_uncommitted changes on top of $head, committed with these files"
      if [ $# -gt 0 ]; then printf '%s\n' "$@"; fi
      echo "made $(date -u +%F)"; } >"$WORK/golden-SOURCE"
    mv "$WORK/golden-SOURCE" "$g/SOURCE"
    git --no-pager diff --stat -- "$g"
    # shellcheck disable=SC2086 # one line per new file
    [ -z "$new" ] || printf 'new: %s\n' $new
    git --no-pager diff -- "$g"
    fail "the golden files changed (diff above): review it, then commit them" \
         "with the change that caused it; until then this run fails"
}

# need_gen_record: GEN, bindlab-gen-record (bench/, part of every build:
# made-up run records of many nodes), and XML, the shipped 2x EPYC 7763
# topology it is given.
need_gen_record() {
    GEN=$BINDLAB_BUILD_DIR/bench/bindlab-gen-record
    XML=$(dirname "$0")/../../configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml
    [ -x "$GEN" ] || fail "$GEN not built (bench/, part of every build)"
}
