#!/bin/bash
# bindlab run -- PROGRAM records the GPUs each process could see and
# judges them as bindlab-app does (test_app_gpu_shared.sh), from the
# visible-device variables the probe recorded at each process's start, on
# common.sh's fake GPU node (fake_gpu_node: A, B local to every CPU this
# job may use, C far away). (a) both ranks given GPU 0: each rank's gpus
# A, the finding and flag gpu-shared; (b) each rank its own GPU through
# bindlab-gpu-wrap --gpu-bind round-robin (the program run is the
# wrapper, which execs probe_target): A and B, no flag; (c) no variable:
# every rank sees A,B,C, C far, nothing judged; (d) both given GPU 2 (C):
# gpu-not-local.
source "$(dirname "$0")/common.sh"
set +e +o pipefail
BUILD=$BINDLAB_BUILD_DIR
DUMP=$BUILD/tests/runrecord_dump
TARGET=$BUILD/tests/probe_target
[ -x "$DUMP" ] && [ -x "$TARGET" ] && [ -f "$BUILD/libbindlab-probe.so" ] &&
    [ -x "$BUILD/bindlab-gpu-wrap" ] || fail "runrecord_dump, probe_target, the probe or the wrapper not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
asan=$(ldd "$TARGET" | awk '$1 ~ /^libasan/ {print $3}')
[ -z "$asan" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
cd "$WORK" || fail "no work dir"
fake_gpu_node
unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES ZE_AFFINITY_MASK BINDLAB_GPUS

# run NAME VAR=VALUE|- PROGRAM...: bindlab run (2 ranks, its environment
# plus VAR) with its record dumped into NAME.dump
run() {
    local name=$1 var=$2; shift 2
    [ "$var" = - ] && var=BINDLAB_TEST_NONE=1
    env "$var" "$BINDLAB" run -np 2 --bind-to none --out "$name.h5" -- "$@" \
        >"$name.out" 2>&1 || fail "$name: $(cat "$name.out")"
    "$DUMP" "$name.h5" >"$name.dump" || fail "$name: dump"
}
flagged() { grep -q "^flags .*$2" "$1.dump"; }

# (a) both ranks given GPU 0 (A): B and C idle
run same CUDA_VISIBLE_DEVICES=0 "$TARGET"
grep -q "^gpus 0 seen $A far -" same.dump && grep -q "^gpus 1 seen $A far -" same.dump ||
    fail "same: rows: $(grep ^gpus same.dump)"
want="finding 0 warning gpu-shared GPU $A is given to ranks 0,1 of one node while GPUs $B,$C are given to none: deal them one each"
grep -q "^$want" same.dump || fail "same: no gpu-shared: $(grep ^finding same.dump)"
[ "$(grep -c 'gpu-shared' same.dump)" = 2 ] || fail "same: one finding and the flag expected: $(cat same.dump)"
flagged same gpu-shared || fail "same: no flag: $(grep ^flags same.dump)"
grep -q "gpu-not-local" same.dump && fail "same: gpu-not-local: $(grep gpu same.dump)"

# (b) each rank its own GPU, dealt by the wrapper: nothing shared
run apart - "$BUILD/bindlab-gpu-wrap" --gpu-bind round-robin -- "$TARGET"
grep -q "^gpus 0 seen $A far -" apart.dump && grep -q "^gpus 1 seen $B far -" apart.dump ||
    fail "apart: rows: $(grep ^gpus apart.dump)"
grep -q "gpu-shared\|gpu-not-local" apart.dump && fail "apart: judged: $(cat apart.dump)"

# (c) no variable: every rank sees all three, none was given one
run all - "$TARGET"
grep -q "^gpus 0 seen $A,$B,$C far $C" all.dump && grep -q "^gpus 1 seen $A,$B,$C far $C" all.dump ||
    fail "all: rows: $(grep ^gpus all.dump)"
grep -q "gpu-shared\|gpu-not-local" all.dump && fail "all: judged: $(cat all.dump)"

# (d) both given GPU 2 (C, far from every CPU they have)
run far CUDA_VISIBLE_DEVICES=2 "$TARGET"
grep -q "^finding 0 warning gpu-not-local GPU $C (NUMA node 1, local CPUs 1000) is not local to this process's CPUs $ALLOWED:" far.dump ||
    fail "far: no gpu-not-local: $(grep ^finding far.dump)"
flagged far gpu-not-local || fail "far: no flag: $(grep ^flags far.dump)"
echo PASS
