#!/usr/bin/env bash
# bindlab at the sizes users push it to, each the median of ROUNDS
# interleaved rounds with the peak RSS (/usr/bin/time -v):
#   - bindlab plan on a node of 16,384 PUs (lstopo --input "pack:16 numa:4
#     core:128 pu:2"), -np 16 --map-by package --bind-to package, text and
#     TSV, with the launcher in PATH (Open MPI 4 refuses such a node at
#     once: its binding map would be cut at 1023 characters) and, when
#     BINDLAB_IMPI_BIN names Intel MPI's bin directory, Intel MPI's model;
#   - bindlab sweep --dry-run of a file expanding to 1,000,000 runs
#     (10,000 layouts x 100 repetitions, max_runs: 1000000), and the same
#     file without max_runs, refused at once with its count and the cap.
# Goals (issue "every node users compare", item 5): the plan <= 5 s, the
# dry run <= 10 s and <= 1 GiB.
# usage: bench/plan_limits.sh [ROUNDS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/bench_lib.sh
rounds=${1:-3}
bindlab=$(realpath "${BINDLAB:-build/bindlab}")
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: time)" >&2; exit 1; }
command -v lstopo >/dev/null || { echo "needs lstopo (hwloc)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lstopo --input "pack:16 numa:4 core:128 pu:2" --of xml "$work/16k.xml"
list=$(seq -s, 1 100)
printf 'name: million\nkernels: [triad]\ndefaults: {repetitions: 100}\nsweep:\n  np: [%s]\n  threads: [%s]\n' \
    "$list" "$list" >"$work/capped.yaml"
{ echo "max_runs: 1000000"; cat "$work/capped.yaml"; } >"$work/million.yaml"

# case NAME -- COMMAND...: one timed run, "NAME seconds KB exit" appended
case_run() {
    local name=$1 rc=0
    shift 2
    /usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>"$work/err" || rc=$?
    awk -v n="$name" -v rc="$rc" '/Elapsed \(wall clock\)/ { split($NF, t, ":"); s = t[1] * 60 + t[2] }
        /Maximum resident/ { kb = $NF } END { print n, s, kb, rc }' "$work/time" >>"$work/rows"
}

echo "# CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
    "$(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    case_run plan-16k-default-tsv -- "$bindlab" plan --topology "$work/16k.xml" -np 16 \
        --map-by package --bind-to package --format tsv
    if [ -n "${BINDLAB_IMPI_BIN:-}" ]; then
        case_run plan-16k-impi-text -- env PATH="$BINDLAB_IMPI_BIN:$PATH" "$bindlab" plan \
            --launcher impi --topology "$work/16k.xml" -np 16 --map-by package --bind-to package
        case_run plan-16k-impi-tsv -- env PATH="$BINDLAB_IMPI_BIN:$PATH" "$bindlab" plan \
            --launcher impi --topology "$work/16k.xml" -np 16 --map-by package --bind-to package \
            --format tsv
    fi
    case_run dry-run-1e6 -- "$bindlab" sweep --dry-run --skip-invalid "$work/million.yaml"
    case_run dry-run-1e6-capped -- "$bindlab" sweep --dry-run "$work/capped.yaml"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %8s %10s %6s\n' case time_s peak_MiB exit
for name in $(awk '{ print $1 }' "$work/rows" | awk '!seen[$0]++'); do
    t=$(awk -v n="$name" '$1 == n { print $2 }' "$work/rows" | median)
    kb=$(awk -v n="$name" '$1 == n { print $3 }' "$work/rows" | median)
    rc=$(awk -v n="$name" '$1 == n { print $4 }' "$work/rows" | sort -u | paste -sd/)
    printf '%-22s %8.2f %10.1f %6s\n' "$name" "$t" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$rc"
done
