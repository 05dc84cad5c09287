#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets into
# build-fuzz/ (clang, -DBINDLAB_FUZZ=ON) and runs each target for SECONDS
# (default 60) on its seed corpus, one after the other on one core. A crash,
# leak, timeout or sanitizer report stops the script with exit 1 and leaves
# the input as build-fuzz/fuzz/artifacts/<target>/crash-* (replay it with
# build-fuzz/fuzz/<target> FILE). Without TARGET, all of them.
# BINDLAB_FUZZ_BUILD=DIR builds elsewhere. Prints each target's executions.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${BINDLAB_FUZZ_BUILD:-build-fuzz}
case $build in /*) ;; *) build=$PWD/$build ;; esac # the HDF5 runs cd
case $seconds in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

CC=clang scripts/build.sh "$build" -DBINDLAB_FUZZ=ON -DBINDLAB_NATIVE=OFF \
    -DCMAKE_C_COMPILER=clang >/dev/null
# The HDF5 seeds are written by the project's own writer.
ASAN_OPTIONS=detect_leaks=0 bash fuzz/make_h5_seeds.sh "$build/fuzz/seeds/h5" "$build" >/dev/null

# The HDF5 target (libhdf5 1.10 crashes on damaged files by itself) runs in
# fork mode and blames each failure on its first stack frame: fuzz/h5_fuzz.sh.
# BINDLAB_FUZZ_SEED=N gives every target libFuzzer's -seed=N (each run
# prints the seed it used).
seed_arg=()
[ -z "${BINDLAB_FUZZ_SEED:-}" ] || seed_arg=(-seed="$BINDLAB_FUZZ_SEED")

targets=("$@")
if [ ${#targets[@]} = 0 ]; then
    targets=(fuzz_sweep_file fuzz_values fuzz_slurm_hosts fuzz_plan_nodes fuzz_fail_reason fuzz_probe_file
             fuzz_kstat fuzz_omp_env fuzz_kmp_hw_subset fuzz_h5_readers fuzz_bindreport_ompi4 fuzz_bindreport_ompi5 fuzz_bindreport_slurm
             fuzz_bindreport_hydra fuzz_bindreport_impi fuzz_bindreport_prrte_map
             fuzz_bindreport_omp_affinity fuzz_bindreport_auto)
fi
fx=$PWD/tests/fixtures
for t in "${targets[@]}"; do
    case $t in
    fuzz_sweep_file) seeds=("$fx/sweeps" "$fx/slurm" "$PWD/configs/sweeps") ;;
    fuzz_values) seeds=("$PWD/fuzz/seeds/values") ;;
    fuzz_slurm_hosts) seeds=("$PWD/fuzz/seeds/slurm_hosts") ;;
    fuzz_plan_nodes) seeds=("$PWD/fuzz/seeds/plan_nodes") ;;
    fuzz_kmp_hw_subset) seeds=("$PWD/fuzz/seeds/kmp_hw_subset") ;;
    fuzz_kstat) seeds=("$PWD/fuzz/seeds/kstat") ;;
    fuzz_omp_env) seeds=("$PWD/fuzz/seeds/omp_env") ;;
    fuzz_fail_reason) seeds=("$fx/failures") ;;
    fuzz_probe_file) seeds=("$fx/probe") ;;
    fuzz_h5_readers) seeds=("$build/fuzz/seeds/h5") ;;
    fuzz_bindreport_omp_affinity) seeds=("$fx/bindreport" "$fx/omp") ;;
    fuzz_bindreport_*) seeds=("$fx/bindreport") ;;
    *) echo "fuzz.sh: no target '$t'" >&2; exit 2 ;;
    esac
    corpus=$build/fuzz/corpus/$t artifacts=$build/fuzz/artifacts/$t
    mkdir -p "$corpus" "$artifacts"
    log=$build/fuzz/$t.log
    if [ "$t" = fuzz_h5_readers ]; then
        bash fuzz/h5_fuzz.sh "$build/fuzz/fuzz_h5_readers" "$seconds" "$corpus" "$artifacts" \
            "$log" "${seeds[@]}"
        continue
    fi
    if ! "$build/fuzz/$t" "${seed_arg[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "${seeds[@]}" >"$log" 2>&1; then
        tail -40 "$log" >&2
        echo "fuzz.sh: $t FAILED (log: $log, input: $artifacts/)" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    used=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -1)
    echo "$t: $runs executions in ${seconds}s ($rate/s, seed $used), no crash, leak or sanitizer report"
done
