# shellcheck shell=bash
# Shared by test_plan_nodes*.sh: `bindlab plan --nodes N` on shipped EPYC
# and Xeon topologies, each rank's node and PUs against an answer worked out
# by hand from the layout (which node, which logical cores of it), turned
# into PU OS indexes by hwloc-calc, not by bindlab. Sourced after PATH puts
# the MPI under test first; each case is a function (case_*) the script
# runs, each adding 1 to `checked`. Extra plan options: PLAN_ARGS.
SRC=$BINDLAB_SOURCE_DIR
TOPOS=$SRC/configs/topologies

# "0-2,5" -> "0 1 2 5" sorted, one space apart
expand() {
    tr ',' '\n' <<<"$1" | awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next } { print }' |
        sort -n | paste -sd' '
}

# expected XML FILE: FILE holds lines "node rank first-last" (logical cores of
# the node); prints "node rank PUs" with hwloc-calc's PU OS indexes
expected() {
    local xml=$1 node rank cores
    while read -r node rank cores; do
        echo "$node $rank $(expand "$(hwloc-calc --if xml --input "$xml" --physical-output \
            --intersect pu "core:$cores")")"
    done <"$2"
}

# check NAME XML EXPECTED -- plan args: the plan's thread-0 rows against it
check() {
    local name=$1 xml=$2 want=$3
    shift 4
    "$BINDLAB" plan --topology "$xml" "${PLAN_ARGS[@]}" "$@" --format tsv </dev/null \
        >"$WORK/plan.tsv" 2>"$WORK/plan.err" ||
        { cat "$WORK/plan.err"; fail "$name: plan failed"; }
    head -1 "$WORK/plan.tsv" | grep -q '^node	rank	thread	pus' ||
        { cat "$WORK/plan.tsv"; fail "$name: no node column first"; }
    awk -F'\t' 'NR > 1 && $3 == 0 { print $1, $2, $4 }' "$WORK/plan.tsv" |
        while read -r node rank pus; do echo "$node $rank $(expand "$pus")"; done \
        >"$WORK/got"
    expected "$xml" "$want" >"$WORK/want"
    if ! diff "$WORK/want" "$WORK/got" >"$WORK/diff"; then
        cat "$WORK/diff"
        fail "$name: ranks not where worked out by hand (< expected, > plan)"
    fi
    echo "ok: $name ($(wc -l <"$WORK/got") ranks)"
    checked=$((checked + 1))
}

checked=0
PLAN_ARGS=()
epyc=$TOPOS/AMD-19h-Zen3-2xEpyc-7763.xml    # 2 x 64 cores, 1 PU each
sky=$TOPOS/Intel-Skylake-2xXeon6140.xml      # 2 x 18 cores, 2 PUs each

# round robin over nodes: 0 and 2 on node 1, 1 and 3 on node 2, each
# node's ranks on its cores in order
case_round_robin() {
printf '1 0 0\n1 2 1\n2 1 0\n2 3 1\n' >"$WORK/w1"
check "np 4 on 2 nodes, map_by node" "$epyc" "$WORK/w1" -- \
    -np 4 --nodes 2 --map-by node --bind-to core
}

# round robin on a node of 384 PUs (2 x 96 cores, 2 PUs each): Hydra's
# binding line is one digit per PU, longer than the reader once kept
case_round_robin_384() {
printf '1 0 0\n1 2 1\n2 1 0\n2 3 1\n' >"$WORK/w384"
check "np 4 on 2 nodes of 384 PUs, map_by node" "$TOPOS/AMD-19h-Zen4-2xEpyc-9654.xml" \
    "$WORK/w384" -- -np 4 --nodes 2 --map-by node --bind-to core
}

# ppr:3:node:PE=2: ranks 0-2 on node 1, 3-5 on node 2, two cores each
case_ppr_node_pe() {
printf '1 0 0-1\n1 1 2-3\n1 2 4-5\n2 3 0-1\n2 4 2-3\n2 5 4-5\n' >"$WORK/w2"
check "np 6 on 2 nodes, ppr:3:node:PE=2" "$sky" "$WORK/w2" -- \
    -np 6 --nodes 2 --map-by ppr:3:node:PE=2 --bind-to core
}

# ppr:1:package: one rank on the first core of each package (cores 0 and
# 18), node 1 before node 2
case_ppr_package() {
printf '1 0 0\n1 1 18\n2 2 0\n2 3 18\n' >"$WORK/w3"
check "np 4 on 2 nodes, ppr:1:package" "$sky" "$WORK/w3" -- \
    -np 4 --nodes 2 --map-by ppr:1:package --bind-to core
}

# block by core, one slot per core: node 1 full (128 ranks), then node 2
case_block() {
{ for r in $(seq 0 127); do echo "1 $r $r"; done; echo "2 128 0"; echo "2 129 1"; } >"$WORK/w4"
check "np 130 on 2 nodes, map_by core" "$epyc" "$WORK/w4" -- \
    -np 130 --nodes 2 --map-by core --bind-to core
}

# the text output names each node's ranks before its table (--all-nodes:
# every node, even two placed alike)
case_text() {
"$BINDLAB" plan --topology "$epyc" "${PLAN_ARGS[@]}" -np 4 --nodes 2 --map-by node --all-nodes \
    >"$WORK/text" 2>&1 || { cat "$WORK/text"; fail "text plan failed"; }
expect_line "$WORK/text" "-- node 1 of 2: ranks 0,2"
expect_line "$WORK/text" "-- node 2 of 2: ranks 1,3"
# runs of ranks as ranges; a node left without ranks says so (130 ranks by
# core on 3 nodes of 128 cores: 0-127, then 128-129, then none)
"$BINDLAB" plan --topology "$epyc" "${PLAN_ARGS[@]}" -np 130 --nodes 3 --map-by core \
    >"$WORK/text3" 2>&1 || { cat "$WORK/text3"; fail "text plan of 3 nodes failed"; }
expect_line "$WORK/text3" "-- node 1 of 3: ranks 0-127"
expect_line "$WORK/text3" "-- node 2 of 3: ranks 128-129"
expect_line "$WORK/text3" "-- node 3 of 3: no rank"
# ... and shows that node's map, all idle: no table of the other nodes'
# ranks, no warnings about threads it does not have
sed -n '/^-- node 3 of 3: no rank/,$p' "$WORK/text3" >"$WORK/node3"
grep -q '^package 0: 64 cores' "$WORK/node3" || { cat "$WORK/node3"; fail "node 3 (no rank): no map"; }
if grep -qE '^rank |^ +[0-9]+ +- |warnings:' "$WORK/node3"; then
    cat "$WORK/node3"; fail "node 3 (no rank): a table or warnings of ranks it does not have"
fi
}

# nodes placed alike: the text shows them once (a row per rank of node 1),
# --all-nodes every node with a row per thread, the TSV every row
case_fold() {
local args=(-np 24 --nodes 6 --map-by ppr:4:node:PE=2 --bind-to core --threads 2
    --omp-places cores --omp-proc-bind close)
"$BINDLAB" plan --topology "$epyc" "${PLAN_ARGS[@]}" "${args[@]}" >"$WORK/fold" 2>&1 ||
    { cat "$WORK/fold"; fail "folded plan failed"; }
expect_line "$WORK/fold" "-- nodes 1-6 of 6 (6 placed alike): node k holds ranks 4(k-1) to 4(k-1)+3; shown: node 1, ranks 0-3"
[ "$(grep -c '^-- ' "$WORK/fold")" = 1 ] || { cat "$WORK/fold"; fail "fold: not one block"; }
# the table: ranks 0-3 (no thread column value), node 1's cores 0-7
awk '/^rank  thread/ { t = 1; next } t && NF == 0 { exit } t { print $1, $2, $4 }' \
    "$WORK/fold" >"$WORK/fold.rows"
printf '%s\n' "0 - 0-1" "1 - 2-3" "2 - 4-5" "3 - 6-7" >"$WORK/fold.want"
diff "$WORK/fold.want" "$WORK/fold.rows" || fail "fold: the table is not node 1's ranks"
"$BINDLAB" plan --topology "$epyc" "${PLAN_ARGS[@]}" "${args[@]}" --all-nodes >"$WORK/all" 2>&1 ||
    { cat "$WORK/all"; fail "--all-nodes plan failed"; }
for k in 1 2 3 4 5 6; do
    expect_line "$WORK/all" "-- node $k of 6: ranks $((4 * k - 4))-$((4 * k - 1))"
done
[ "$(grep -cE '^ +[0-9]+ +[01] +[0-9]+ ' "$WORK/all")" = 48 ] ||
    { cat "$WORK/all"; fail "--all-nodes: not 48 thread rows (24 ranks x 2)"; }
"$BINDLAB" plan --topology "$epyc" "${PLAN_ARGS[@]}" "${args[@]}" --format tsv >"$WORK/fold.tsv" \
    2>"$WORK/fold.err" || { cat "$WORK/fold.err"; fail "folded TSV failed"; }
[ "$(wc -l <"$WORK/fold.tsv")" = 49 ] || { cat "$WORK/fold.tsv"; fail "TSV: not 48 rows and a header"; }
# every node k: ranks 4(k-1)..4(k-1)+3, thread t of local rank i on
# logical core 2i+t (its PU by hwloc-calc)
awk -F'\t' 'NR > 1 { print $1, $2, $3, $4 }' "$WORK/fold.tsv" >"$WORK/fold.got"
local pu=()
for c in 0 1 2 3 4 5 6 7; do
    pu[c]=$(hwloc-calc --if xml --input "$epyc" --physical-output --intersect pu "core:$c")
done
for k in 1 2 3 4 5 6; do for i in 0 1 2 3; do for t in 0 1; do
    echo "$k $((4 * k - 4 + i)) $t ${pu[2 * i + t]}"
done; done; done >"$WORK/fold.tsvwant"
diff "$WORK/fold.tsvwant" "$WORK/fold.got" || fail "TSV: rows not every node's"
echo "ok: 6 nodes placed alike folded, --all-nodes and TSV complete"
checked=$((checked + 1))
}

# a sweep file's nodes: key (the layouts of docs/multi-node.md)
case_sweep() {
cat >"$WORK/nodes.yaml" <<'YAML'
name: nodes
kernels: [triad]
layouts:
  - {name: one-per-node, np: 2, nodes: 2, map_by: "ppr:1:node"}
  - {name: two-per-node, np: 4, nodes: 2, map_by: "ppr:2:node"}
  - {name: round-robin,  np: 4, nodes: 2, map_by: node}
YAML
"$BINDLAB" plan "$WORK/nodes.yaml" --topology "$sky" "${PLAN_ARGS[@]}" --format tsv </dev/null \
    >"$WORK/sweep.tsv" 2>"$WORK/sweep.err" || { cat "$WORK/sweep.err"; fail "sweep plan failed"; }
awk -F'\t' 'NR > 1 { print $1, $2, $3 }' "$WORK/sweep.tsv" >"$WORK/sweep.got"
# by hand: one-per-node rank r on node r+1; two-per-node ranks 0,1 on node
# 1, 2,3 on node 2; round-robin even ranks on node 1, odd on node 2
mapfile -t ids < <(awk -F'\t' 'NR > 1 { print $1 }' "$WORK/sweep.tsv" | uniq)
[ "${#ids[@]}" = 3 ] || { cat "$WORK/sweep.tsv"; fail "3 layouts expected in the sweep plan"; }
printf '%s\n' "${ids[0]} 1 0" "${ids[0]} 2 1" \
    "${ids[1]} 1 0" "${ids[1]} 1 1" "${ids[1]} 2 2" "${ids[1]} 2 3" \
    "${ids[2]} 1 0" "${ids[2]} 1 2" "${ids[2]} 2 1" "${ids[2]} 2 3" >"$WORK/sweep.want"
diff "$WORK/sweep.want" "$WORK/sweep.got" || fail "sweep: ranks on the wrong nodes"
echo "ok: sweep file with nodes: 2"
checked=$((checked + 1))
}

# every case above, as Open MPI's mappers (4 and 5) can say them all
cases_openmpi() {
    case_round_robin
    case_ppr_node_pe
    case_ppr_package
    case_block
    case_text
    case_fold
    case_sweep
    [ "$checked" = 6 ] || fail "checked $checked, expected 6"
}
