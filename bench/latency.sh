#!/usr/bin/env bash
# bindlab-app's latency kernel beside likwid-bench's clload, on the same PU,
# the same buffer size and the same loads per sample, at one size inside
# each cache level and one in memory (sizes from sysfs); interleaved per
# round: chase, lines, likwid. Prints every round, medians and ratios; not
# a test (the goals are in bench/all.sh, printed, never asserted).
#
# Two of the three measure the same thing: the app's --access lines (one
# independent load per 64-byte line, in address order, four per loop) and
# likwid-bench -t clload (the same); both give ns per cache line, the cost
# of a line in a stream. Their ratio is the issue's "within 10%". The third,
# the app's default --access chase (dependent loads over a random cycle),
# is the latency, as Intel MLC --idle_latency and lmbench lat_mem_rd
# measure it, and is printed beside them with its cycles at the core clock
# the app measured; it is not compared with likwid-bench, which has no
# dependent-load test.
#
# One sample is one process on both sides, measured the same way: start,
# allocate and write the buffer, then time ceil(2^20 / lines) sweeps (at
# least 2^20 loads) right away: the app with --warmup 0 --iters 1 (its step
# is that many sweeps), likwid-bench with -i set to the same number. A
# round is one of each, app first; the figure is the median over the
# rounds of lines/likwid. (likwid-bench's default -i runs for about a
# second, and on a loaded machine a sample that long includes the time the
# thread spent descheduled, while the app's usual figure, the median of
# short warm steps, does not: compared that way the two differ by the load
# and the warm-up, not by the loads.) The fastest samples of each side are
# compared too: other load can only slow a sample down.
#
# The last lines are "bench-result KEY VALUE" for bench/all.sh, per level
# (l1, l2, l3, mem): latency.LEVEL.lines_ns, latency.LEVEL.likwid_ns,
# latency.LEVEL.lines_vs_likwid (median of the rounds' ratios),
# latency.LEVEL.deviation (|ratio - 1|), latency.LEVEL.min_ratio (fastest
# lines sample / fastest likwid sample), latency.LEVEL.chase_ns,
# latency.LEVEL.chase_cycles; and latency.clock_ghz.
#
# usage: bench/latency.sh [--levels LIST] [--chase LIST] [--rounds N]
#                         [--iters I] [--huge-pages off|thp]
#   env: BINDLAB_APP (default <repo>/build/bindlab-app; nothing is built here)
set -euo pipefail

prog=latency.sh
here=$(cd "$(dirname "$0")/.." && pwd)
app=${BINDLAB_APP:-$here/build/bindlab-app}
levels=l1,l2,l3,mem
chase_levels=l1,l2
rounds=15
iters=3
huge=off

usage() {
    cat <<EOF
usage: bench/latency.sh [--levels LIST] [--chase LIST] [--rounds N]
                        [--iters I] [--huge-pages off|thp]

For each size, N rounds of: bindlab-app --kernel latency --access lines
(one sample), likwid-bench -t clload (one sample of the same length), and
where asked bindlab-app --kernel latency (the chase, its median step); one
thread each, all on the PU likwid-bench uses. Prints every round, the
medians, and the median of the rounds' ratios lines/likwid.

  --levels LIST      sizes to run, of l1 (half the L1d), l2 (half the L2),
                     l3 (8 x the L2, if the L3 is larger than that) and mem
                     (4 x the last-level cache, at least 256 MiB), from
                     cpu0's caches in sysfs (default l1,l2,l3,mem)
  --chase LIST       the sizes at which the chase runs too (default
                     l1,l2: past the L2 a chase step with 4 KiB pages takes
                     seconds on a VM, at mem tens of seconds; "" for none)
  --rounds N         rounds per size (default 15; a likwid-bench run costs
                     about 1.2 s of its own set-up)
  --iters I          the chase's timed steps per run (default 3)
  --huge-pages MODE  the chase's pages: off (default) or thp; lines and
                     likwid-bench always use 4 KiB pages (likwid-bench does
                     not ask for huge pages)
EOF
}

die() { echo "$prog: $*" >&2; exit 2; }
fail() { echo "$prog: $*" >&2; exit 1; }
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)"; fi; }

while [ $# -gt 0 ]; do
    case $1 in
        --chase) [ $# -ge 2 ] || die "--chase needs a value (see --help)"
                 chase_levels=$2; shift 2 ;;
        --levels|--rounds|--iters|--huge-pages)
            need_value "$@"
            case $1 in
                --levels) levels=$2 ;; --rounds) rounds=$2 ;;
                --iters) iters=$2 ;; --huge-pages) huge=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]{0,3}$ ]] || die "--rounds: '$rounds' is not a whole number >= 1"
[[ $iters =~ ^[1-9][0-9]{0,5}$ ]] || die "--iters: '$iters' is not a whole number >= 1"
[[ $chase_levels =~ ^((l1|l2|l3|mem)(,(l1|l2|l3|mem))*)?$ ]] ||
    die "--chase: '$chase_levels' (a list of l1, l2, l3, mem)"
[[ $huge == off || $huge == thp ]] || die "--huge-pages: '$huge' (accepted: off, thp)"
IFS=, read -r -a level_list <<< "$levels"
for l in "${level_list[@]}"; do
    [[ $l =~ ^(l1|l2|l3|mem)$ ]] || die "--levels: '$l' (accepted: l1, l2, l3, mem)"
done

[ -x "$app" ] || die "no bindlab-app at $app: build it first or set BINDLAB_APP"
command -v likwid-bench > /dev/null ||
    die "likwid-bench not found: install likwid (Debian: apt-get install likwid)"
py=
for p in python3 /usr/bin/python3; do
    "$p" -c 'import h5py' 2> /dev/null && { py=$p; break; }
done
[ -n "$py" ] || die "python3 with h5py is needed to read the app's run file (python3-h5py)"

# cache_bytes, chase_bytes: the sizes, shared with the latency test
# shellcheck source=scripts/cache_sizes.sh
source "$here/scripts/cache_sizes.sh"
l1d=$(cache_bytes 1 Data)
l2=$(cache_bytes 2 Unified)
l3=$(cache_bytes 3 Unified)
if [ -z "$l1d" ] || [ -z "$l2" ]; then die "sysfs names no L1d / L2 of cpu0"; fi

# A level's size in kB (likwid-bench's -w unit, 1000 bytes); likwid-bench
# rounds a buffer down to whole loops of 4 lines (256 bytes), and the app is
# given the same bytes.
level_kb() {
    local b
    b=$(chase_bytes "$1") || return 1
    echo $((b / 1000))
}

# likwid-bench pins its thread to the first hwthread of socket 0; a short
# probe says which, and the app is pinned there too.
probe=$(likwid-bench -t clload -i 10 -w "S0:64kB:1" 2>&1) ||
    die "likwid-bench cannot run clload here: $probe"
cpu=$(sed -n 's/.*running on hwthread \([0-9]*\).*/\1/p' <<< "$probe" | head -n 1)
[ -n "$cpu" ] || die "cannot tell which hwthread likwid-bench used: $probe"

work=$(mktemp -d "${TMPDIR:-/tmp}/bindlab-latency.XXXXXX")
trap 'rm -rf "$work"' EXIT

run_app() {  # BYTES ACCESS HUGE ITERS WARMUP:
             # "ns_per_load cycles_per_load core_clock_ghz laps min"
    local out rc=0 h5=$work/app.h5
    rm -f "$h5"
    out=$(OMP_NUM_THREADS=1 OMP_PLACES="{$cpu}" OMP_PROC_BIND=true \
          "$app" --kernel latency --access "$2" --size "$1" --iters "$4" \
          --warmup "$5" --huge-pages "$3" --out "$h5" 2>&1) || rc=$?
    [ "$rc" = 0 ] || fail "the app failed (exit $rc):"$'\n'"$(tail -n 20 <<< "$out")"
    "$py" - "$h5" <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    m = {r["name"].decode(): float(r["value"]) for r in f["run/metrics"][()]}
print("%.4f %.3f %.3f %d %.4f" % (m["ns_per_load"], m["cycles_per_load"],
      m["core_clock_ghz"], m["laps_per_step"], m["ns_per_load_min"]))
EOF
}
run_likwid() {  # KB SWEEPS: ns per cache line of one run of SWEEPS sweeps
    local out rc=0
    out=$(likwid-bench -t clload -i "$2" -w "S0:${1}kB:1" 2>&1) || rc=$?
    [ "$rc" = 0 ] || fail "likwid-bench failed (exit $rc):"$'\n'"$(tail -n 20 <<< "$out")"
    awk -F: '
        $1 == "Time" { gsub(/[ \t]|sec/, "", $2); t = $2 }
        $1 == "Iterations per thread" { gsub(/[ \t]/, "", $2); it = $2 }
        $1 == "Size per thread" { gsub(/[ \t]/, "", $2); sz = $2 }
        END { if (t == "" || it == "" || sz == "") exit 1
              printf "%.4f\n", t * 1e9 / (it * sz / 64) }' <<< "$out" ||
        fail "cannot read likwid-bench's Time/Iterations/Size:"$'\n'"$out"
}
# shellcheck source=bench/bench_lib.sh
source "$here/bench/bench_lib.sh"   # median
spread() { # the 10th and 90th percentiles (nearest rank) of the lines read
    sort -g | awk '{v[NR] = $1} END {lo = int(0.1 * (NR - 1) + 0.5) + 1
                   hi = int(0.9 * (NR - 1) + 0.5) + 1; printf "%.3f-%.3f", v[lo], v[hi]}'; }

echo "latency.sh: PU $cpu; L1d $l1d, L2 $l2, L3 ${l3:-none} bytes; $rounds rounds" \
     "per size; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  lines:  OMP_NUM_THREADS=1 OMP_PLACES={$cpu} OMP_PROC_BIND=true $app --kernel latency" \
     "--access lines --size BYTES --iters 1 --warmup 0 --huge-pages off"
echo "  likwid: likwid-bench -t clload -i SWEEPS -w S0:KBkB:1 (SWEEPS = the app's laps_per_step)"
echo "  chase:  the app with --access chase --iters $iters --warmup 1 --huge-pages $huge" \
     "(at ${chase_levels:-no size})"
results=
clock_all=
for level in "${level_list[@]}"; do
    if ! kb=$(level_kb "$level"); then
        echo "$level: skipped (no L3 larger than 16 x the L2 on cpu0)"
        continue
    fi
    bytes=$(( kb * 1000 / 256 * 256 ))
    echo
    echo "$level: $bytes bytes (likwid-bench -w S0:${kb}kB:1)"
    printf '%6s %9s %8s %10s %13s %12s\n' round "chase ns" cycles "lines ns" "likwid ns" lines/likwid
    c_all='' y_all='' l_all='' k_all='' r_all=
    chase=0
    [[ ",$chase_levels," == *",$level,"* ]] && chase=1
    for ((r = 1; r <= rounds; r++)); do
        read -r l _ ghz2 laps _ <<< "$(run_app "$bytes" lines off 1 0)"
        k=$(run_likwid "$kb" "$laps")
        c=nan cy=nan
        if [ "$chase" = 1 ]; then
            read -r c cy ghz _ _ <<< "$(run_app "$bytes" chase "$huge" "$iters" 1)"
            c_all+="$c"$'\n'; y_all+="$cy"$'\n'; clock_all+="$ghz"$'\n'
        fi
        l_all+="$l"$'\n'; k_all+="$k"$'\n'
        clock_all+="$ghz2"$'\n'
        r_all+="$(awk -v a="$l" -v b="$k" 'BEGIN {printf "%.6f", a / b}')"$'\n'
        awk -v r="$r" -v c="$c" -v cy="$cy" -v l="$l" -v k="$k" 'BEGIN {
            if (c != "nan") { c = sprintf("%.2f", c); cy = sprintf("%.1f", cy) }
            else c = cy = "-"
            printf "%6d %9s %8s %10.3f %13.3f %12.3f\n", r, c, cy, l, k, l / k }'
    done
    cm=nan ym=nan
    [ "$chase" = 0 ] || { cm=$(printf '%s' "$c_all" | median); ym=$(printf '%s' "$y_all" | median); }
    lm=$(printf '%s' "$l_all" | median); km=$(printf '%s' "$k_all" | median)
    rm_=$(printf '%s' "$r_all" | median)
    lf=$(printf '%s' "$l_all" | sort -g | head -n 1); kf=$(printf '%s' "$k_all" | sort -g | head -n 1)
    # The figure is the median of the rounds' ratios: a round's runs see the
    # same load, which the ratio of the medians does not guarantee.
    awk -v c="$cm" -v cy="$ym" -v l="$lm" -v k="$km" -v r="$rm_" -v lf="$lf" -v kf="$kf" 'BEGIN {
        if (c != "nan") { c = sprintf("%.2f", c); cy = sprintf("%.1f", cy) }
        else c = cy = "-"
        printf "median %9s %8s %10.3f %13.3f %12.3f  (ratio of the medians %.3f)\n",
               c, cy, l, k, r, l / k
        printf "fastest samples: lines %.3f, likwid %.3f ns per line, ratio %.3f\n", lf, kf, lf / kf }'
    echo "spread (p10-p90): lines $(printf '%s' "$l_all" | spread), likwid $(printf '%s' "$k_all" | spread)," \
         "lines/likwid $(printf '%s' "$r_all" | spread) ns per line; load $(cut -d' ' -f1-3 /proc/loadavg)"
    results+=$(awk -v p="latency.$level" -v c="$cm" -v cy="$ym" -v l="$lm" -v k="$km" -v r="$rm_" \
                   -v lf="$lf" -v kf="$kf" 'BEGIN {
        printf "bench-result %s.lines_ns %.4f\n", p, l
        printf "bench-result %s.likwid_ns %.4f\n", p, k
        printf "bench-result %s.lines_vs_likwid %.4f\n", p, r
        printf "bench-result %s.deviation %.4f\n", p, (r > 1 ? r - 1 : 1 - r)
        printf "bench-result %s.min_ratio %.4f\n", p, lf / kf
        if (c != "nan") {
            printf "bench-result %s.chase_ns %.3f\n", p, c
            printf "bench-result %s.chase_cycles %.2f\n", p, cy } }')$'\n'
done
echo
echo "core clock measured by the app (dependent adds, fastest of 25 per run):" \
     "median $(printf '%s' "$clock_all" | median) GHz; load now $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s' "$results"
echo "bench-result latency.clock_ghz $(printf '%s' "$clock_all" | median)"
