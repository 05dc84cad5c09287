#!/bin/bash
# bindlab-gpu-wrap, the per-rank GPU wrapper, on a fake sysfs tree
# (BINDLAB_SYSFS_ROOT): the variables each local rank gets under every
# gpu-bind form, for GPUs local to its CPU, remote, and of two vendors; and
# bindlab check run through it, flagging a visible GPU far from its CPUs. The
# wrapper's CPU is the first this process may use (taskset); "remote" GPUs
# are local to CPU 1000, which no CPU list here holds. No GPU is needed.
source "$(dirname "$0")/common.sh"
set +e +o pipefail
WRAP=$BINDLAB_BUILD_DIR/bindlab-gpu-wrap
[ -x "$WRAP" ] || fail "no $WRAP"
CPU=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
[ -n "$CPU" ] || fail "cannot read this shell's affinity"

# gpu BUS VENDOR CLASS NUMA CPULIST: a PCI function in the fake tree
gpu() {
    local d=$WORK/sys/bus/pci/devices/$1
    mkdir -p "$d"
    echo "$2" >"$d/vendor"; echo "$3" >"$d/class"
    echo "$4" >"$d/numa_node"; echo "$5" >"$d/local_cpulist"
}
# two NVIDIA GPUs on our CPU, two far away, a NIC and a VGA (not GPUs)
gpu 0000:01:00.0 0x10de 0x030200 0 "$CPU"
gpu 0000:02:00.0 0x10de 0x030200 0 "$CPU"
gpu 0000:81:00.0 0x10de 0x030200 1 1000
gpu 0000:82:00.0 0x10de 0x030200 1 1000
gpu 0000:03:00.0 0x15b3 0x020700 0 "$CPU"
gpu 0000:04:00.0 0x1a03 0x030000 0 "$CPU"
export BINDLAB_SYSFS_ROOT=$WORK/sys

# vis LOCAL_RANK ARGS...: "CUDA=.. ROCR=.. ZE=.. GPUS=.." as the program
# run by the wrapper sees them (unset: "-")
vis() {
    local lr=$1; shift
    OMPI_COMM_WORLD_LOCAL_RANK=$lr taskset -c "$CPU" "$WRAP" "$@" -- \
        /bin/sh -c 'echo "CUDA=${CUDA_VISIBLE_DEVICES--} ROCR=${ROCR_VISIBLE_DEVICES--} ZE=${ZE_AFFINITY_MASK--} GPUS=${BINDLAB_GPUS--} ORDER=${CUDA_DEVICE_ORDER--}"'
}
expect() {
    local want=$1 got; shift
    got=$(vis "$@") || fail "wrapper failed: $*: $got"
    [ "$got" = "$want" ] || fail "$*: got '$got', want '$want'"
}

# closest: local ranks take the two local GPUs in turn, never the far ones
expect "CUDA=0 ROCR=- ZE=- GPUS=0000:01:00.0 ORDER=PCI_BUS_ID" 0 --gpu-bind closest
expect "CUDA=1 ROCR=- ZE=- GPUS=0000:02:00.0 ORDER=PCI_BUS_ID" 1 --gpu-bind closest
expect "CUDA=0 ROCR=- ZE=- GPUS=0000:01:00.0 ORDER=PCI_BUS_ID" 2
expect "CUDA=0,1 ROCR=- ZE=- GPUS=0000:01:00.0,0000:02:00.0 ORDER=PCI_BUS_ID" 1 --gpus-per-rank 2
# three: both local ones, then a far one
expect "CUDA=0,1,2 ROCR=- ZE=- GPUS=0000:01:00.0,0000:02:00.0,0000:81:00.0 ORDER=PCI_BUS_ID" 0 --gpus-per-rank 3
# round-robin: local_rank % 4, blind to locality
expect "CUDA=3 ROCR=- ZE=- GPUS=0000:82:00.0 ORDER=PCI_BUS_ID" 3 --gpu-bind round-robin
expect "CUDA=1 ROCR=- ZE=- GPUS=0000:02:00.0 ORDER=PCI_BUS_ID" 5 --gpu-bind round_robin
# none: nothing set, every GPU visible
expect "CUDA=- ROCR=- ZE=- GPUS=- ORDER=-" 0 --gpu-bind none
# every local rank variable a launcher uses
got=$(MPI_LOCALRANKID=1 taskset -c "$CPU" "$WRAP" -- /bin/sh -c 'echo $CUDA_VISIBLE_DEVICES')
[ "$got" = 1 ] || fail "MPI_LOCALRANKID: $got"
got=$(SLURM_LOCALID=1 taskset -c "$CPU" "$WRAP" -- /bin/sh -c 'echo $CUDA_VISIBLE_DEVICES')
[ "$got" = 1 ] || fail "SLURM_LOCALID: $got"

# an AMD GPU on our CPU too: numbered among AMD's; the rank given it hides
# every NVIDIA GPU, and the other way round
gpu 0000:c1:00.0 0x1002 0x038000 0 "$CPU"
expect "CUDA=0 ROCR= ZE=- GPUS=0000:01:00.0 ORDER=PCI_BUS_ID" 0
expect "CUDA= ROCR=0 ZE=- GPUS=0000:c1:00.0 ORDER=PCI_BUS_ID" 2
# and an Intel one far away: ZE_AFFINITY_MASK
gpu 0000:d1:00.0 0x8086 0x038000 1 1000
expect "CUDA= ROCR= ZE=0 GPUS=0000:d1:00.0 ORDER=PCI_BUS_ID" 5 --gpu-bind round-robin

# every GPU far away: closest deals from all of them
rm -rf "$WORK/sys"
gpu 0000:81:00.0 0x10de 0x030200 1 1000
gpu 0000:82:00.0 0x10de 0x030200 1 1000
expect "CUDA=1 ROCR=- ZE=- GPUS=0000:82:00.0 ORDER=PCI_BUS_ID" 1

# bindlab check through the wrapper: the GPU it was given is local (no
# finding) or, dealt round robin, far away (gpu-not-local)
: "${BINDLAB:?}"
rm -rf "$WORK/sys"
gpu 0000:01:00.0 0x10de 0x030200 0 "$CPU"
gpu 0000:81:00.0 0x10de 0x030200 1 1000
out=$(OMPI_COMM_WORLD_LOCAL_RANK=0 taskset -c "$CPU" "$WRAP" --gpu-bind closest -- "$BINDLAB" check)
echo "$out" | grep -q "gpu-not-local" && fail "closest: $out"
out=$(OMPI_COMM_WORLD_LOCAL_RANK=1 taskset -c "$CPU" "$WRAP" --gpu-bind round-robin -- "$BINDLAB" check)
echo "$out" | grep -q "warning gpu-not-local: GPU 0000:81:00.0 (NUMA node 1, local CPUs 1000) is not local to this process's CPUs $CPU:" ||
    fail "round-robin: no gpu-not-local: $out"
# the far GPU named by hand is flagged too
out=$(CUDA_VISIBLE_DEVICES=1 taskset -c "$CPU" "$BINDLAB" check)
echo "$out" | grep -q "gpu-not-local: GPU 0000:81:00.0" || fail "named far: $out"
# no variable (every GPU visible, none given) or a UUID (not resolvable
# without the runtime): no finding claimed
out=$(env -u CUDA_VISIBLE_DEVICES taskset -c "$CPU" "$BINDLAB" check)
echo "$out" | grep -q "gpu-not-local" && fail "nothing given: $out"
out=$(CUDA_VISIBLE_DEVICES=GPU-8f2c,1 taskset -c "$CPU" "$BINDLAB" check)
echo "$out" | grep -q "gpu-not-local" && fail "uuid: $out"

# refusals: no local rank, a bad value, a program that cannot run
out=$(env -u OMPI_COMM_WORLD_LOCAL_RANK -u MPI_LOCALRANKID -u SLURM_LOCALID \
      -u PMI_LOCAL_RANK "$WRAP" -- /bin/true 2>&1); rc=$?
[ "$rc" = 127 ] && echo "$out" | grep -q "no local rank" || fail "no local rank: $rc $out"
out=$(OMPI_COMM_WORLD_LOCAL_RANK=0 "$WRAP" --gpu-bind nearest -- /bin/true 2>&1); rc=$?
[ "$rc" = 127 ] && echo "$out" | grep -q "closest, round-robin, none" || fail "bad bind: $rc $out"
out=$(OMPI_COMM_WORLD_LOCAL_RANK=0 "$WRAP" -- "$WORK/nope" 2>&1); rc=$?
[ "$rc" = 127 ] && echo "$out" | grep -q "cannot run" || fail "bad program: $rc $out"
echo PASS
