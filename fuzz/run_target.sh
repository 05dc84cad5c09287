#!/usr/bin/env bash
# run_target.sh TARGET SECONDS SEED_DIR...: one CTest run of a libFuzzer
# target: SECONDS of mutation from the seed directories, into a fresh
# corpus, with a random seed printed first and taken back from
# BINDLAB_FUZZ_SEED, so that a failure in CI replays here:
#   BINDLAB_FUZZ_SEED=N ctest -R fuzz.TARGET
# (the same seed and seed inputs give the same sequence of inputs).
set -euo pipefail
target=$1 seconds=$2
shift 2
seed=${BINDLAB_FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483647 + 1 ))}
name=$(basename "$target")
echo "seed: $seed (replay: BINDLAB_FUZZ_SEED=$seed ctest -R 'fuzz\.$name\$')"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
"$target" -seed="$seed" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 "$corpus" "$@"
