#!/usr/bin/env bash
# A private multi-node Slurm cluster on one machine, for the tests. Each
# node is a network namespace (its own address on a private bridge), a UTS
# namespace (its own hostname) and a mount namespace (its own /etc/hosts,
# /dev/shm and node-local directory for slurmd's spool, pid and log), held open by
# one sleeping "holder" process. A head namespace holds the bridge,
# slurmctld and munged. One slurmd per node. Nothing listens outside these
# namespaces and no system-wide Slurm or munge configuration is touched.
#
#   nodes.sh start DIR N         N nodes bl1..blN (10.250.0.K), head blhead
#                                (10.250.0.254); waits until all are idle
#   nodes.sh exec DIR NODE CMD.. runs CMD inside NODE's namespaces (NODE is
#                                head, bl1, ...); clients (sbatch, squeue,
#                                salloc) run in head
#   nodes.sh kill-node DIR NODE  kills every process in NODE's namespaces but
#                                its holder: slurmd, slurmstepd, job ranks
#   nodes.sh stop DIR            cancels jobs, stops every daemon by its pid,
#                                kills what is left in the namespaces,
#                                deletes the namespaces
#
# Needs root and the Debian packages slurmctld slurmd slurm-client munge
# iproute2 util-linux (scripts/deps.sh). The one-node cluster without
# namespaces is tests/slurm/cluster.sh.
set -euo pipefail

die() { echo "nodes.sh: $*" >&2; exit 1; }
# shellcheck source=tests/slurm/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

SUBNET=10.250.0           # a /24 that exists only inside these namespaces
HEAD_ADDR=$SUBNET.254

# Namespace names carry a per-cluster id so that two clusters (or another
# user's namespaces) never meet.
ns_name() { echo "bl$(cat "$1/id")-$2"; }

holder_pid() {
    local f="$1/ns/$2.holder"
    [ -s "$f" ] || die "no node '$2' in $1"
    cat "$f"
}

# in_node DIR NODE CMD...: CMD in NODE's net, UTS and mount namespaces.
in_node() {
    local dir=$1 node=$2
    shift 2
    nsenter -t "$(holder_pid "$dir" "$node")" -n -u -m -- "$@"
}

# make_node DIR NODE ADDR: the namespaces and their holder. The holder's
# mount namespace shows DIR/nodes/NODE at DIR/local, DIR/hosts at
# /etc/hosts and a /dev/shm of its own, as a real node has (MPI shared
# memory segments of one node never meet another node's); private
# propagation: the host's mounts stay as they were.
make_node() {
    local dir=$1 node=$2 addr=$3 ns host=$2
    [ "$node" != head ] || host=blhead
    ns=$(ns_name "$dir" "$node")
    ip netns add "$ns"
    echo "$ns" >>"$dir/ns/list"
    ip -n "$ns" link set lo up
    if [ "$node" = head ]; then
        ip -n "$ns" link add br0 type bridge
        ip -n "$ns" addr add "$addr/24" dev br0
        ip -n "$ns" link set br0 up
    else
        local hub
        hub=$(ns_name "$dir" head)
        ip -n "$hub" link add "v$node" type veth peer name eth0 netns "$ns"
        ip -n "$hub" link set "v$node" master br0 up
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
    fi
    mkdir -p "$dir/nodes/$node/spool" "$dir/nodes/$node/tmp"
    # setsid and no inherited output: the holder must not keep the
    # caller's pipes (ctest waits for them) or its session.
    # shellcheck disable=SC2016 # expanded by the holder's sh
    setsid nsenter --net="/run/netns/$ns" unshare -u -m --propagation private \
        sh -c 'hostname "$1" && mount --bind "$2" "$3" && mount --bind "$4" /etc/hosts &&
               mount -t tmpfs -o mode=1777,size=1g "shm-$1" /dev/shm &&
               echo $$ >"$5.tmp" && mv "$5.tmp" "$5" && exec sleep infinity' \
        holder "$host" "$dir/nodes/$node" "$dir/local" "$dir/hosts" "$dir/ns/$node.holder" \
        </dev/null >/dev/null 2>"$dir/ns/$node.err" &
    for _ in $(seq 1 50); do
        [ -s "$dir/ns/$node.holder" ] && return 0
        sleep 0.05
    done
    die "namespaces of $node not ready: $(cat "$dir/ns/$node.err")"
}

write_conf() {
    local dir=$1 n=$2 k names="" cpus
    {
        printf '127.0.0.1 localhost\n%s blhead\n' "$HEAD_ADDR"
        for k in $(seq 1 "$n"); do printf '%s.%d bl%d\n' "$SUBNET" "$k" "$k"; done
    } >"$dir/hosts"
    for k in $(seq 1 "$n"); do names+="${names:+,}bl$k"; done
    {
        cat <<EOF
# Written by tests/slurm/nodes.sh for a throw-away test cluster of $n nodes.
ClusterName=bindlab-nodes
SlurmctldHost=blhead($HEAD_ADDR)
SlurmctldPort=6817
SlurmdPort=6818
# $dir/local is each node's own directory (its mount namespace).
SlurmdSpoolDir=$dir/local/spool
SlurmdPidFile=$dir/local/slurmd.pid
SlurmdLogFile=$dir/local/slurmd.log
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
$(conf_common "$dir")
# A node that stops answering is marked down after 10 s; its jobs end.
SlurmctldTimeout=30
SlurmdTimeout=10
MessageTimeout=5
KillWait=3
EOF
        cpus=$(node_cpus)
        for k in $(seq 1 "$n"); do node_line "bl$k" "$SUBNET.$k" "$cpus"; done
        echo "PartitionName=nodes Nodes=$names Default=YES MaxTime=INFINITE State=UP"
    } >"$dir/slurm.conf"
    # The PMIx plugin's client directories default to /tmp, which these
    # nodes share: each node keeps them in its own directory instead.
    echo "PMIxCliTmpDirBase=$dir/local/tmp" >"$dir/mpi.conf"
}

wait_idle() {
    local dir=$1 n=$2 secs=$3 idle
    for _ in $(seq 1 $((secs * 4))); do
        idle=$(in_node "$dir" head env SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o %T 2>/dev/null |
            grep -cx idle || true)
        [ "$idle" = "$n" ] && return 0
        sleep 0.25
    done
    echo "nodes.sh: $idle of $n nodes idle after $secs s" >&2
    in_node "$dir" head env SLURM_CONF="$dir/slurm.conf" sinfo -N >&2 || true
    tail -n 20 "$dir/slurmctld.log" "$dir"/nodes/*/slurmd.log >&2 2>/dev/null || true
    return 1
}

start() {
    local dir=$1 n=$2 k
    [ "$(id -u)" = 0 ] || die "needs root (namespaces; slurmd runs jobs as their owner)"
    [[ "$n" =~ ^[1-9]$ ]] || die "N: 1 to 9 nodes"
    [ -e "$dir/id" ] && die "$dir already holds a cluster (stop it first)"
    mkdir -p "$dir/state" "$dir/local" "$dir/ns"
    # Short (namespace names), unique on this machine while DIR exists.
    printf '%x' "$$$(date +%N | cut -c1-3)" | tail -c 8 >"$dir/id"
    : >"$dir/ns/list"
    write_conf "$dir" "$n"
    make_node "$dir" head "$HEAD_ADDR"
    for k in $(seq 1 "$n"); do make_node "$dir" "bl$k" "$SUBNET.$k"; done
    # a path socket: reachable from every namespace of the cluster
    start_munge "$dir" in_node "$dir" head
    in_node "$dir" head slurmctld -f "$dir/slurm.conf" -i
    for k in $(seq 1 "$n"); do
        in_node "$dir" "bl$k" slurmd -f "$dir/slurm.conf" -N "bl$k"
    done
    wait_idle "$dir" "$n" 60
    echo "SLURM_CONF=$dir/slurm.conf"
}

# ns_pids NS [EXCEPT]: the processes in network namespace NS.
ns_pids() {
    ip netns pids "$1" 2>/dev/null | grep -vx "${2:--}" || true
}

kill_node() {
    local dir=$1 node=$2 ns holder pids
    ns=$(ns_name "$dir" "$node")
    holder=$(holder_pid "$dir" "$node")
    pids=$(ns_pids "$ns" "$holder" | tr '\n' ' ')
    # shellcheck disable=SC2086 # one word per pid
    [ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
}

stop() {
    local dir=$1 jobs node ns pids
    [ -e "$dir/id" ] || return 0
    if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        jobs=$(in_node "$dir" head env SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null |
            sort -u | tr '\n' ' ' || true)
        if [ -n "${jobs// /}" ]; then
            # shellcheck disable=SC2086 # one word per job id
            in_node "$dir" head env SLURM_CONF="$dir/slurm.conf" scancel $jobs 2>/dev/null || true
            for _ in $(seq 1 20); do
                [ -z "$(in_node "$dir" head env SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null)" ] &&
                    break
                sleep 0.25
            done
        fi
    fi
    for f in "$dir"/nodes/*/slurmd.pid; do
        [ -e "$f" ] && stop_pid "$f" "nodes.sh: slurmd of $(basename "$(dirname "$f")")"
    done
    stop_pid "$dir/slurmctld.pid" "nodes.sh: slurmctld"
    stop_pid "$dir/munged.pid" "nodes.sh: munged"
    # Whatever is left in the cluster's namespaces (stray steps, holders).
    while read -r ns; do
        [ -n "$ns" ] || continue
        pids=$(ns_pids "$ns" | tr '\n' ' ')
        # shellcheck disable=SC2086 # one word per pid
        [ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
    done <"$dir/ns/list"
    for f in "$dir"/ns/*.holder; do
        if [ -e "$f" ]; then kill -KILL "$(cat "$f")" 2>/dev/null || true; fi
    done
    while read -r ns; do
        if [ -n "$ns" ]; then ip netns del "$ns" 2>/dev/null || true; fi
    done <"$dir/ns/list"
    rm -f "$dir/id"
}

case "${1:-}" in
start) [ $# = 3 ] || die "usage: $0 start DIR N"; start "$2" "$3" ;;
exec) [ $# -ge 4 ] || die "usage: $0 exec DIR NODE CMD..."; d=$2 n=$3; shift 3; in_node "$d" "$n" "$@" ;;
kill-node) [ $# = 3 ] || die "usage: $0 kill-node DIR NODE"; kill_node "$2" "$3" ;;
stop) [ $# = 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start DIR N | exec DIR NODE CMD... | kill-node DIR NODE | stop DIR" ;;
esac
