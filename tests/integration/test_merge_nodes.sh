#!/bin/bash
# bindlab merge of a run over many nodes: a record of 128 nodes x 8 ranks
# x 16 threads made by bindlab-gen-record (the harness's writer) on the
# shipped 2x EPYC 7763 topology. The merge keeps every node, in order,
# with its topology stored once, and the run's node list whole. Then the
# same merge under an address-space limit (prlimit --as) at each step of a
# ladder from too little to load the program to enough: memory running
# out is an error (exit 1, a message), never a crash (HDF5 1.10's error
# paths crash when an allocation fails inside them), and the output that
# was there is left as it was, with no temporary beside it.
. "$(dirname "$0")/common.sh"
need_gen_record
T=$WORK

"$GEN" "$T/rec.h5" "$XML" 128 8 16 --odd || fail "gen-record"
"$BINDLAB" merge -o "$T/m.h5" "$T/rec.h5" >"$T/out" 2>"$T/err" ||
    fail "merge: $(cat "$T/err")"
expect_line "$T/out" "$T/m.h5: 1 run (1 ok), 0 duplicates kept once, 0 unreadable inputs"
h5ls -r "$T/m.h5" >"$T/ls"
[ "$(grep -c '^/nodes/[0-9]* *Group' "$T/ls")" = 128 ] || fail "128 nodes: $(grep -c '^/nodes/[0-9]* *Group' "$T/ls")"
[ "$(grep -c 'topology_xml *Dataset {SCALAR}' "$T/ls")" = 1 ] || fail "topology stored more than once"
for k in 0 1 64 127; do
    h=$(h5dump -a "/nodes/$k/hostname" "$T/m.h5" | sed -n 's/.*(0): "\(.*\)".*/\1/p')
    [ "$h" = "$(printf 'n%05d' "$k")" ] || fail "node $k is '$h'"
done
nodes=$(h5dump -a /runs/r0000/nodes "$T/m.h5" | sed -n 's/.*(0): "\(.*\)".*/\1/p')
[ "$nodes" = "$(seq -s, 0 127)" ] || fail "run's nodes: $nodes"
# the same record again, and the merged file: one run, the rest duplicates
"$BINDLAB" merge -o "$T/m2.h5" "$T/m.h5" "$T/rec.h5" >"$T/out" 2>"$T/err" ||
    fail "merge again: $(cat "$T/err")"
expect_line "$T/out" "$T/m2.h5: 1 run (1 ok), 1 duplicate kept once, 0 unreadable inputs"
echo "ok: 128 nodes kept in order, one topology, the node list whole"

# --- memory running out -------------------------------------------------------
# A sanitized build reserves terabytes of address space: no limit fits it.
if ldd "$BINDLAB" | grep libasan >/dev/null; then
    echo "ok: (the memory limits not tried: a sanitized build)"
    exit 0
fi
cp "$T/m.h5" "$T/keep.h5"
cp "$T/m.h5" "$T/lim.h5"
ok=0
for mib in $(seq 40 4 160); do
    rc=0
    prlimit --as=$((mib << 20)) "$BINDLAB" merge -o "$T/lim.h5" "$T/rec.h5" \
        >"$T/out" 2>"$T/err" || rc=$?
    # 127: the limit did not even let the program load
    [ "$rc" -lt 128 ] || fail "$mib MiB: killed by signal $((rc - 128)): $(cat "$T/err")"
    ls "$T" | grep -q '^lim\.h5\.tmp\.' && fail "$mib MiB: a temporary left: $(ls "$T")"
    if [ "$rc" = 0 ]; then
        ok=$((ok + 1))
        cp "$T/keep.h5" "$T/lim.h5"
    else
        cmp -s "$T/lim.h5" "$T/keep.h5" || fail "$mib MiB: exit $rc, the output changed"
        [ "$rc" = 127 ] || grep -q "^bindlab merge: " "$T/err" ||
            fail "$mib MiB: exit $rc without a message: $(cat "$T/err")"
    fi
done
[ "$ok" -gt 0 ] || fail "no merge succeeded up to 160 MiB"
echo "ok: memory limits from 40 to 160 MiB: an error or a merge, never a crash ($ok merged)"
