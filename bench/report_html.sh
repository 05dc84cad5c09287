#!/usr/bin/env bash
# bindlab report --html on 1,000 runs: the time to write the page and its
# size, and the time chromium takes to load it, each beside a reference
# measured in the same rounds, interleaved (A B A B ...), medians and ratios.
#   writing: `report --html` (A) against `report --csv` of the same file (B:
#            the same summary read and ranked, no pictures)
#   loading: chromium --dump-dom of the page (A) against the same of an
#            empty page (B: the browser's own start-up)
# Two files: the 2-core VM sweep of the tests (`report_fixture DIR many
# 1000`: 1 or 2 ranks x 2 threads) and a bigger node (`... many 1000 big`:
# 2 packages x 4 NUMA nodes x 8 cores x 2 PUs, 8 ranks x 16 threads per
# run, so that every node map has 128 threads). Target: under 5 s to
# write and under 5 MB. Prints the figures; asserts nothing.
# usage: bench/report_html.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
build=${BINDLAB_BUILD_DIR:-build}
bindlab=${BINDLAB:-$build/bindlab}
fixture=$build/tests/report_fixture
if [ ! -x "$bindlab" ] || [ ! -x "$fixture" ]; then echo "build first: scripts/build.sh" >&2; exit 1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# secs CMD...: wall seconds of CMD (its output dropped)
secs() {
    local a b
    a=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    b=$(date +%s.%N)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }'
}
# shellcheck source=bench/bench_lib.sh
source bench/bench_lib.sh   # median

have_chromium=0
command -v chromium > /dev/null && have_chromium=1
chrome=(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile"
        --no-first-run --disable-extensions --disable-background-networking
        --disable-component-update --disable-sync --disable-default-apps
        "--host-resolver-rules=MAP * ~NOTFOUND")
printf '<!DOCTYPE html><title>empty</title><p>empty</p>\n' > "$work/empty.html"

echo "# bench/report_html.sh: $rounds rounds, medians; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
for kind in vm big; do
    mkdir "$work/$kind.d"
    if [ "$kind" = big ]; then
        "$fixture" "$work/$kind.d" many 1000 big
    else
        "$fixture" "$work/$kind.d" many 1000
    fi
    "$bindlab" merge -o "$work/$kind.h5" "$work/$kind.d" > /dev/null
    : > "$work/html.t"; : > "$work/csv.t"; : > "$work/cpu.t"
    : > "$work/load.t"; : > "$work/empty.t"
    for _ in $(seq 1 "$rounds"); do
        secs "$bindlab" report "$work/$kind.h5" --html "$work/$kind.html" >> "$work/html.t"
        secs "$bindlab" report "$work/$kind.h5" --csv >> "$work/csv.t"
        # CPU seconds (user + system) of the writer: what the load of
        # other processes does not inflate
        /usr/bin/time -f "%U %S" -o "$work/cpu1" "$bindlab" report "$work/$kind.h5" --html "$work/$kind.html" > /dev/null
        awk '{ print $1 + $2 }' "$work/cpu1" >> "$work/cpu.t"
        if [ "$have_chromium" = 1 ]; then
            secs "${chrome[@]}" --dump-dom "file://$work/$kind.html" >> "$work/load.t"
            secs "${chrome[@]}" --dump-dom "file://$work/empty.html" >> "$work/empty.t"
        fi
    done
    size=$(stat -c %s "$work/$kind.html")
    html=$(median < "$work/html.t"); csv=$(median < "$work/csv.t"); cpu=$(median < "$work/cpu.t")
    printf '%s: 1,000 runs, page %.2f MB (target < 5 MB)\n' "$kind" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')"
    printf '  write --html %.3f s wall, %.3f s CPU (target < 5 s); --csv %.3f s; ratio html/csv %.2f\n' \
        "$html" "$cpu" "$csv" "$(awk -v a="$html" -v b="$csv" 'BEGIN { print a / b }')"
    if [ "$have_chromium" = 1 ]; then
        load=$(median < "$work/load.t"); empty=$(median < "$work/empty.t")
        printf '  chromium load %.3f s; empty page %.3f s; the page costs %.3f s more, ratio %.2f\n' \
            "$load" "$empty" "$(awk -v a="$load" -v b="$empty" 'BEGIN { print a - b }')" \
            "$(awk -v a="$load" -v b="$empty" 'BEGIN { print a / b }')"
    else
        echo "  (no chromium: load time not measured)"
    fi
done
