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
# shellcheck source=tests/slurm/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

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
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmdSpoolDir=$dir/spool/%n
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
$(conf_common "$dir")
$(node_line bltest 127.0.0.1)
PartitionName=bltest Nodes=bltest Default=YES MaxTime=INFINITE State=UP
EOF
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
    stop_pid "$dir/slurmd.pid" "cluster.sh: slurmd"
    stop_pid "$dir/slurmctld.pid" "cluster.sh: slurmctld"
    stop_pid "$dir/munged.pid" "cluster.sh: munged"
}

case "${1:-}" in
start) [ -n "${2:-}" ] || die "usage: $0 start DIR"; start "$2" ;;
stop) [ -n "${2:-}" ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start|stop DIR" ;;
esac
