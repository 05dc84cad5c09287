#!/bin/bash
# Sweep keys gpu_bind and gpus_per_rank: each form's dry-run lines put
# bindlab-gpu-wrap (with its form and count) right before the rank's
# program, and only there; a layout without them runs the app directly.
# What the wrapper then sets per rank is test_gpu_wrap.sh's.
source "$(dirname "$0")/common.sh"
set +e +o pipefail
: "${BINDLAB:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$WORK" || fail "no work dir"
# Two ranks where this process may use two cores, else one: the sweep
# refuses a layout wider than the allowed CPUs, even in a dry run.
allowed_cpus
NP=$((ALLOWED_CORES < 2 ? ALLOWED_CORES : 2))
cat >g.yaml <<YAML
kernels: [triad]
defaults: {np: $NP}
sweep:
  gpu_bind: [none, closest, round-robin]
  gpus_per_rank: [1, 2]
exclude:
  - {gpu_bind: none, gpus_per_rank: 2}
layouts:
  - {gpus_per_rank: 3, name: count-only}
YAML
"$BINDLAB" sweep g.yaml --dry-run >out 2>err || fail "dry run: $(cat err)"
# line NAME: the command line after the comment naming run NAME
line() { grep -A1 "^# $1 " out | tail -n 1; }
[ "$(grep -c '^# r' out)" = 6 ] || fail "6 layouts expected: $(cat out)"
line r0000 | grep -q "bindlab-gpu-wrap" && fail "gpu_bind none wraps: $(line r0000)"
line r0000 | grep -qE " ([^ ]*\/)?bindlab-app --kernel triad" || fail "r0000: $(line r0000)"
check() {
    local run=$1 form=$2 n=$3
    grep -q "^# $run .* gpus=$form:$n\$" out || fail "$run: label: $(grep "^# $run " out)"
    line "$run" | grep -qE "[^ ]*/bindlab-gpu-wrap --gpu-bind $form --gpus-per-rank $n -- [^ ]*bindlab-app --kernel triad " ||
        fail "$run: $(line "$run")"
}
check r0001 closest 1
check r0002 closest 2
check r0003 round-robin 1
check r0004 round-robin 2
check r0005 closest 3       # gpus_per_rank alone: closest

# bad values name the key and what it accepts
printf 'kernels: [triad]\nlayouts:\n  - {np: 2, gpu_bind: nearest}\n' >bad.yaml
"$BINDLAB" sweep bad.yaml --dry-run >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -q "gpu bind 'nearest': accepted: closest, round-robin, none" err ||
    fail "bad gpu_bind: exit $rc: $(cat err)"
printf 'kernels: [triad]\nlayouts:\n  - {np: 2, gpus_per_rank: 0}\n' >bad.yaml
"$BINDLAB" sweep bad.yaml --dry-run >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -q "gpus_per_rank '0': accepted: 1 to 1024" err ||
    fail "bad gpus_per_rank: exit $rc: $(cat err)"
echo PASS
