#!/bin/bash
# bindlab report --html on sweep files written by the harness's own writer
# (report_fixture), opened in a real headless browser (Debian's chromium):
# one table row per run, the bars and flags the fixture implies (counted by
# hand from report_fixture.c), sorting by the inline script, no console
# message and no network request (checked against pages that do have
# them), screenshots at a laptop and a phone size, the emulated-machine
# note, a 1,000-run file, and the refusals every writer has.
. "$(dirname "$0")/common.sh"
FIXTURE=$BINDLAB_BUILD_DIR/tests/report_fixture
[ -x "$FIXTURE" ] || fail "$FIXTURE not built (it is part of every build)"
T=$WORK

mkdir "$T/sweep.d" "$T/many.d"
"$FIXTURE" "$T/sweep.d" || fail "report_fixture"
"$BINDLAB" merge -o "$T/sweep.h5" "$T/sweep.d" > /dev/null || fail "merge"

# --- the page itself ----------------------------------------------------------
"$BINDLAB" report "$T/sweep.h5" --html "$T/r.html" > "$T/out" 2> "$T/err" ||
    fail "report --html: exit $? $(cat "$T/err")"
expect_line "$T/out" "$T/r.html: 12 runs"
[ -s "$T/err" ] && fail "report --html: stderr: $(cat "$T/err")"
ls "$T" | grep -q '\.tmp\.' && fail "a temporary file was left"
# self-contained: nothing that could name another resource
grep -Eiq 'https?:|//[a-z]|src=|@import|url\(' "$T/r.html" &&
    fail "the page names an outside resource: $(grep -Eio '.{20}(https?:|//[a-z]|src=|@import|url\().{20}' "$T/r.html" | head -3)"
# one row per run, with the run's anchor
[ "$(grep -c '<tr id="run-r00' "$T/r.html")" = 12 ] || fail "rows: $(grep -c '<tr id=' "$T/r.html")"
# bars: usable layouts only. triad: r0000..r0005 (6 labels; r0006-8 not ok,
# r0009 not verified); stencil: r0010, r0011. One best bar per kernel, and
# no whisker (one repetition each).
[ "$(grep -c '<rect class="bar' "$T/r.html")" = 8 ] || fail "bars: $(grep -c '<rect class="bar' "$T/r.html")"
[ "$(grep -c '<rect class="bar best' "$T/r.html")" = 2 ] || fail "best bars"
grep -q 'class="whisker"' "$T/r.html" && fail "a whisker for single runs"
grep -q 'bar tie' "$T/r.html" && fail "a tie from single runs"
grep -q 'triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel: 14.6 GB/s</text>' "$T/r.html" ||
    fail "best triad bar label"
# flags: omp-unbound on r0003, r0005, r0011; migrated on r0005
grep -q '<dt id="flag-omp-unbound">omp-unbound</dt><dd>OMP_PROC_BIND was unset .* Runs: <a href="#run-r0003">r0003</a>, <a href="#run-r0005">r0005</a>, <a href="#run-r0011">r0011</a>.</dd>' "$T/r.html" ||
    fail "omp-unbound explanation: $(grep 'flag-omp-unbound"' "$T/r.html")"
grep -q '<dt id="flag-migrated">migrated</dt><dd>A thread moved .* Runs: <a href="#run-r0005">r0005</a>.</dd>' "$T/r.html" ||
    fail "migrated explanation"
[ "$(grep -c '<dt id="flag-' "$T/r.html")" = 2 ] || fail "flags listed: $(grep -o '<dt id="flag-[^"]*' "$T/r.html")"
grep -q 'id="emulated"' "$T/r.html" && fail "emulated note for a machine not recorded as emulated"

# node maps (report_fixture.c: thread g = rank * threads + thread ends on
# CPU g % 2; "migrated" runs started on (g + 1) % 2; 131072 pages per
# rank, the local fraction on NUMA node 0, the rest not present): one
# collapsed block per run, the machine's boxes once (topology "pack:1
# core:2 pu:1") and a map for each of the 9 runs with a result, 2
# threads each (the machine's boxes by reference)
[ "$(grep -c '<details class="run" id="map-r00' "$T/r.html")" = 12 ] || fail "run blocks"
[ "$(grep -c '<g id="topo-0">' "$T/r.html")" = 1 ] || fail "machine template"
[ "$(grep -c '<use href="#topo-0"/>' "$T/r.html")" = 9 ] || fail "maps: $(grep -c '<use href=' "$T/r.html")"
# A map drawn as an earlier one's is a reference to it. In table order
# (r0004 r0005 r0000 r0001 r0002 r0003 r0006-9 r0010 r0011) the distinct
# drawings are: r0004 (2 ranks on CPUs 0, 1; also r0009, r0010), r0005
# (moved), r0000 (1 rank, 2 threads; also r0001-r0003) and r0011 (98%
# local): 4 drawings, 5 references, 2+2+2+2 threads in 2+2+1+2 rank groups
[ "$(grep -c '<g id="b-' "$T/r.html")" = 4 ] || fail "distinct maps: $(grep -c '<g id="b-' "$T/r.html")"
[ "$(grep -c '<use href="#b-' "$T/r.html")" = 5 ] || fail "maps by reference: $(grep -c '<use href="#b-' "$T/r.html")"
[ "$(grep -o '<g><title>rank [0-9]* thread [0-9]*: PU' "$T/r.html" | wc -l)" = 8 ] || fail "threads drawn: $(grep -o '<g><title>rank [0-9]* thread' "$T/r.html" | wc -l)"
[ "$(grep -c '<g class="th k[01]">' "$T/r.html")" = 7 ] || fail "rank groups: $(grep -c '<g class="th k' "$T/r.html")"
# r0000: 1 rank x 2 threads: thread 1 on CPU 1
sed -n '/id="map-r0000"/,/<\/details>/p' "$T/r.html" > "$T/map0"
grep -q '<g class="th k0"><g><title>rank 0 thread 0: PU 0 (core 0, NUMA 0, package 0)</title><rect [^>]*/><text [^>]*>0.0</text></g>$' "$T/map0" ||
    fail "r0000 thread 0: $(grep -o '<title>rank 0 thread 0[^<]*' "$T/map0")"
grep -q '^<g><title>rank 0 thread 1: PU 1 (core 1, NUMA 0, package 0)</title><rect [^>]*/><text [^>]*>0.1</text></g>$' "$T/map0" ||
    fail "r0000 thread 1: $(grep -o '<title>rank 0 thread 1[^<]*' "$T/map0")"
# r0005 (migrated): rank 0 thread 0 ended on 0, started on 1
grep -q '<title>rank 0 thread 0: PU 0 (core 0, NUMA 0, package 0), started on PU 1, 2 migrations</title>' "$T/r.html" ||
    fail "r0005 migration"
# r0011: local 0.98: round(0.98 * 131072) = 128451 pages on node 0 = 98%
sed -n '/id="map-r0011"/,/<\/details>/p' "$T/r.html" > "$T/map11"
[ "$(grep -c '>NUMA 0 98% not present 2% (131072 pages)</text>' "$T/map11")" = 2 ] || fail "r0011 pages: $(grep -o 'NUMA 0 [^<]*' "$T/map11")"
grep -q '<a href="#flag-omp-unbound">omp-unbound</a>: OMP_PROC_BIND was unset' "$T/map11" || fail "r0011 flag explained"
sed -n '/id="map-r0006"/,/<\/details>/p' "$T/r.html" | grep -q 'This run recorded no placement' || fail "r0006 (failed): no placement said"
grep -q '<td><a href="#map-r0004">r0004</a></td>' "$T/r.html" || fail "run cell links to its map"
# iteration times: the fixture's timings[i] = median_s * (1 + 0.01 * (i %
# 3)), i over iterations x ranks. r0004 (np 2): per iteration the larger
# of two neighbours: 1.01 1.02 1.02 1.01 ... = four 1.01, six 1.02; all
# quantiles from p25 up are 1.02 x 0.0490294 s (0.71583 GB / 14.6 GB/s)
# = 50.01 ms. r0000 (np 1): 1.00 x4, 1.01 x3, 1.02 x3: median 1.01, p90
# 1.02 of 0.0840173 s (/ 8.52 GB/s): 84.86 and 85.7 ms
grep -q '>triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel</text></a><text class="st" [^>]*>median 50.01, p90 50.01, p99 50.01, max 50.01 ms (10 iterations, 1 run)</text>' "$T/r.html" ||
    fail "r0004 iteration times: $(grep -o '>triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel</text></a><text[^<]*' "$T/r.html")"
grep -q '>triad np1 map=slot:PE=2 bind=core places=cores proc_bind=close t=2 init=parallel</text></a><text class="st" [^>]*>median 84.86, p90 85.7, p99 85.7, max 85.7 ms (10 iterations, 1 run)</text>' "$T/r.html" ||
    fail "r0000 iteration times"
[ "$(grep -c '<rect class="box"' "$T/r.html")" = 8 ] || fail "iteration boxes: $(grep -c '<rect class="box"' "$T/r.html")"

# --- --plot DIR: the charts as SVG files ----------------------------------------
"$BINDLAB" report "$T/sweep.h5" --plot "$T/plots/new" > "$T/out" 2> "$T/err" ||
    fail "report --plot: exit $? $(cat "$T/err")"
# 2 kernels x (rate, iterations) + the maps of the 9 runs with a result
expect_line "$T/out" "$T/plots/new: 13 SVG files"
[ "$(cd "$T/plots/new" && ls | tr '\n' ' ')" = "map-r0000.svg map-r0001.svg map-r0002.svg map-r0003.svg map-r0004.svg map-r0005.svg map-r0009.svg map-r0010.svg map-r0011.svg stencil-iterations.svg stencil-rate.svg triad-iterations.svg triad-rate.svg " ] ||
    fail "plot files: $(ls "$T/plots/new")"
# each a well-formed SVG document of its own (an XML parser, not grep)
python3 - "$T/plots/new" <<'EOF' || fail "plot files are not standalone SVG"
import glob, sys, xml.etree.ElementTree as ET
for f in glob.glob(sys.argv[1] + "/*.svg"):
    root = ET.parse(f).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", (f, root.tag)
    assert root.get("width") and root.get("height"), f
EOF
# the same facts as the page: 6 triad bars, r0005's migration
[ "$(grep -c '<rect class="bar' "$T/plots/new/triad-rate.svg")" = 6 ] || fail "triad-rate.svg bars"
grep -q 'rank 0 thread 0: PU 0 (core 0, NUMA 0, package 0), started on PU 1, 2 migrations' "$T/plots/new/map-r0005.svg" ||
    fail "map-r0005.svg"
grep -q '<a href' "$T/plots/new/triad-rate.svg" && fail "a link in a standalone chart"
rc=0; "$BINDLAB" report "$T/sweep.h5" --plot "$T/out" 2> "$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--plot $T/out: not a directory" "$T/err" || fail "--plot FILE: exit $rc $(cat "$T/err")"
rc=0; "$BINDLAB" report "$T/sweep.h5" --plot "$T/plots" --csv 2> /dev/null || rc=$?
[ "$rc" = 2 ] || fail "--plot --csv: exit $rc"

# --- refusals -------------------------------------------------------------------
cp "$T/r.html" "$T/keep.html"
rc=0; "$BINDLAB" report "$T/sweep.h5" --html /dev/null 2> "$T/err" || rc=$?
[ "$rc" = 2 ] || fail "--html /dev/null: exit $rc"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
grep -q '^bindlab report: --html /dev/null' "$T/err" || fail "/dev/null message: $(cat "$T/err")"
# exit_of CMD...: the exit status of CMD, stderr dropped
exit_of() { local rc=0; "$@" 2>/dev/null || rc=$?; echo "$rc"; }
[ "$(exit_of "$BINDLAB" report "$T/sweep.h5" --html "$T")" = 2 ] || fail "--html DIR not 2"
[ "$(exit_of "$BINDLAB" report "$T/sweep.h5" --html "$T/r.html" --csv)" = 2 ] || fail "--html --csv not 2"
[ "$(exit_of "$BINDLAB" report "$T/sweep.h5" --html)" = 2 ] || fail "--html without value not 2"
printf 'not hdf5\n' > "$T/text.h5"
[ "$(exit_of "$BINDLAB" report "$T/text.h5" --html "$T/keep.html")" = 1 ] || fail "bad input not 1"
cmp -s "$T/r.html" "$T/keep.html" || fail "a failed report changed the existing page"
"$BINDLAB" report --help | grep -q -- '--html FILE.html' || fail "--help does not name --html"

# --- 1,000 runs: size (the time is printed, not asserted) ---------------------
"$FIXTURE" "$T/many.d" many 1000 || fail "report_fixture many"
"$BINDLAB" merge -o "$T/many.h5" "$T/many.d" > /dev/null || fail "merge many"
t0=$(date +%s.%N)
"$BINDLAB" report "$T/many.h5" --html "$T/m.html" > /dev/null || fail "report --html of 1,000 runs"
t1=$(date +%s.%N)
size=$(stat -c %s "$T/m.html")
echo "1,000 runs: page written in $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') s, $size bytes"
[ "$size" -lt 5000000 ] || fail "1,000-run page is $size bytes (limit 5 MB)"
[ "$(grep -c '<tr id="run-L' "$T/m.html")" = 1000 ] || fail "1,000-run rows"
# 200 layouts of 5 repetitions; every 50th run failed, so layouts 9, 19,
# ... have 4 usable runs; every layout has more than one: 200 whiskers.
[ "$(grep -c '<rect class="bar' "$T/m.html")" = 200 ] || fail "1,000-run bars"
[ "$(grep -c 'class="whisker"' "$T/m.html")" = 200 ] || fail "1,000-run whiskers"
[ "$(grep -c '<rect class="box"' "$T/m.html")" = 200 ] || fail "1,000-run iteration boxes"
[ "$(grep -c '<details class="run"' "$T/m.html")" = 1000 ] || fail "1,000-run maps"
# L000: 5.00 5.05 5.10 5.15 5.20 -> median 5.1. L049: 5 + (49*37 % 100)/10
# = 6.3, runs .1-.4 (run 249 failed): 6.30 6.35 6.40 6.45 -> 6.375;
# map maps[49 % 4] = slot:PE=2, bind binds[(49 / 4) % 4] = core
grep -q '>triad layout L000 np1 map=core bind=core: 5.1 GB/s (median of 5, 5 to 5.2)</text>' "$T/m.html" ||
    fail "L000 bar label: $(grep -o '>triad layout L000 [^<]*' "$T/m.html")"
grep -q '>triad layout L049 np2 map=slot:PE=2 bind=core: 6.375 GB/s (median of 4, 6.3 to 6.45)</text>' "$T/m.html" ||
    fail "L049 bar label: $(grep -o '>triad layout L049 [^<]*' "$T/m.html")"
# ties: the best is L027 (residue 37k % 100 = 99: 14.9 .. 15.1, median
# 15.0; L127 has the same rates, named later). Ranges that overlap 14.9 ..
# 15.1: L127 and residue 98 (k = 54, 154: 14.8 .. 15.0); residue 97 (k =
# 81, 181: 14.7 .. 14.9) touches it at 14.9, a rounding's call; residue 95
# (k = 35: 14.5 .. 14.7) does not reach it
grep -q '>triad layout L027 [^<]*: 15 GB/s (median of 5, 14.9 to 15.1)</text>' "$T/m.html" || fail "best layout L027"
for k in 127 054 154; do
    grep -q ">triad layout L$k [^<]*, a tie with the best</text>" "$T/m.html" || fail "L$k not a tie"
done
grep -q '>triad layout L035 [^<]*, a tie with the best' "$T/m.html" && fail "L035 marked a tie"
ties=$(grep -c '<rect class="bar tie"' "$T/m.html")
[ "$ties" -ge 3 ] && [ "$ties" -le 5 ] || fail "ties: $ties"
grep -q '<p class="note" id="emulated">Note: rates are not meaningful for speed: these runs ran on an emulated machine (emulated: QEMU TCG (report_fixture))' "$T/m.html" ||
    fail "emulated note missing"

# --- matrices (bindlab matrix's /matrices/<kind>) ----------------------------------
# report_fixture adds a 2 x 2 latency matrix (80 ns local, 140 ns remote):
# drawn once by matrix_svg.c, its four values written in its cells, still
# no URL in the page (the inline heatmap loses its xmlns); --plot writes it
cp "$T/sweep.h5" "$T/mx.h5"
"$FIXTURE" "$T/mx.h5" matrix || fail "report_fixture matrix"
"$BINDLAB" report "$T/mx.h5" --html "$T/mx.html" > /dev/null || fail "report --html with a matrix"
grep -q '<h3 id="matrix-latency">latency (ns): CPU NUMA node x memory NUMA node</h3>' "$T/mx.html" || fail "matrix heading"
[ "$(grep -c 'class="bl-matrix"' "$T/mx.html")" = 1 ] || fail "matrix heatmaps"
[ "$(grep -Eo 'font-size="13">(80|140)</text>' "$T/mx.html" | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')" = "2 2 " ] ||
    fail "matrix cells: $(grep -Eo '<text [^>]*font-size="13">[0-9]+</text>' "$T/mx.html")"
grep -Eiq 'https?:' "$T/mx.html" && fail "the page with a matrix names a URL"
grep -q 'id="matrices"' "$T/r.html" && fail "a matrices section without matrices"
"$BINDLAB" report "$T/mx.h5" --plot "$T/mxplots" > /dev/null || fail "--plot with a matrix"
[ -s "$T/mxplots/matrix-latency.svg" ] || fail "no matrix-latency.svg"

# --- a file of two machines: a map per machine, and the compare view ------------
# the 12-run VM sweep and report_fixture's xeon runs merged into one file
# (/nodes/0 the VM, /nodes/1 the xeon: 2 packages x 4 cores, one NUMA node
# each). The comparison is test_compare.sh's (ratios derived there): x0
# 40 / 14.6 = 2.74, x1 31 / 8.52 = 3.64, x4 2000 / 583 = 3.43.
mkdir "$T/xeon.d"
"$FIXTURE" "$T/xeon.d" xeon || fail "report_fixture xeon"
"$BINDLAB" merge -o "$T/two.h5" "$T/sweep.d" "$T/xeon.d" > /dev/null || fail "merge of two machines"
"$BINDLAB" report "$T/two.h5" --html "$T/two.html" > "$T/out" || fail "report --html of two machines"
expect_line "$T/out" "$T/two.html: 17 runs"
[ "$(grep -c '^<p id="node-[01]"><b>Node [01]</b>.</p>$' "$T/two.html")" = 2 ] || fail "two machines not listed"
grep -q '<h2 id="compare">' "$T/two.html" || fail "no compare view"
for r in 2.74 3.64 3.43; do
    grep -q "<td class=\"n\">$r</td>" "$T/two.html" || fail "compare ratio $r"
done
[ "$(grep -c '<g id="topo-[01]">' "$T/two.html")" = 2 ] || fail "one template per machine"
# each machine's charts of its own runs: VM 6 triad + 2 stencil layouts,
# xeon x0, x1 (x1.1 and x1.2), x3 and stencil x4: 12 bars
[ "$(grep -c '<rect class="bar' "$T/two.html")" = 12 ] || fail "bars of two machines: $(grep -c '<rect class="bar' "$T/two.html")"
grep -q '<h2>triad, GB/s on node 1, xeon-8core (4 runs)</h2>' "$T/two.html" || fail "xeon triad heading"
[ "$(grep -c '<tr id="run-' "$T/two.html")" = 17 ] || fail "rows of two machines"
# x0: np 4 x 2 threads on the xeon's 8 CPUs: rank 3 thread 1 = thread 7 on
# CPU 7, core 7, the second package's NUMA node (1)
sed -n '/id="map-x0"/,/<\/details>/p' "$T/two.html" > "$T/mapx0"
grep -q '<use href="#topo-1"/>' "$T/mapx0" || fail "x0 not drawn on the xeon"
grep -q '<title>rank 3 thread 1: PU 7 (core 7, NUMA 1, package 1)</title>' "$T/mapx0" || fail "x0 rank 3 thread 1"
"$BINDLAB" report "$T/sweep.h5" --html "$T/one.html" > /dev/null
grep -q 'id="compare"' "$T/one.html" && fail "a compare view for one machine"

# --- maps of big runs: compact, and drawn once per distinct placement -----------
# report_fixture DIR many 10 big: 2 layouts x 5 repetitions of 8 ranks x
# 16 threads on 128 PUs; runs 0 and 7 (L000.1, L001.3) are flagged
# migrated (every thread started one CPU further). So 4 distinct maps
# (each layout with and without the moves), 6 runs drawn by reference.
mkdir "$T/big.d"
"$FIXTURE" "$T/big.d" many 10 big || fail "report_fixture many big"
"$BINDLAB" merge -o "$T/big.h5" "$T/big.d" > /dev/null || fail "merge big"
"$BINDLAB" report "$T/big.h5" --html "$T/big.html" > /dev/null || fail "report --html big"
[ "$(grep -c '<g id="b-' "$T/big.html")" = 4 ] || fail "distinct big maps: $(grep -c '<g id="b-' "$T/big.html")"
[ "$(grep -c '<use href="#b-' "$T/big.html")" = 6 ] || fail "big maps by reference: $(grep -c '<use href="#b-' "$T/big.html")"
sed -n '/id="map-L000.1"/,/<\/details>/p' "$T/big.html" > "$T/bigmap"
[ "$(grep -c '<title>rank [0-7]: 16 threads, 16 moved</title>' "$T/bigmap")" = 8 ] || fail "L000.1 rank titles"
[ "$(grep -o '<text x="[^"]*" y="[^"]*">[0-9]*\.[0-9]*</text>' "$T/bigmap" | wc -l)" = 128 ] || fail "L000.1 thread labels"
sed -n '/id="map-L000.2"/,/<\/details>/p' "$T/big.html" | grep -q '<use href="#b-[0-9]*"/>' || fail "L000.2 (as L000.3-5) not drawn by reference"

# --- in a real browser ------------------------------------------------------------
if ! command -v chromium > /dev/null; then
    echo "SKIP: chromium is not installed (scripts/deps.sh installs it)"
    exit 77
fi
# a fresh profile; no background traffic of the browser's own, so that any
# request in the network log is the page's
CHROME=(timeout 120 chromium --headless --no-sandbox --disable-gpu
        --user-data-dir="$T/profile" --no-first-run --disable-extensions
        --disable-background-networking --disable-component-update
        --disable-sync --disable-default-apps
        "--host-resolver-rules=MAP * ~NOTFOUND"
        --enable-logging=stderr --log-level=0)
# page_requests NETLOG: the URLs (not file:) of requests made for a file://
# page, from the browser's network log.
page_requests() {
    python3 - "$1" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
by = collections.defaultdict(list)
for e in d["events"]:
    by[e["source"]["id"]].append(e.get("params", {}))
for ps in by.values():
    if "file://" in json.dumps(ps):
        for p in ps:
            u = p.get("url")
            if isinstance(u, str) and not u.startswith("file:"):
                print(u)
EOF
}
# load NAME URL: dumps the DOM to NAME.dom, stderr to NAME.log, the
# network log to NAME.net.
load() {
    "${CHROME[@]}" --log-net-log="$T/$1.net" --dump-dom "$2" > "$T/$1.dom" 2> "$T/$1.log" ||
        fail "chromium on $2: exit $? $(grep -v dbus "$T/$1.log" | tail -3)"
}

# the probes first: a page with a script error and an image on the network
# must be seen as such, or their absence below proves nothing
printf '<!DOCTYPE html><p>x</p><img alt="" src="http://example.invalid/x.png"><script>nosuch();</script>\n' > "$T/bad.html"
load bad "file://$T/bad.html"
grep -q ':CONSOLE.*nosuch' "$T/bad.log" || fail "probe: the console error of bad.html was not seen"
# (captured first: grep -q stopping early would break python's pipe)
req=$(page_requests "$T/bad.net")
grep -qx 'http://example.invalid/x.png' <<< "$req" ||
    fail "probe: the request of bad.html was not seen: $req"

load page "file://$T/r.html"
grep ':CONSOLE' "$T/page.log" && fail "console messages on the page"
req=$(page_requests "$T/page.net")
[ -z "$req" ] || fail "the page made network requests: $req"
[ "$(grep -c '<tr id="run-' "$T/page.dom")" = 12 ] || fail "rows in the browser: $(grep -c '<tr id="run-' "$T/page.dom")"
grep -q '<svg class="bars"' "$T/page.dom" || fail "no chart in the browser's DOM"

# the script sorts (it ran, and numbers sort as numbers): by run id, and
# by rate descending: 600 and 583 MLUP/s, then 15.9 ... 6.1 GB/s, then the
# runs without a rate in run order
order() { grep -o '<tr id="run-[^"]*' "$1" | sed 's/<tr id="run-//' | tr '\n' ' '; }
load sorted "file://$T/r.html#sort=run"
[ "$(order "$T/sorted.dom")" = "r0000 r0001 r0002 r0003 r0004 r0005 r0006 r0007 r0008 r0009 r0010 r0011 " ] ||
    fail "#sort=run: $(order "$T/sorted.dom")"
load sorted "file://$T/r.html#sort=-rate"
[ "$(order "$T/sorted.dom")" = "r0010 r0011 r0009 r0004 r0005 r0000 r0001 r0002 r0003 r0006 r0007 r0008 " ] ||
    fail "#sort=-rate: $(order "$T/sorted.dom")"
grep -q '<th data-k="rate" class="n" aria-sort="descending">' "$T/sorted.dom" || fail "sorted column not marked"

load many "file://$T/m.html"
grep ':CONSOLE' "$T/many.log" && fail "console messages on the 1,000-run page"
[ "$(grep -c '<tr id="run-' "$T/many.dom")" = 1000 ] || fail "1,000-run rows in the browser"

# screenshots at a laptop and a phone size: a PNG of that size, not blank
for size in 1366,768 390,844; do
    png=$T/shot-${size%,*}.png
    "${CHROME[@]}" --hide-scrollbars --window-size="$size" --screenshot="$png" \
        "file://$T/r.html" 2> /dev/null || fail "screenshot $size"
    python3 - "$png" "${size%,*}" "${size#*,}" <<'EOF' || fail "screenshot $size"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), (w, h)
# not one flat colour: the decompressed rows differ
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
row = len(raw) // h
assert len({raw[i * row + 1:(i + 1) * row] for i in range(h)}) > 20, "blank"
EOF
done
# --- readable at a laptop and a phone width ---------------------------------------
# The page is laid out in an iframe of that width (headless chromium keeps
# its window at least 500 px wide), from a copy with a script appended (the
# page itself has none of it) that opens every run block, then writes into
# the outer page the viewport width it was laid out in, how far the
# document is wider than its box (sideways overflow of the body; the wide
# charts and the table scroll inside their own boxes), and the smallest
# font size of any text block. srcdoc keeps the iframe same-origin.
measured() {
    python3 - "$1" "$2" "$T/measure.html" <<'EOF'
import html, sys
width, page, out = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
script = ('<script>(function(){var e=document.documentElement,o=parent.document'
          '.documentElement,m=99;document.querySelectorAll("details").forEach('
          'function(d){d.open=true;});document.querySelectorAll("p,td,th,summary,'
          'li,dd,dt,h1,h2").forEach(function(x){var f=parseFloat(getComputedStyle'
          '(x).fontSize);if(f<m)m=f;});o.setAttribute("data-vw",innerWidth);'
          'o.setAttribute("data-overflow",e.scrollWidth-e.clientWidth);'
          'o.setAttribute("data-minfont",m);})();</script>')
page = page.replace("</body>", script + "</body>")
open(out, "w").write('<!DOCTYPE html><html><body style="margin:0"><iframe '
                     'style="width:%spx;height:800px;border:0" srcdoc="%s">'
                     '</iframe></body></html>' % (width, html.escape(page)))
EOF
    "${CHROME[@]}" --window-size=1400,900 --dump-dom "file://$T/measure.html" > "$T/measure.dom" 2> /dev/null ||
        fail "chromium measuring $2 at $1"
    grep -o '<html[^>]*>' "$T/measure.dom" | head -1 |
        sed -E 's/.*data-vw="([0-9]+)".*data-overflow="(-?[0-9]+)".*data-minfont="([0-9.]+)".*/\1 \2 \3/'
}
# the probe first: a body that is too wide must be seen as such
printf '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"></head><body><p>x</p><div style="width:2000px">wide</div></body></html>\n' > "$T/wide.html"
read -r vw over font <<< "$(measured 390 "$T/wide.html")"
[ "$vw" = 390 ] && [ "$over" -gt 1000 ] || fail "probe: the wide page measured '$vw $over $font'"
for width in 1366 390; do
    for page in r.html m.html; do
        read -r vw over font <<< "$(measured "$width" "$T/$page")"
        [ "$vw" = "$width" ] || fail "$page laid out $vw wide, not $width"
        [ "$over" = 0 ] || fail "$page at $width px: the body overflows by $over px"
        awk -v f="$font" 'BEGIN { exit !(f >= 11) }' || fail "$page at $width px: text at $font px"
    done
done

# --- a screenshot against the stored reference ------------------------------------
# the page of the 12-run fixture, named by a relative path so that no
# temporary directory is in it, at 1366x768, compared shrunk 4x in grey
# levels with a per-block tolerance (png_compare.py: robust to font
# differences, not to a missing chart or a moved table).
# BINDLAB_UPDATE_GOLDEN=1 rewrites the reference when it no longer
# matches, and fails until it is reviewed and committed.
REF=$BINDLAB_FIXTURES/report-html/report-1366x768.png
COMPARE=$(dirname "$0")/png_compare.py
(cd "$T" && "$BINDLAB" report sweep.h5 --html shot.html > /dev/null) || fail "report for the screenshot"
"${CHROME[@]}" --hide-scrollbars --force-device-scale-factor=1 --window-size=1366,768 \
    --screenshot="$T/shot.png" "file://$T/shot.html" 2> /dev/null || fail "screenshot for the reference"
# the probe: another page (the 1,000-run one) must not pass for this one
"${CHROME[@]}" --hide-scrollbars --force-device-scale-factor=1 --window-size=1366,768 \
    --screenshot="$T/other.png" "file://$T/m.html" 2> /dev/null || fail "screenshot of the 1,000-run page"
python3 "$COMPARE" "$T/shot.png" "$T/other.png" > "$T/probe.cmp" &&
    fail "probe: the 1,000-run page matched the 12-run one: $(cat "$T/probe.cmp")"
echo "no reference to compare with" > "$T/cmp"
if [ -f "$REF" ] && python3 "$COMPARE" "$REF" "$T/shot.png" > "$T/cmp"; then
    cat "$T/cmp"
elif [ -n "${BINDLAB_UPDATE_GOLDEN:-}" ]; then
    cp "$T/shot.png" "$REF"
    fail "the screenshot reference $REF was rewritten ($(cat "$T/cmp" 2>/dev/null)): look at it, then commit it"
else
    cp "$T/shot.png" "${TMPDIR:-/tmp}/bindlab-report-1366x768.png"
    fail "the screenshot differs from $REF: $(cat "$T/cmp" 2>/dev/null); this run's is in ${TMPDIR:-/tmp}/bindlab-report-1366x768.png (BINDLAB_UPDATE_GOLDEN=1 to accept it)"
fi
echo "ok: report --html (12 and 1,000 runs), in chromium $(chromium --version 2>/dev/null | awk '{print $2}')"
