#!/usr/bin/env bash
# A private one-node Slurm cluster on this machine, for the tests: munged,
# slurmctld and slurmd started from a directory of their own (config, keys,
# sockets, state, logs, pid files), on free ports, touching no system-wide
# Slurm or munge configuration or daemon.
#
#   tests/slurm/cluster.sh start DIR   writes DIR/slurm.conf, starts the
#                                      daemons, waits until the node is idle,
#                                      prints the SLURM_CONF line to export
#   tests/slurm/cluster.sh stop DIR    stops them by the pids in DIR
#
# Clients find the cluster through SLURM_CONF=DIR/slurm.conf (its AuthInfo
# names DIR's munge socket). Needs root (slurmd runs jobs as any user) and
# the Debian packages slurmctld slurmd slurm-client munge (scripts/deps.sh).
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

# A TCP port nobody listens on, from a range away from well-known services;
# random so that two clusters started at once (ctest -j2) do not collide.
free_port() {
    local p used="" hex
    # local ports in use, from the hex "ADDR:PORT" column of /proc/net/tcp*
    for hex in $(awk 'FNR > 1 { n = split($2, a, ":"); print a[n] }' \
                     /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u); do
        used+="$((16#$hex))"$'\n'
    done
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 30000))
        grep -qx "$p" <<<"$used" || { echo "$p"; return; }
    done
    die "no free TCP port found"
}

# The node line from slurmd -C (its CPUs, sockets, cores, threads, memory),
# renamed to the name slurmd is started with.
node_line() {
    slurmd -C | awk -v name="$1" '/^NodeName=/ {
        sub(/^NodeName=[^ ]*/, "NodeName=" name " NodeAddr=127.0.0.1"); print }'
}

write_conf() {
    local dir=$1 ctld_port slurmd_port
    ctld_port=$(free_port)
    slurmd_port=$(free_port)
    [ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))
    cat >"$dir/slurm.conf" <<EOF
# Written by tests/slurm/cluster.sh for a throw-away test cluster.
ClusterName=bindlab-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
$(node_line bltest)
PartitionName=bltest Nodes=bltest Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    local dir=$1
    # munged wants its socket's directory (and the ones above it) open to
    # all for execute, and its key readable by its owner alone.
    local up=$dir
    while [ "$up" != / ] && [ -n "$up" ]; do
        [ "$(( $(stat -c %a "$up" 2>/dev/null || echo 755) % 2 ))" = 1 ] || [ "$up" = "$dir" ] ||
            die "$up: munged needs execute permission for all on every directory above its socket"
        up=$(dirname "$up")
    done
    mkdir -p "$dir/munge" "$dir/munge-key"
    chmod 0711 "$dir"
    chmod 0755 "$dir/munge"
    chmod 0700 "$dir/munge-key"
    # A key of our own: the cluster never depends on /etc/munge.
    dd if=/dev/urandom of="$dir/munge-key/munge.key" bs=1024 count=1 status=none
    chmod 0600 "$dir/munge-key/munge.key"
    munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge-key/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munge-key/seed"
    for _ in $(seq 1 50); do
        [ -S "$dir/munge/munge.socket" ] && [ -s "$dir/munged.pid" ] && return
        sleep 0.1
    done
    die "munged did not start (see $dir/munged.log)"
}

# wait_idle DIR SECONDS: until sinfo shows the node idle.
wait_idle() {
    local state
    for _ in $(seq 1 $(($2 * 4))); do
        state=$(SLURM_CONF="$1/slurm.conf" sinfo -h -n bltest -o %T 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        sleep 0.25
    done
    echo "cluster.sh: node not idle after $2 s (state '${state:-?}')" >&2
    tail -n 20 "$1/slurmctld.log" "$1/slurmd.log" >&2 2>/dev/null || true
    return 1
}

start() {
    local dir=$1
    [ "$(id -u)" = 0 ] || die "needs root (slurmd runs jobs as their owner)"
    mkdir -p "$dir/state" "$dir/spool"
    write_conf "$dir"
    start_munge "$dir"
    slurmctld -f "$dir/slurm.conf" -i
    slurmd -f "$dir/slurm.conf" -N bltest
    wait_idle "$dir" 60
    echo "SLURM_CONF=$dir/slurm.conf"
}

# stop_pid FILE NAME: SIGTERM to the pid in FILE, SIGKILL after 10 s.
stop_pid() {
    local pid
    [ -s "$1" ] || return 0
    pid=$(cat "$1")
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    echo "cluster.sh: $2 ($pid) ignored SIGTERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
}

stop() {
    local dir=$1 jobs
    # Jobs still running (a test that failed half-way) would outlive
    # slurmd in their slurmstepd: cancel them first.
    if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        jobs=$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
        if [ -n "${jobs// /}" ]; then
            # shellcheck disable=SC2086 # one word per job id
            SLURM_CONF="$dir/slurm.conf" scancel $jobs 2>/dev/null || true
            for _ in $(seq 1 40); do
                [ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.25
            done
        fi
    fi
    stop_pid "$dir/slurmd.pid" slurmd
    stop_pid "$dir/slurmctld.pid" slurmctld
    stop_pid "$dir/munged.pid" munged
}

case "${1:-}" in
start) [ -n "${2:-}" ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ -n "${2:-}" ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start|stop DIR" ;;
esac
