#!/bin/bash
# bindlab check, each finding provoked for real: numactl and taskset set the
# placement, the environment sets OpenMP and launcher variables, mpirun runs
# it per rank. Expectations come from the machine (Cpus_allowed_list of the
# same prefix, numactl --show, /sys, /proc/sys) and from what the settings
# mean, never from bindlab's own output. Findings that need two NUMA nodes
# run only where the machine has them (tests/numa/test_numa_check.sh runs
# them on the emulated NUMA node).
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
command -v numactl >/dev/null || { echo "SKIP: numactl not installed (scripts/deps.sh installs it)"; exit 77; }
[ -d /sys/devices/system/node ] || { echo "SKIP: this kernel shows no NUMA nodes (/sys/devices/system/node), numactl cannot bind"; exit 77; }
PY=/usr/bin/python3

# No inherited OpenMP, Slurm or launcher settings: each case sets its own.
CLEAN=(env -u OMP_PLACES -u OMP_PROC_BIND -u OMP_NUM_THREADS -u SLURM_CPU_BIND
    -u SLURM_CPUS_ON_NODE -u SLURM_JOB_CPUS_PER_NODE
    -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u PMIX_RANK
    -u OMPI_MCA_hwloc_base_binding_policy -u OMPI_MCA_orte_bound_at_launch
    -u PRTE_MCA_hwloc_default_binding_policy)

# run NAME [prefix...]: bindlab check under the prefix; output in
# $WORK/NAME, exit status in $WORK/NAME.rc.
run() {
    local name=$1; shift
    local rc=0
    "${CLEAN[@]}" "$@" "$BINDLAB" check >"$WORK/$name" 2>"$WORK/$name.err" || rc=$?
    echo "$rc" >"$WORK/$name.rc"
}
has() { grep -q -- "$2" "$WORK/$1" || { cat "$WORK/$1" >&2; fail "$1: expected '$2'"; }; }
hasnt() { ! grep -q -- "$2" "$WORK/$1" || { cat "$WORK/$1" >&2; fail "$1: did not expect '$2'"; }; }
rc_is() { [ "$(cat "$WORK/$1.rc")" = "$2" ] || { cat "$WORK/$1" "$WORK/$1.err" >&2; fail "$1: exit $(cat "$WORK/$1.rc"), expected $2"; }; }

# --- the machine ----------------------------------------------------------
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${allowed%%[-,]*}
N=$(node_of "$first")
online=$(cat /sys/devices/system/node/online)
nnodes=$("$PY" -c '
import sys
n = 0
for part in sys.argv[1].split(","):
    lo, _, hi = part.partition("-")
    n += int(hi or lo) - int(lo) + 1
print(n)' "$online")
balancing=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo 0)
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
# On several nodes NUMA balancing is a warning of its own in every case.
kernel_warns=0
[ "$balancing" != 0 ] && [ "$nnodes" -gt 1 ] && kernel_warns=1
clean_rc=$kernel_warns
LOCAL=(numactl --cpunodebind="$N" --membind="$N")
echo "machine: CPUs $allowed, NUMA nodes $online, first CPU $first on node $N, numa_balancing $balancing, THP ${thp:-?}"

# --- a clean placement: no warning, exit 0 (or only the kernel's) --------
run clean "${LOCAL[@]}"
cat "$WORK/clean"
rc_is clean "$clean_rc"
inner=$("${LOCAL[@]}" sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
has clean "^cpus $inner on NUMA node $N\$"
has clean "^memory policy bind nodes $N, "
has clean "^kernel numa_balancing $balancing, transparent huge pages ${thp:-unknown}\$"
hasnt clean '^warning omp-'
hasnt clean '^warning cpu-mem-nodes'
hasnt clean '^warning cpus-cross-nodes'
hasnt clean '^warning double-binding'
if [ "$kernel_warns" = 1 ]; then has clean '^warning numa-balancing'; else hasnt clean '^warning numa-balancing'; fi
if [ "$thp" = always ]; then has clean '^note thp-always'; else hasnt clean 'thp-always'; fi
# The cgroup cpuset, when shown, holds every CPU the process may use.
"$PY" - "$WORK/clean" "$inner" <<'EOF'
import re, sys
def cpus(text):
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
line = [l for l in open(sys.argv[1]) if l.startswith("cgroup cpuset")][0]
m = re.match(r"cgroup cpuset cpus (\S+) mems", line)
if m and not cpus(sys.argv[2]) <= cpus(m.group(1)):
    sys.exit(f"cgroup cpuset {m.group(1)} does not hold the allowed CPUs {sys.argv[2]}")
EOF

# The memory policy as numactl itself reports it for the same options.
for opt in --localalloc "--preferred=$N" "--membind=$N" "--interleave=$N"; do
    name=policy${opt%%=*}
    run "$name" numactl --cpunodebind="$N" "$opt"
    want=$(numactl --cpunodebind="$N" "$opt" numactl --show | sed -n 's/^policy: //p')
    has "$name" "^memory policy ${want}[ ,]"
    rc_is "$name" "$clean_rc"
done

# --- OpenMP ---------------------------------------------------------------
run places "${LOCAL[@]}" env OMP_PLACES=cores
has places '^warning omp-places-without-bind: OMP_PLACES=cores'
rc_is places 1
run places-bound "${LOCAL[@]}" env OMP_PLACES=cores OMP_PROC_BIND=close
hasnt places-bound '^warning omp-'
rc_is places-bound "$clean_rc"
run bind-false "${LOCAL[@]}" env OMP_PROC_BIND=false
has bind-false '^warning omp-proc-bind-false'
rc_is bind-false 1
run bind-spread "${LOCAL[@]}" env OMP_PROC_BIND=spread,close
hasnt bind-spread '^warning omp-'
# One CPU (taskset) and two threads: more threads than CPUs.
run threads taskset -c "$first" env OMP_NUM_THREADS=2
has threads "^cpus $first on NUMA node $N\$"
# the CPUs this job may use, and where they come from
has threads "^allowed cpus $first (affinity $first, cgroup cpuset "
has threads "^warning omp-threads-exceed-cpus: OMP_NUM_THREADS=2 but this process may run on 1 CPU ($first)"
rc_is threads 1
run threads-fit taskset -c "$first" env OMP_NUM_THREADS=1
hasnt threads-fit '^warning omp-threads'
rc_is threads-fit "$clean_rc"
# Slurm grants one CPU of the ones this process may use: judged against
# the grant (needs 2 allowed CPUs; on one there is nothing to narrow)
if [ "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)" != "$first" ]; then
    run slurm-grant env SLURM_CPUS_ON_NODE=1 SLURM_JOB_CPUS_PER_NODE=1 OMP_NUM_THREADS=2
    has slurm-grant "^allowed cpus $allowed (affinity $allowed, cgroup cpuset .*, SLURM_CPUS_ON_NODE 1, SLURM_JOB_CPUS_PER_NODE 1)"
    has slurm-grant "^warning omp-threads-exceed-cpus: OMP_NUM_THREADS=2 but this process may run on 1 CPU"
    has slurm-grant "^note allocation-unenforced: Slurm grants this job 1 CPU on this node"
else
    echo "not run: SLURM_CPUS_ON_NODE below the allowed set (one CPU allowed here)"
fi
run threads-bad "${LOCAL[@]}" env OMP_NUM_THREADS=many
has threads-bad '^warning omp-num-threads-invalid'

# --- Slurm and mpirun both binding ---------------------------------------
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
mp() { # mp NAME SLURM_CPU_BIND [mpirun options...]
    local name=$1 scb=$2; shift 2
    local rc=0
    "${CLEAN[@]}" SLURM_CPU_BIND="$scb" "${MPIRUN[@]}" -np 2 "$@" "$BINDLAB" check \
        >"$WORK/$name" 2>"$WORK/$name.err" || rc=$?
    echo "$rc" >"$WORK/$name.rc"
}
mp slurm-none none --bind-to core
hasnt slurm-none 'double-binding'
rc_is slurm-none "$clean_rc" # bound by mpirun alone: only the kernel may warn
for r in 0 1; do
    # One whole block per rank: the same lines as a standalone check.
    [ "$(grep -c "^rank $r: " "$WORK/slurm-none")" -ge 8 ] || fail "rank $r: block incomplete: $(cat "$WORK/slurm-none")"
    [ "$kernel_warns" = 1 ] || has slurm-none "^rank $r: result coherent"
done
mp double-core quiet,cores --bind-to core
# Open MPI 4 tells its ranks their binding (OMPI_MCA_hwloc_base_binding_policy);
# Open MPI 5 does not, and then only a binding set in the environment shows.
if "${MPIRUN[@]}" -np 1 --bind-to core env | grep -q '^OMPI_MCA_hwloc_base_binding_policy=core$'; then
    for r in 0 1; do
        has double-core "^rank $r: warning double-binding: Slurm binds (SLURM_CPU_BIND=quiet,cores)"
        has double-core "^rank $r: result misaligned"
    done
    rc_is double-core 1 # each rank's check exits 1 on its warning; mpirun passes it on
else
    echo "note: this mpirun does not put its binding in the ranks' environment; checking the one set by OMPI_MCA_hwloc_base_binding_policy"
    mp double-env quiet,cores --bind-to core -x OMPI_MCA_hwloc_base_binding_policy=core
    # A rank that exits 1 may end the others before they print.
    has double-env '^rank [01]: warning double-binding'
    rc_is double-env 1
fi
# Open MPI 4 binds 2 ranks to cores by default and says so in the ranks'
# environment (OMPI_MCA_orte_bound_at_launch=1).
if mpirun --version 2>&1 | grep -q 'Open MPI) 4\.'; then
    mp double-default cores
    has double-default '^rank 0: warning double-binding'
    rc_is double-default 1
fi
mp mpirun-none cores --bind-to none
hasnt mpirun-none 'double-binding'
rc_is mpirun-none "$clean_rc" # Slurm's binding alone: only the kernel may warn

# --- the kernel's NUMA balancing, both ways where this machine may set it --
# (Changing it is system wide: only the value found is checked here; the
# emulated NUMA node switches it on and off.)
echo "numa_balancing $balancing: checked in the clean case"

# --- two NUMA nodes, where the machine has them ----------------------------
other=""
for d in /sys/devices/system/node/node[0-9]*; do
    m=${d##*node}
    [ "$m" != "$N" ] && grep -q '[1-9]' "$d/meminfo" 2>/dev/null && { other=$m; break; }
done
if [ -n "$other" ]; then
    run remote numactl --cpunodebind="$N" --membind="$other"
    has remote "^warning cpu-mem-nodes: memory policy bind to node $other, but the CPUs are on node $N: every page is remote"
    rc_is remote 1
    run pref-remote numactl --cpunodebind="$N" --preferred="$other"
    has pref-remote "^warning preferred-remote: memory preferred on node $other"
    if [ -n "$(cat "/sys/devices/system/node/node$other/cpulist")" ]; then
        run cross numactl --cpunodebind="$N,$other" --membind="$N,$other"
        has cross '^warning cpus-cross-nodes'
    fi
else
    echo "note: one NUMA node with memory: cpu-mem-nodes, preferred-remote and cpus-cross-nodes need two (tests/numa/test_numa_check.sh)"
fi

# --- JSON -----------------------------------------------------------------
rc=0
"${CLEAN[@]}" taskset -c "$first" env OMP_NUM_THREADS=2 "$BINDLAB" check --json >"$WORK/json" || rc=$?
[ "$rc" = 1 ] || fail "--json with a warning: exit $rc, expected 1"
"$PY" - "$WORK/json" "$first" "$balancing" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"one JSON line expected, got {len(lines)}"
o = json.loads(lines[0])
assert o["cpus"] == sys.argv[2], o["cpus"]
assert o["OMP_NUM_THREADS"] == "2" and o["OMP_PLACES"] is None, o
assert o["numa_balancing"] == int(sys.argv[3]), o["numa_balancing"]
ids = [f["id"] for f in o["findings"] if f["severity"] == "warning"]
assert "omp-threads-exceed-cpus" in ids, ids
assert o["misaligned"] is True and o["warnings"] == len(ids), o
EOF
rc=0
"${CLEAN[@]}" SLURM_CPU_BIND=none "${MPIRUN[@]}" -np 2 "$BINDLAB" check --json >"$WORK/json2" 2>"$WORK/json2.err" || rc=$?
[ "$rc" = "$clean_rc" ] || { cat "$WORK/json2" "$WORK/json2.err"; fail "--json under mpirun: exit $rc, expected $clean_rc"; }
"$PY" - "$WORK/json2" <<'EOF'
import json, sys
ranks = sorted(json.loads(l)["rank"] for l in open(sys.argv[1]) if l.startswith("{"))
assert ranks == [0, 1], f"one JSON object per rank expected, got ranks {ranks}"
EOF

# --- bad usage --------------------------------------------------------------
rc=0
"$BINDLAB" check --bogus 2>"$WORK/bad" || rc=$?
[ "$rc" = 2 ] || fail "unknown option: exit $rc, expected 2"
grep -q "unknown argument '--bogus'" "$WORK/bad" || fail "unknown option message: $(cat "$WORK/bad")"
echo "ok: bindlab check findings provoked and cleared"
