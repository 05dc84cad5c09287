#!/bin/bash
# bindlab-app's gpu-shared warning, judged on rank 0 once every rank's
# visible GPUs are gathered: two ranks of one node given the same GPU
# (CUDA_VISIBLE_DEVICES=0 on both) while the node's others are given to
# none; ranks given different GPUs, or every rank seeing all of them, are
# not warned. A fake GPU node (BINDLAB_SYSFS_ROOT) with GPUs local to every
# CPU this job may use (A, B) and one far away (C, local to CPU 1000).
# With --check the warning joins the ranks' own findings.
source "$(dirname "$0")/common.sh"
set +e +o pipefail
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
cd "$WORK" || fail "no work dir"
fake_gpu_node
APP=(--kernel triad --size 1MiB --iters 1 --warmup 0)

# run NAME MPIRUN-ARGS...: the app's run file dumped into NAME.dump
run() {
    local name=$1; shift
    env -u CUDA_VISIBLE_DEVICES "${MPIRUN[@]}" --bind-to none "$@" \
        >"$name.out" 2>&1 || fail "$name: $(cat "$name.out")"
    "$RUNFILE_DUMP" "$name.h5" >"$name.dump" || fail "$name: dump"
}

# both ranks given GPU 0 (A): B and C idle
run same -np 2 -x CUDA_VISIBLE_DEVICES=0 "$BINDLAB_APP" "${APP[@]}" --check --out same.h5
grep -q "^gpus 0 seen $A far -" same.dump && grep -q "^gpus 1 seen $A far -" same.dump ||
    fail "same: rows: $(grep ^gpus same.dump)"
want="finding 0 warning gpu-shared GPU $A is given to ranks 0,1 of one node while GPUs $B,$C are given to none: deal them one each with gpu_bind closest (or round-robin) and gpus_per_rank 1"
grep -q "^$want" same.dump || fail "same: no gpu-shared: $(grep ^finding same.dump)"
[ "$(grep -c 'gpu-shared' same.dump)" = 1 ] || fail "same: one finding expected"
grep -q "rank 0 .*warning gpu-shared: GPU $A is given to ranks 0,1" same.out ||
    fail "same: not on stderr: $(cat same.out)"

# different GPUs (MPMD: one variable per rank): nothing shared
run apart -np 1 -x CUDA_VISIBLE_DEVICES=0 "$BINDLAB_APP" "${APP[@]}" --out apart.h5 : \
    -np 1 -x CUDA_VISIBLE_DEVICES=1 "$BINDLAB_APP" "${APP[@]}" --out apart.h5
grep -q "^gpus 0 seen $A far -" apart.dump && grep -q "^gpus 1 seen $B far -" apart.dump ||
    fail "apart: rows: $(grep ^gpus apart.dump)"
grep -q "gpu-shared" apart.dump apart.out && fail "apart: gpu-shared: $(cat apart.dump)"

# no variable: every rank sees all three, none was given one
run all -np 2 "$BINDLAB_APP" "${APP[@]}" --out all.h5
grep -q "^gpus 1 seen $A,$B,$C far $C" all.dump || fail "all: rows: $(grep ^gpus all.dump)"
grep -q "gpu-shared" all.dump all.out && fail "all: gpu-shared: $(cat all.dump)"
echo PASS
