#!/bin/bash
# bindlab report and report --html of a run over many nodes: a record of
# 200 nodes x 8 ranks x 4 threads made by bindlab-gen-record (the harness's
# writer) on the shipped 2x EPYC 7763 topology, with two odd nodes (node 1:
# rank 8's thread 0 on PU 16, outside its rank's CPUs 0-15 of the node's
# first share, i.e. rank 9's; node 100: rank 800's pages on NUMA node 1).
# Alike nodes fold into one line and one map, the odd ones stay apart,
# --all-nodes lists every node, and the topology is stored once.
. "$(dirname "$0")/common.sh"
need_gen_record
T=$WORK

"$GEN" "$T/odd.h5" "$XML" 200 8 4 --odd || fail "gen-record --odd"
"$GEN" "$T/same.h5" "$XML" 200 8 4 || fail "gen-record"

# --- the topology stored once: one dataset, 199 links to it ------------------
if command -v h5ls >/dev/null; then
    h5ls -r "$T/odd.h5" > "$T/ls"
    [ "$(grep -c 'topology_xml *Dataset {SCALAR}' "$T/ls")" = 1 ] || fail "topology stored more than once"
    [ "$(grep -c 'nodes/[0-9]*/topology_xml *Dataset, same as' "$T/ls")" = 199 ] || fail "199 linked topologies: $(grep -c 'same as' "$T/ls")"
fi

# --- merged: the node list whole, the topology still stored once ---------------
"$BINDLAB" merge -o "$T/merged.h5" "$T/odd.h5" > /dev/null || fail "merge"
if command -v h5ls >/dev/null; then
    h5ls -r "$T/merged.h5" > "$T/mls"
    [ "$(grep -c 'topology_xml *Dataset {SCALAR}' "$T/mls")" = 1 ] || fail "merged: topology stored $(grep -c 'topology_xml *Dataset {SCALAR}' "$T/mls") times"
fi
"$BINDLAB" report "$T/merged.h5" > "$T/mtext" || fail "report of the merged file"
expect_line "$T/mtext" "  node 100 (n00100): 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 0.88"
[ "$(grep -c '^  node' "$T/mtext")" = 3 ] || fail "merged: 3 group lines: $(cat "$T/mtext")"

# --- text: folded -----------------------------------------------------------
"$BINDLAB" report "$T/odd.h5" > "$T/text" 2> "$T/err" || fail "report: $(cat "$T/err")"
expect_line "$T/text" "nodes 0-199 (n00000-n00199): made up, 2 packages, 2 NUMA nodes, 128 cores, Open MPI v4.1.4"
expect_line "$T/text" "run r0000: 200 nodes, 3 alike groups (same machine, each rank's threads on the same PUs of its node, the same pages); --all-nodes: every node:"
expect_line "$T/text" "  nodes 0,2-99,101-199 (n00000, n00002-n00099, n00101-n00199): 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 1.00"
expect_line "$T/text" "  node 1 (n00001): 8 ranks, 32 threads, 1 thread outside its rank's CPUs, local pages 1.00"
# 7 of 8 ranks' 4096 pages local: 0.875
expect_line "$T/text" "  node 100 (n00100): 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 0.88"
[ "$(grep -c '^  node' "$T/text")" = 3 ] || fail "3 group lines: $(cat "$T/text")"
[ "$(wc -l < "$T/text")" -le 12 ] || fail "folded text of $(wc -l < "$T/text") lines"

"$BINDLAB" report "$T/same.h5" > "$T/same" || fail "report of alike nodes"
expect_line "$T/same" "run r0000: 200 nodes, 1 alike group (same machine, each rank's threads on the same PUs of its node, the same pages); --all-nodes: every node:"
expect_line "$T/same" "  nodes 0-199 (n00000-n00199): 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 1.00"

# --- text: --all-nodes, every node and its group ------------------------------
"$BINDLAB" report "$T/odd.h5" --all-nodes > "$T/all" || fail "report --all-nodes"
[ "$(grep -c '^  node [0-9]* (n[0-9]*), group [0-9]*: ' "$T/all")" = 200 ] || fail "--all-nodes: $(grep -c '^  node ' "$T/all") node lines"
expect_line "$T/all" "  node 1 (n00001), group 2: 8 ranks, 32 threads, 1 thread outside its rank's CPUs, local pages 1.00"
expect_line "$T/all" "  node 100 (n00100), group 3: 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 0.88"
expect_line "$T/all" "  node 199 (n00199), group 1: 8 ranks, 32 threads, 0 threads outside their rank's CPUs, local pages 1.00"

# --- the page: one template, one map per group, the odd nodes drawn apart -------
"$BINDLAB" report "$T/odd.h5" --html "$T/odd.html" > /dev/null || fail "report --html"
[ "$(grep -c '<g id="topo-' "$T/odd.html")" = 1 ] || fail "templates: $(grep -c '<g id="topo-' "$T/odd.html")"
[ "$(grep -c '<svg class="map"' "$T/odd.html")" = 3 ] || fail "maps: $(grep -c '<svg class="map"' "$T/odd.html")"
grep -qF '<p class="group">Group 1: nodes 0,2-99,101-199 (n00000, n00002-n00099, n00101-n00199), as below (drawn: the first):</p>' "$T/odd.html" || fail "group 1 heading"
grep -qF '<p id="nodes-0"><b>Nodes 0-199 (n00000-n00199)</b>: alike machines' "$T/odd.html" || fail "machines folded"
sed -n '/class="group">Group 2: node 1 /,/<\/svg>/p' "$T/odd.html" > "$T/g2"
grep -qF '<title>rank 8 thread 0: PU 16 (core 16, NUMA 0, package 0), shares the PU with 1 other thread' "$T/g2" || fail "node 1: rank 8 thread 0 not drawn on PU 16"
sed -n '/class="group">Group 3: node 100 /,/<\/svg>/p' "$T/odd.html" > "$T/g3"
grep -qF '>rank 800</text><text x="360" y="595">NUMA 1 100% (4096 pages)</text>' "$T/g3" || fail "node 100: rank 800's pages not on NUMA 1"
# the table: a row per group, or per node with --all-nodes
[ "$(grep -c '^<tr><td>[0-9,-]* (n' "$T/odd.html")" = 3 ] || fail "node table rows: $(grep -c '^<tr><td>[0-9,-]* (n' "$T/odd.html")"
"$BINDLAB" report "$T/odd.h5" --html "$T/all.html" --all-nodes > /dev/null || fail "report --html --all-nodes"
[ "$(grep -c '^<tr><td>[0-9]* (n[0-9]*)</td><td class="n">1</td>' "$T/all.html")" = 200 ] || fail "--all-nodes table rows"
[ "$(grep -c '<svg class="map"' "$T/all.html")" = 3 ] || fail "--all-nodes: maps still one per group"
# --plot: one map file per group
"$BINDLAB" report "$T/odd.h5" --plot "$T/plot" > /dev/null || fail "report --plot"
[ "$(ls "$T/plot" | grep -c '^map-')" = 3 ] || fail "map files: $(ls "$T/plot")"
grep -qF '<title>rank 8 thread 0: PU 16 ' "$T/plot/map-r0000-group2.svg" || fail "group 2's map file"
echo "ok: 200 nodes folded into 3 groups (odd nodes apart), --all-nodes lists 200, topology stored once"
