#!/bin/bash
# scripts/symbol_graph.py finds a cycle between files and names its edges:
# two objects that call each other (tests/fixtures/symbol_graph/ping.c and
# pong.c, compiled here) make it exit 1 and print both edges with their
# symbols; a file that only uses another (leaf.c -> ping.c) is no cycle
# (exit 0); no object at all is bad use (exit 2). The project's own build
# is checked by the test symbols.no_cycles (tests/CMakeLists.txt).
. "$(dirname "$0")/common.sh"
SRC=$BINDLAB_SOURCE_DIR/tests/fixtures/symbol_graph
GRAPH=$BINDLAB_SOURCE_DIR/scripts/symbol_graph.py
for f in ping pong leaf; do
    "${CC:-cc}" -c "$SRC/$f.c" -o "$WORK/$f.o" || fail "cannot compile $f.c"
done

rc=0
python3 "$GRAPH" "$WORK/ping.o" "$WORK/pong.o" "$WORK/leaf.o" >"$WORK/cycle" || rc=$?
cat "$WORK/cycle"
[ "$rc" = 1 ] || fail "a cycle of two files: exit $rc, expected 1"
expect_line "$WORK/cycle" "cycle 1: 2 files"
expect_line "$WORK/cycle" "  $WORK/ping -> $WORK/pong: bl_fixture_pong"
expect_line "$WORK/cycle" "  $WORK/pong -> $WORK/ping: bl_fixture_ping"
expect_line "$WORK/cycle" "3 files, 3 edges, 1 cycle"
# leaf.c uses ping.c but is not part of the cycle
if grep -q "leaf ->" "$WORK/cycle"; then fail "leaf.c listed in the cycle"; fi

rc=0
python3 "$GRAPH" "$WORK/leaf.o" "$WORK/ping.o" >"$WORK/chain" || rc=$?
cat "$WORK/chain"
[ "$rc" = 0 ] || fail "an edge without a cycle: exit $rc, expected 0"
expect_line "$WORK/chain" "2 files, 1 edge, 0 cycles"

rc=0
python3 "$GRAPH" --build "$WORK/nothing" >"$WORK/none" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "no object files: exit $rc, expected 2"
echo "ok: the cycle found with its edges, the chain passes, no objects refused"
