#!/usr/bin/env bash
# bindlab-app's triad against likwid-bench's STREAM triad (not a test: the
# target is printed, never asserted). Both run on the same thread count,
# pinned the same way (one thread per core, cores 0..T-1), on the same
# element count, interleaved A B A B; then the medians and their ratio.
# Each round also records how busy the CPUs were with other work just
# before it, since bandwidth figures from a shared machine are noise.
# bench/README.md says how to read the figures.
#
# usage: bench/triad.sh [--threads T] [--size SIZE] [--rounds N]
#                       [--iters I] [--test LIKWID_TEST]
#   env: BINDLAB_APP (default <repo>/build/bindlab-app; nothing is built here)
set -euo pipefail

prog=triad.sh
here=$(cd "$(dirname "$0")/.." && pwd)
app=${BINDLAB_APP:-$here/build/bindlab-app}
threads=1
size=1GiB
rounds=7
iters=20
test_name=  # empty: the first of stream_avx, stream_avx_fma, stream_sse that runs here
target=0.95

usage() {
    cat <<EOF
usage: bench/triad.sh [--threads T] [--size SIZE] [--rounds N] [--iters I]
                      [--test LIKWID_TEST]

Runs bindlab-app's triad and likwid-bench's STREAM triad alternately
(app, likwid, app, likwid, ...) N times and prints every round, both
medians and the ratio app/likwid (target >= $target).

  --threads T   OpenMP threads of the app and likwid-bench threads, one per
                core of package 0 (default 1)
  --size SIZE   total bytes across the three arrays, as bindlab-app reads
                it: 1GiB, 1.5GB, 800MiB, 4096 (default 1GiB); rounded down
                to an element count both programs accept
  --rounds N    app/likwid pairs (default 7)
  --iters I     the app's timed iterations per run (default 20)
  --test NAME   likwid-bench test to run (default: stream_avx, else
                stream_avx_fma, else stream_sse, whichever this CPU runs)

The app runs as
  OMP_NUM_THREADS=T OMP_PROC_BIND=close OMP_PLACES=cores \\
    mpirun -np 1 --bind-to none bindlab-app --kernel triad --size BYTES ...
from \$BINDLAB_APP or <repo>/build/bindlab-app (this script builds nothing).
EOF
}

die() { echo "$prog: $*" >&2; exit 2; }   # bad input, or a tool missing
fail() { echo "$prog: $*" >&2; exit 1; }  # a run that failed

need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)"; fi; }

while [ $# -gt 0 ]; do
    case $1 in
        --threads|--size|--rounds|--iters|--test)
            need_value "$@"
            case $1 in
                --threads) threads=$2 ;; --size) size=$2 ;;
                --rounds) rounds=$2 ;; --iters) iters=$2 ;; --test) test_name=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1' (accepted: --threads, --size, --rounds," \
               "--iters, --test, --help)" ;;
    esac
done

is_count() { [[ $1 =~ ^[1-9][0-9]{0,5}$ ]]; }
is_count "$threads" || die "--threads: '$threads' is not a whole number >= 1"
is_count "$rounds" || die "--rounds: '$rounds' is not a whole number >= 1"
is_count "$iters" || die "--iters: '$iters' is not a whole number >= 1"

# Bytes from SIZE with bindlab-app's units (common/units.h): B, KB/MB/GB/TB
# are powers of 1000, KiB/MiB/GiB/TiB and K/M/G/T powers of 1024.
size_bytes() {
    awk -v s="$1" 'BEGIN {
        if (!match(s, /^[0-9]+(\.[0-9]+)?/)) exit 1
        num = substr(s, 1, RLENGTH); unit = substr(s, RLENGTH + 1)
        sub(/^ +/, "", unit); u = toupper(unit)
        if (unit == "" || u == "B") m = 1
        else if (u == "KB") m = 1e3;  else if (u == "KIB" || u == "K") m = 2^10
        else if (u == "MB") m = 1e6;  else if (u == "MIB" || u == "M") m = 2^20
        else if (u == "GB") m = 1e9;  else if (u == "GIB" || u == "G") m = 2^30
        else if (u == "TB") m = 1e12; else if (u == "TIB" || u == "T") m = 2^40
        else exit 1
        printf "%.0f\n", int(num * m) }'
}
bytes=$(size_bytes "$size") ||
    die "--size: '$size' is not a size (accepted: a number with B, KB, MB, GB," \
        "TB, KiB, MiB, GiB, TiB or K, M, G, T, e.g. 1GiB)"

# --- tools ----------------------------------------------------------------
[ -x "$app" ] || die "no bindlab-app at $app: build it first (cmake --build build)" \
                     "or set BINDLAB_APP"
command -v mpirun > /dev/null || die "mpirun not found on PATH (Open MPI)"
command -v likwid-bench > /dev/null ||
    die "likwid-bench not found on PATH: install likwid (Debian: apt-get install likwid)" \
        "or load its module"

cores=$(hwloc-calc --number-of core package:0 2> /dev/null || nproc)
[ "$threads" -le "$cores" ] ||
    die "--threads: $threads is more than the $cores cores of package 0" \
        "(one thread per core on both sides)"

# likwid-bench's STREAM triad (A = B*s + C). The plain tests store with
# vmovaps, like the compiler's loop; the *_mem_* tests use non-temporal
# stores and are not a like-for-like reference for a normal-store loop.
cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has_flags() { for f in "$@"; do [[ $cpu_flags == *" $f "* ]] || return 1; done; }
tests=$(likwid-bench -a 2> /dev/null | awk '{print $1}')
has_test() { grep -qx -- "$1" <<< "$tests"; }
if [ -z "$test_name" ]; then
    for t in stream_avx:avx stream_avx_fma:avx,fma stream_sse:sse2; do
        IFS=, read -r -a need <<< "${t#*:}"
        if has_test "${t%%:*}" && has_flags "${need[@]}"; then
            test_name=${t%%:*}; break
        fi
    done
    [ -n "$test_name" ] ||
        die "none of stream_avx, stream_avx_fma, stream_sse is both listed by" \
            "'likwid-bench -a' and supported by this CPU; pick one with --test"
else
    has_test "$test_name" || die "--test: '$test_name' is not listed by 'likwid-bench -a'"
fi

# How likwid-bench counts bytes and how it rounds the vector length: read
# from the test itself rather than assumed.
props=$(likwid-bench -l "$test_name" 2>&1) ||
    die "'likwid-bench -l $test_name' failed: $props"
prop() { awk -F: -v k="$1" '$1 == k {gsub(/[ \t]/, "", $2); print $2}' <<< "$props"; }
bpe=$(prop "Bytes per element")
stride=$(prop "Loop stride")
streams=$(prop "Number of streams")
[[ $bpe =~ ^[0-9]+$ && $stride =~ ^[0-9]+$ && $streams == 3 ]] ||
    die "unexpected 'likwid-bench -l $test_name' output (want 3 streams," \
        "a byte count and a loop stride): $props"

# Same element count on both sides. likwid-bench takes the total in kB
# (1000 B), splits it over the 3 streams and rounds each down to a multiple
# of stride x threads; the app gets exactly 24 B x that count.
kb=$((bytes / 1000))
chunk=$((stride * threads))
elems=$(( (kb * 1000 / 24) / chunk * chunk ))
[ "$elems" -gt 0 ] ||
    die "--size: '$size' is too small for likwid-bench at $threads thread(s)" \
        "(need at least $(( (chunk * 24 + 999) / 1000 * 1000 )) bytes)"
app_bytes=$((elems * 24))

l3=$(lstopo-no-graphics --only L3Cache -v 2> /dev/null |
     sed -n 's/.*size=\([0-9]*\)KB.*/\1/p' | awk '{s += $1} END {print s * 1024}')
if [ "${l3:-0}" -gt 0 ] && [ "$app_bytes" -lt $((4 * l3)) ]; then
    echo "$prog: warning: $app_bytes bytes is less than 4x the L3 caches" \
         "($l3 bytes): part of it runs from cache, not memory" >&2
fi

if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
app_argv=(mpirun -np 1 --bind-to none "$app" --kernel triad --size "$app_bytes"
          --iters "$iters")
likwid_argv=(likwid-bench -t "$test_name" -w "S0:${kb}kB:$threads")

# A tiny likwid run first, so that a likwid-bench that cannot run here
# (no access to the topology, a test this CPU lacks) says so before the
# first round, with its own message.
if ! probe=$(likwid-bench -t "$test_name" -i 100 \
                    -w "S0:$((chunk * 24 / 1000 + 1))kB:$threads" 2>&1) ||
   ! grep -q '^MByte/s:' <<< "$probe"; then
    die "likwid-bench cannot run '$test_name' here; its output:"$'\n'"$probe"
fi

# --- one run of each ---------------------------------------------------------
# The app's headline rate is per median iteration; likwid-bench's is its
# bytes over its whole timed loop, a mean. On a quiet machine they agree;
# where other work steals time the median wins. So the app also writes its
# run file and, when h5py is there, its mean over all timed iterations is
# shown beside it: that column compares like with like.
work=$(mktemp -d "${TMPDIR:-/tmp}/bindlab-triad.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Debian's python3-h5py lives under /usr/bin/python3, which a pyenv or
# conda python3 first on PATH does not see.
have_h5py=0 py=
for py in python3 /usr/bin/python3; do
    "$py" -c 'import h5py' 2> /dev/null && { have_h5py=1; break; }
done

app_mean() {  # GB/s over all timed iterations (slowest rank per iteration)
    "$py" - "$1" "$app_bytes" "$iters" <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    t = f["run/timings"][()]
print("%.4f" % (float(sys.argv[2]) * int(sys.argv[3]) / t.max(axis=1).sum() / 1e9))
EOF
}
run_app() {  # prints "median-rate mean-rate" (mean "-" without h5py)
    local out rc=0 r m=- h5=$work/app.h5
    rm -f "$h5"
    out=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores \
          "${app_argv[@]}" --out "$h5" 2>&1) || rc=$?
    r=$(sed -n 's/^bindlab-app: result .*verified=yes.* rate=\([^ ]*\) unit=GB\/s.*/\1/p' <<< "$out")
    { [ "$rc" = 0 ] && [ -n "$r" ]; } ||
        fail "the app's run failed (exit $rc) or did not verify:"$'\n'"$(tail -n 20 <<< "$out")"
    [ "$have_h5py" = 0 ] || m=$(app_mean "$h5") ||
        fail "cannot read /run/timings from the app's run file $h5"
    echo "$r $m"
}
run_likwid() {  # prints GB/s in the 24-byte model
    local out rc=0 mbs got
    out=$("${likwid_argv[@]}" 2>&1) || rc=$?
    mbs=$(awk -F: '$1 == "MByte/s" {gsub(/[ \t]/, "", $2); print $2}' <<< "$out")
    got=$(awk -F: '$1 == "Size (Byte)" {gsub(/[ \t]/, "", $2); print $2}' <<< "$out")
    { [ "$rc" = 0 ] && [ -n "$mbs" ]; } ||
        fail "likwid-bench failed (exit $rc):"$'\n'"$(tail -n 20 <<< "$out")"
    [ "$got" = "$app_bytes" ] ||
        echo "$prog: warning: likwid-bench used $got bytes, the app $app_bytes" >&2
    # MByte/s is 1e6 B/s counted at $bpe bytes per element; rescale to 24.
    awk -v m="$mbs" -v b="$bpe" 'BEGIN {printf "%.4f\n", m / 1e3 * 24 / b}'
}
# shellcheck source=bench/bench_lib.sh
source "$here/bench/bench_lib.sh"   # median
# Percent of all CPUs busy (anyone's work) over one second, from /proc/stat.
cpu_busy() {
    local a b
    a=$(head -n 1 /proc/stat); sleep 1; b=$(head -n 1 /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN {
        split(a, x); split(b, y)
        for (k = 2; k <= 9; k++) tot += y[k] - x[k]
        idle = (y[5] - x[5]) + (y[6] - x[6])
        printf "%d\n", (tot > 0 ? 100 * (tot - idle) / tot + 0.5 : 0) }'
}
echo "triad.sh: $threads thread(s), 3 arrays x $elems doubles = $app_bytes bytes," \
     "$rounds rounds of app then likwid"
echo "  app:    OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores ${app_argv[*]}"
echo "  likwid: ${likwid_argv[*]}   ($test_name counts $bpe B/element;" \
     "GB/s below = MByte/s / 1000 x 24/$bpe)"
echo "  busy%: CPU time taken by other work in the second before the round"
printf '%6s %6s %10s %10s %12s %11s %11s\n' round busy% "app GB/s" "(app mean)" \
       "likwid GB/s" app/likwid "(mean/mean)"
row() {  # label busy app mean likwid
    awk -v k="$1" -v q="$2" -v a="$3" -v m="$4" -v l="$5" 'BEGIN {
        printf "%6s %6s %10.3f %10s %12.3f %11.3f %11s\n", k, q, a,
               (m == "-" ? "-" : sprintf("%.3f", m)), l, a / l,
               (m == "-" ? "-" : sprintf("%.3f", m / l)) }'
}
# Rows: "busy app mean likwid", one per round.
rows=
for ((k = 1; k <= rounds; k++)); do
    q=$(cpu_busy)
    read -r a m <<< "$(run_app)"
    l=$(run_likwid)
    rows+="$q $a $m $l"$'\n'
    row "$k" "$q" "$a" "$m" "$l"
done
rows=${rows%$'\n'}
col() { awk -v c="$1" -v max="${2:-101}" '$1 < max {print $c}' <<< "$rows"; }
summary() {  # label max-busy: medians over the rounds with busy < max-busy
    local am mm=- lm
    am=$(col 2 "${2:-}" | median); lm=$(col 4 "${2:-}" | median)
    [ "$have_h5py" = 0 ] || mm=$(col 3 "${2:-}" | median)
    row "$1" "" "$am" "$mm" "$lm"
}
summary median
quiet=$(col 1 10 | wc -l)
noisy=$((rounds - quiet))
if [ "$quiet" -gt 0 ] && [ "$noisy" -gt 0 ]; then
    summary quiet 10
fi
am=$(col 2 | median); lm=$(col 4 | median)
awk -v a="$am" -v l="$lm" -v t="$target" 'BEGIN {
    r = a / l
    printf "ratio of medians app/likwid = %.3f (target >= %.2f: %s)\n",
           r, t, (r >= t ? "met" : "NOT met") }'
# For bench/all.sh (the goal lives there): one line per figure.
awk -v a="$am" -v l="$lm" 'BEGIN { printf "bench-result triad.app_vs_likwid %.4f\n", a / l }'
if [ "$noisy" -gt 0 ]; then
    if [ "$quiet" -gt 0 ]; then
        hint="the 'quiet' row holds the medians over the $quiet other rounds"
    else
        hint="no round was quiet: rerun on an idle machine"
    fi
    echo "$prog: warning: in $noisy of $rounds rounds other work took >= 10% of" \
         "the CPUs, which slows both sides unevenly; $hint" >&2
fi
