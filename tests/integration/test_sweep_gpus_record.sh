#!/bin/bash
# A real sweep with gpu_bind none, closest and round-robin on a fake GPU
# node (BINDLAB_SYSFS_ROOT): each rank's run-file row records the GPUs it
# could see and those far from its CPUs. GPU A is local to every CPU this
# job may use, GPU B to CPU 1000 (none of them), so the expectations hold
# whatever CPUs the ranks get: none shows both (B far), closest gives both
# ranks A, round-robin gives local rank 1 the far B. Closest leaves B idle
# while A is given twice: the app's gpu-shared warning and the run's flag.
source "$(dirname "$0")/common.sh"
set +e +o pipefail
: "${BINDLAB:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
cd "$WORK" || fail "no work dir"
allowed_cpus
fake_gpu 0000:01:00.0 0 "$ALLOWED"
fake_gpu 0000:81:00.0 1 1000
export BINDLAB_SYSFS_ROOT=$WORK/sys
cat >g.yaml <<'YAML'
kernels:
  - {name: triad, size: 1MiB, iters: 2}
defaults: {np: 2, bind_to: none}
sweep:
  gpu_bind: [none, closest, round-robin]
YAML
"$BINDLAB" sweep g.yaml --oversubscribe >out 2>err ||
    fail "sweep: $(cat out err)"
A=0000:01:00.0 B=0000:81:00.0
check() {
    local run=$1 want=$2 got
    "$RUNFILE_DUMP" results/g.h5 "$run" >"$run.dump" || fail "$run: dump"
    got=$(grep '^gpus ' "$run.dump" | sort | tr '\n' ';')
    [ "$got" = "$want" ] || fail "$run: got '$got', want '$want'"
}
check r0000 "gpus 0 seen $A,$B far $B;gpus 1 seen $A,$B far $B;"
check r0001 "gpus 0 seen $A far -;gpus 1 seen $A far -;"
check r0002 "gpus 0 seen $A far -;gpus 1 seen $B far $B;"
# shared RUN YES|NO: the gpu-shared finding and flag, or neither
shared() {
    local run=$1 want=$2 finding flag
    finding=$(grep -c "^finding 0 warning gpu-shared GPU $A is given to ranks 0,1 of one node while GPU $B is given to none: .*--gpu-bind closest --gpus-per-rank 1" "$run.dump")
    flag=$("$BINDLAB_BUILD_DIR/tests/runrecord_dump" results/g.h5 "$run" | grep -c '^flags .*gpu-shared')
    if [ "$want" = yes ]; then
        [ "$finding" = 1 ] && [ "$flag" = 1 ] || fail "$run: no gpu-shared: $(grep finding "$run.dump")"
    else
        grep -q "gpu-shared" "$run.dump" && fail "$run: gpu-shared: $(cat "$run.dump")"
        [ "$flag" = 0 ] || fail "$run: flagged gpu-shared"
    fi
}
shared r0000 no     # none given: every rank sees both
shared r0001 yes
shared r0002 no
echo PASS
