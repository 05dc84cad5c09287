# shellcheck shell=bash
# Shared by the multi-node tests (label cluster): a private Slurm cluster of
# namespaced nodes (tests/slurm/nodes.sh) in the test's temp dir, stopped
# and its namespaces deleted on exit whatever happens. Sourced, not run.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
NODES_SH="$BINDLAB_SOURCE_DIR/tests/slurm/nodes.sh"
PY=/usr/bin/python3 # used by the tests that source this
export PY

skip() {
    echo "SKIP: $*"
    exit 77
}

# Packages are scripts/deps.sh's job: a missing one is a failure.
missing=()
for p in slurmctld slurmd slurm-client munge iproute2 util-linux; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ "${#missing[@]}" = 0 ] || fail "packages missing (${missing[*]}): run scripts/deps.sh as root"
[ "$(id -u)" = 0 ] || skip "the namespaced nodes and slurmd need root"
# A container without the right to make network namespaces cannot have
# these nodes: ask the machine once.
probe="blprobe$$"
if ! ip netns add "$probe" 2>"$WORK/netns.err"; then
    skip "cannot create a network namespace here: $(cat "$WORK/netns.err")"
fi
ip netns del "$probe"

CLUSTERS=()
cluster_cleanup() {
    local rc=$? c
    for c in "${CLUSTERS[@]}"; do
        if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
            for f in "$c"/slurmctld.log "$c"/nodes/*/slurmd.log; do
                [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 12 "$f" >&2; }
            done
        fi
        bash "$NODES_SH" stop "$c" || true
    done
    rm -rf "$WORK"
    exit "$rc"
}
trap cluster_cleanup EXIT
chmod 0711 "$WORK" # munged wants every directory above its socket open to all (x)

# start_cluster N: a cluster of N nodes bl1..blN; sets CL and SLURM_CONF.
# Between the nodes Open MPI talks TCP over the private /24 only.
start_cluster() {
    CL="$WORK/cluster$1"
    CLUSTERS+=("$CL")
    bash "$NODES_SH" start "$CL" "$1" || fail "the $1-node cluster did not start"
    export SLURM_CONF="$CL/slurm.conf"
    export OMPI_MCA_btl_tcp_if_include=10.250.0.0/24 OMPI_MCA_oob_tcp_if_include=10.250.0.0/24
    export PRTE_MCA_oob_tcp_if_include=10.250.0.0/24
}

# on NODE CMD...: CMD inside NODE's namespaces (head: the login node, where
# sbatch, salloc and srun are typed).
on() {
    local node=$1
    shift
    bash "$NODES_SH" exec "$CL" "$node" "$@"
}

# ranks_hosts FILE: "0:bl1 1:bl2 ..." from the app's --show-placement table
# (thread 0 of each rank: where the rank recorded it ran).
ranks_hosts() {
    awk '$1 == "host" && $2 == "rank" { t = 1; next }
         t && NF >= 9 && $3 == "0" && $2 ~ /^[0-9]+$/ { print $2 ":" $1 }
         t && NF < 9 { t = 0 }' "$1" | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# launcher_hosts FILE: the same from the launcher's own words: Open MPI's
# --report-bindings ("[bl2:123] MCW rank 1 ...", PRRTE "Rank 1 bound")
# or srun --cpu-bind=verbose ("cpu-bind=MASK - bl2, task  1 ...").
launcher_hosts() {
    sed -n -e 's/^\[\([^:]*\):[0-9]*\] MCW rank \([0-9]*\) .*/\2:\1/p' \
        -e 's/^\[\([^:]*\):[0-9]*\] Rank \([0-9]*\) .*/\2:\1/p' \
        -e 's/^cpu-bind[=-][A-Z_]* *- *\([^,]*\), task *\([0-9]*\) .*/\2:\1/p' "$1" |
        sort -n | tr '\n' ' ' | sed 's/ $//'
}

# result FILE FIELD (integration/common.sh): a field of the app's result line.

# init_race LOG: LOG shows Open MPI 4.1's race in MPI_Init across nodes
# (seen here under srun --mpi=pmix, a few launches in a hundred, more under
# load): a rank that left MPI_Init's last PMIx fence early sends to a peer
# still waiting in that fence, whose TCP BTL hands the fragment to a
# callback not yet registered: a call through a null pointer inside
# ompi_mpi_init (core dumps show mca_btl_tcp -> opal_progress ->
# ompi_mpi_init; upstream: open-mpi/ompi pull 13559). The signature: a
# segfault "at address (nil)" and no rank got as far as its result. Such a
# launch is run again (at most twice, and said); any other failure is one.
# In the ASan pass the app's sanitizer keeps its own SIGSEGV handler (Open
# MPI does not replace a handler already there), so the same crash reads
# "AddressSanitizer: SEGV on unknown address 0x000000000000 (pc
# 0x000000000000" (a call through a null pointer), and its unwinder, which
# cannot walk on from pc 0, names one caller: Open MPI's code.
init_race() {
    ! grep -q "^bindlab-app: result" "$1" || return 1
    { grep -q "Signal: Segmentation fault" "$1" && grep -q "Failing at address: (nil)" "$1"; } ||
        { grep -q "AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x000000000000 " "$1" &&
            grep -qE "#1 0x[0-9a-f]+ in [^ ]+ \(.*(libmpi\.so|libopen-pal|libopen-rte|/openmpi/)" "$1"; }
}

# Slots per node: the CPUs each node declares (node_cpus, the fixture's own
# rule: slurmd -C's count, no more than this process may use, nor than
# BL_NODE_CPUS); an allocation without -n gives Open MPI a slot per CPU of
# each node. The "two per node" layouts put CLUSTER_PER_NODE ranks on each
# node: 2, or 1 on nodes of one CPU, where two would oversubscribe it.
# shellcheck source=tests/slurm/slurm_lib.sh
source "$BINDLAB_SOURCE_DIR/tests/slurm/slurm_lib.sh"
die() { fail "$*"; }
CLUSTER_SLOTS=$(node_cpus)
[ -n "$CLUSTER_SLOTS" ] && [ "$CLUSTER_SLOTS" -ge 1 ] || fail "slurmd -C gives no CPU count"
CLUSTER_PER_NODE=$((CLUSTER_SLOTS < 2 ? CLUSTER_SLOTS : 2))
echo "cluster nodes of $CLUSTER_SLOTS CPUs each: $CLUSTER_PER_NODE ranks per node where a layout puts several"

# block_hosts PER-NODE NODES: PER-NODE ranks on bl1, then as many on bl2...
# (by core, or Slurm's block over nodes of at least PER-NODE CPUs each).
block_hosts() {
    local k r out=
    for ((k = 1; k <= $2; k++)); do
        for ((r = 0; r < $1; r++)); do out+="bl$k "; done
    done
    echo "${out% }"
}
# cyclic_hosts NP NODES: NP ranks dealt round robin over bl1..blNODES
cyclic_hosts() {
    local r out=
    for ((r = 0; r < $1; r++)); do out+="bl$((r % $2 + 1)) "; done
    echo "${out% }"
}
# numbered HOSTS...: "0:bl1 1:bl1 ..." (ranks_hosts' form) from "bl1 bl1 ..."
numbered() {
    local h r=0 out= hosts
    read -ra hosts <<<"$*"
    for h in "${hosts[@]}"; do out+="$r:$h " && r=$((r + 1)); done
    echo "${out% }"
}

# The sweeps' layouts over the 2 nodes of CLUSTER_SLOTS slots (CLUSTER_LAYOUT),
# and where each puts its ranks, rank 0 first (CLUSTER_HOSTS), by hand:
# ppr:K:node fills K per node; block by core fills a node's slots before the
# next (one rank more than a node's slots: it spills one onto bl2); by node
# deals the ranks round robin. `local` stays on one node.
K=$CLUSTER_PER_NODE
declare -A CLUSTER_LAYOUT=(
    [ppr1]='np: 2, nodes: 2, map_by: "ppr:1:node"'
    [ppr2]="np: $((2 * K)), nodes: 2, map_by: \"ppr:$K:node\""
    [block]="np: $((CLUSTER_SLOTS + 1)), nodes: 2, map_by: core"
    [cyclic]="np: $((2 * K)), nodes: 2, map_by: node"
    [local]="np: $K, map_by: core"
)
declare -A CLUSTER_HOSTS=(
    [ppr1]="bl1 bl2"
    [ppr2]="$(block_hosts "$K" 2)"
    [block]="$(block_hosts "$CLUSTER_SLOTS" 1) bl2"
    [cyclic]="$(cyclic_hosts $((2 * K)) 2)"
)
unset K

# stencil_sweep FILE NAME LAYOUT...: the sweep file NAME, the stencil
# (256x256, 3 iterations, one thread a rank) in each CLUSTER_LAYOUT named.
# retry: 2: a run whose launch died before the app started (Open MPI 4.1's
# MPI_Init race, init_race) is launched again by the sweep itself, also
# inside the jobs of `bindlab slurm`; retried_launches names each and fails
# the test on a retry of any other cause.
stencil_sweep() {
    local file=$1 name=$2 l
    shift 2
    cat >"$file" <<YAML
name: $name
kernels:
  - {name: stencil, grid: 256x256, iters: 3, warmup: 1}
defaults: {threads: 1, timeout: 120, bind_to: core, retry: 2}
layouts:
$(for l in "$@"; do echo "  - {name: $l, ${CLUSTER_LAYOUT[$l]}}"; done)
YAML
}

# hosts_py: CLUSTER_HOSTS as one argument for the Python checks,
# "ppr1=bl1 bl2;ppr2=..." (read back with want_hosts() there).
hosts_py() {
    local k
    for k in "${!CLUSTER_HOSTS[@]}"; do printf '%s=%s;' "$k" "${CLUSTER_HOSTS[$k]}"; done
}

# ref KEY NP APP-ARGS...: the one-node reference of a kernel, the same
# rank count under plain mpirun here; its checksum in REF[KEY].
declare -A REF
ref() {
    local key=$1 np=$2
    shift 2
    "${MPIRUN[@]}" -np "$np" --bind-to none "$BINDLAB_APP" "$@" >"$WORK/ref-$key.out" 2>&1 ||
        fail "one-node reference $key: $(tail -n 5 "$WORK/ref-$key.out")"
    REF[$key]=$(result "$WORK/ref-$key.out" checksum)
    echo "one node, $key: checksum ${REF[$key]}"
}

# on_head_launch NAME OUT CMD...: CMD on the login node (120 s at most),
# its output in OUT, its status returned; launched again (at most twice,
# and said) when it died of Open MPI 4.1's MPI_Init race (init_race).
on_head_launch() {
    local name=$1 out=$2 rc attempt
    shift 2
    for attempt in 1 2 3; do
        timeout 120 bash "$NODES_SH" exec "$CL" head "$@" >"$out" 2>&1
        rc=$?
        if [ "$rc" = 0 ] || [ "$attempt" = 3 ] || ! init_race "$out"; then break; fi
        echo "note: $name hit Open MPI 4.1's MPI_Init race (cluster_common.sh), launched again"
    done
    return "$rc"
}

# retried_launches DIR NAME: names each launch of sweep DIR/NAME that the
# sweep made again (its kept DIR/NAME.d/rNNNN.tryK.log), and what it died of.
# retry: 2 is there for Open MPI 4.1's MPI_Init race only: a launch retried
# for any other cause is a failure (bad), not a note.
retried_launches() {
    local log
    for log in "$1/$2.d"/r*.try*.log; do
        [ -f "$log" ] || continue
        if init_race "$log"; then
            echo "note: $log hit Open MPI 4.1's MPI_Init race (cluster_common.sh), the sweep launched it again"
        else
            cat "$log" # the whole of it: what it died of is rarely in its last lines
            bad "$log: a launch that died before the app started, for another cause than Open MPI 4.1's MPI_Init race (the sweep launched it again)"
        fi
    done
}

# sweep_in_salloc DIR FILE NAME [ARGS...]: `bindlab sweep ARGS FILE` (sweep
# NAME, its retry: 2 from stencil_sweep) inside salloc -N2 on the login
# node, results in DIR, the output in DIR.out; the launches made again
# named. Sets SWEPT to DIR.
sweep_in_salloc() {
    local dir=$1 file=$2 name=$3 rc
    shift 3
    on head salloc -N2 --exclusive "$BINDLAB" sweep "$@" --results "$dir" "$file" \
        >"$dir.out" 2>&1
    rc=$?
    # shellcheck disable=SC2034 # the caller reads it
    SWEPT=$dir
    retried_launches "$dir" "$name"
    [ "$rc" = 0 ] || tail -n 20 "$dir.out"
    return "$rc"
}
