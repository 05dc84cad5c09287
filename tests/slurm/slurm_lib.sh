# shellcheck shell=bash
# What the test clusters share (tests/slurm/cluster.sh: one node on this
# machine; tests/slurm/nodes.sh: N namespaced nodes): the slurm.conf lines
# that do not depend on where the daemons live, slurmd's node line, munged
# with a key of the cluster's own, and stopping a daemon by its pid file.
# Sourced, not run; the sourcing script defines die().

# conf_common DIR: the slurm.conf lines both clusters write alike.
conf_common() {
    cat <<EOF2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$1/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$1/state
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups in a container: processes are tracked through /proc, tasks
# bound with sched_setaffinity.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
InactiveLimit=0
EOF2
}

# node_line NAME ADDR [CPUS]: slurmd -C's description of this machine (CPUs,
# sockets, cores, threads, memory) as node NAME at ADDR; with CPUS fewer
# than slurmd -C's, a node of one socket of CPUS cores instead.
node_line() {
    slurmd -C | awk -v name="$1" -v addr="$2" -v cpus="${3:-0}" '/^NodeName=/ {
        sub(/^NodeName=[^ ]*/, "NodeName=" name " NodeAddr=" addr)
        if (match($0, / CPUs=[0-9]+/) && cpus > 0 && cpus < substr($0, RSTART + 6, RLENGTH - 6) + 0) {
            sub(/ CPUs=[0-9]+/, " CPUs=" cpus); sub(/ Boards=[0-9]+/, " Boards=1")
            sub(/ SocketsPerBoard=[0-9]+/, " SocketsPerBoard=1")
            sub(/ CoresPerSocket=[0-9]+/, " CoresPerSocket=" cpus)
            sub(/ ThreadsPerCore=[0-9]+/, " ThreadsPerCore=1")
        }
        print }'
}

# node_cpus: the CPUs each namespaced node (nodes.sh) declares: slurmd -C's
# count for this machine, but no more than this process may use (taskset,
# a cpuset: the nodes' jobs inherit that set, and a node declaring CPUs its
# jobs cannot use binds tasks where they cannot run), nor more than
# BL_NODE_CPUS when set (to run the cluster tests with smaller nodes).
node_cpus() {
    local n allowed
    n=$(slurmd -C | sed -n 's/^NodeName=.* CPUs=\([0-9]*\) .*/\1/p')
    allowed=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # nproc obeys those
    [ "$allowed" -lt "$n" ] && n=$allowed
    [ -n "${BL_NODE_CPUS:-}" ] && [ "$BL_NODE_CPUS" -lt "$n" ] && n=$BL_NODE_CPUS
    echo "$n"
}

# start_munge DIR [PREFIX...]: munged with a key of its own (the cluster
# never depends on /etc/munge), its socket at DIR/munge/munge.socket;
# PREFIX runs it somewhere else (nodes.sh: inside the head namespace).
start_munge() {
    local dir=$1 up
    shift
    # munged wants its socket's directory (and the ones above it) open to
    # all for execute, and its key readable by its owner alone.
    up=$dir
    while [ "$up" != / ] && [ -n "$up" ]; do
        [ "$(($(stat -c %a "$up" 2>/dev/null || echo 755) % 2))" = 1 ] || [ "$up" = "$dir" ] ||
            die "$up: munged needs execute permission for all on every directory above its socket"
        up=$(dirname "$up")
    done
    mkdir -p "$dir/munge" "$dir/munge-key"
    chmod 0711 "$dir"
    chmod 0755 "$dir/munge"
    chmod 0700 "$dir/munge-key"
    dd if=/dev/urandom of="$dir/munge-key/munge.key" bs=1024 count=1 status=none
    chmod 0600 "$dir/munge-key/munge.key"
    "$@" munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge-key/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munge-key/seed"
    for _ in $(seq 1 50); do
        [ -S "$dir/munge/munge.socket" ] && [ -s "$dir/munged.pid" ] && return
        sleep 0.1
    done
    die "munged did not start (see $dir/munged.log)"
}

# stop_pid FILE NAME: SIGTERM to the pid in FILE, SIGKILL after 5 s.
stop_pid() {
    local pid
    [ -s "$1" ] || return 0
    pid=$(cat "$1")
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    echo "$2 ($pid) ignored SIGTERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
}
