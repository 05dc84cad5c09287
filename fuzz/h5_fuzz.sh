#!/usr/bin/env bash
# h5_fuzz.sh FUZZER SECONDS CORPUS ARTIFACTS LOG SEED_DIR...: mutates HDF5
# files for SECONDS with fuzz_h5_readers (FUZZER), new inputs into CORPUS
# ("-": a fresh temporary one, so that the seed replays), and fails only on
# bindlab's own failures. libhdf5 1.10 crashes and leaks on damaged files
# by itself (fuzz/README.md), so the target runs in fork mode, going on
# after such failures, and each failing input is replayed and blamed on the
# code of its first stack frame: a frame in bindlab's sources fails (exit
# 1), the library's does not (they are counted, their inputs kept).
# The seed is printed first and taken back from BINDLAB_FUZZ_SEED.
# Used by scripts/fuzz.sh and by the CTest run fuzz.fuzz_h5_readers.
set -euo pipefail
fuzzer=$1 seconds=$2 corpus=$3 artifacts=$4 log=$5
shift 5
seed=${BINDLAB_FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483647 + 1 ))}
echo "fuzz_h5_readers seed: $seed (replay: BINDLAB_FUZZ_SEED=$seed ctest -R fuzz.fuzz_h5_readers)"
ours=0 lib=0 gone=0
if [ "$corpus" = - ]; then
    corpus=$(mktemp -d)
    trap 'rm -rf "$corpus"' EXIT
fi
mkdir -p "$corpus" "$artifacts"
# absolute: the fuzzer runs inside the artifacts directory
fuzzer=$(cd "$(dirname "$fuzzer")" && pwd)/$(basename "$fuzzer")
artifacts=$(cd "$artifacts" && pwd)
rm -f "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/oom-* "$artifacts"/timeout-*
(cd "$artifacts" && "$fuzzer" -seed="$seed" -fork=1 -ignore_crashes=1 \
    -ignore_ooms=1 -ignore_timeouts=1 -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/" \
    "$corpus" "$@") >"$log" 2>&1 || true
grep -q '^INFO: Seed: ' "$log" || { tail -20 "$log" >&2; echo "h5_fuzz.sh: the fuzzer did not start (log: $log)" >&2; exit 1; }
for a in "$artifacts"/crash-* "$artifacts"/leak-*; do
    [ -e "$a" ] || continue
    # Replayed alone: an input that passes (fork mode names an empty
    # input when a child dies between inputs) is counted apart.
    if out=$(ASAN_OPTIONS=fast_unwind_on_malloc=0 "$fuzzer" "$a" 2>&1); then
        gone=$((gone + 1))
        continue
    fi
    # The first frame that is not the sanitizer's own (malloc, memcpy,
    # __sanitizer::internal_memmove under memmove).
    first=$(printf '%s\n' "$out" | grep -E '^ +#[0-9]+ ' |
        grep -vE ' in (__sanitizer::|__interceptor_|__mem|mem(cpy|move|set)|malloc|calloc|realloc|free|strdup)' | head -1 || true)
    case $first in
    *libhdf5*) lib=$((lib + 1)) ;;
    *) ours=$((ours + 1)); echo "h5_fuzz.sh: fuzz_h5_readers: $a: $first" >&2 ;;
    esac
done
runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
echo "fuzz_h5_readers: about ${runs:-0} executions in ${seconds}s (fork mode);" \
    "$lib failing inputs inside libhdf5, $ours in bindlab's code, $gone that pass when replayed"
[ "$ours" = 0 ] || { echo "h5_fuzz.sh: fuzz_h5_readers FAILED (inputs: $artifacts/)" >&2; exit 1; }
