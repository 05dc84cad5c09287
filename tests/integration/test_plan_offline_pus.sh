#!/usr/bin/env bash
# bindlab plan on a node with offline PUs (hwloc's 16em64t-4s2c2t-offlines:
# 7 of 16 PUs online, core 0 with its sibling offline, core 1 with both
# online): a rank Open MPI 4 binds is bound in the plan, on the PUs
# hwloc-calc gives for the cores or L3 worked out by hand, never "not
# bound". The control: --bind-to none is called not bound.
#   - np 6 by core: rank r on core r (the one-PU cores with offline siblings
#     and the two-PU core 1);
#   - np 2 ppr:2:node:PE=3: rank 0 on cores 0-2, rank 1 on cores 3-5, all
#     online PUs of the node between them, neither the whole node;
#   - np 4 by l3cache: rank r on L3 r.
source "$(dirname "$0")/plan_common.sh"
need_openmpi
command -v hwloc-calc >/dev/null || fail "no hwloc-calc (hwloc package; scripts/deps.sh installs it)"
XML=$BINDLAB_SOURCE_DIR/tests/fixtures/plan/hwloc-16em64t-4s2c2t-offlines.xml
online=$(hwloc-calc --if xml --input "$XML" --physical-output --intersect pu all)
[ "$(tr ',' '\n' <<<"$online" | wc -l)" = 7 ] || fail "the fixture has not 7 online PUs: $online"

# "0-2,5" or "5,0,1,2" -> "0 1 2 5"
expand() {
    tr ',' '\n' <<<"$1" | awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next } { print }' |
        sort -n | paste -sd' '
}

# check NAME TYPE WANT -- plan args: WANT holds "rank first-last" of TYPE
# (logical); the plan's thread-0 rows must be those PUs, and no rank is
# called not bound
check() {
    local name=$1 type=$2 want=$3 rank objs
    shift 4
    "$BINDLAB" plan --topology "$XML" "$@" --format tsv </dev/null \
        >"$WORK/plan.tsv" 2>"$WORK/plan.err" || { cat "$WORK/plan.err"; fail "$name: plan failed"; }
    ! grep -q "not bound" "$WORK/plan.err" || fail "$name: a bound rank called not bound: $(cat "$WORK/plan.err")"
    awk -F'\t' 'NR > 1 && $2 == 0 { print $1, $3 }' "$WORK/plan.tsv" |
        while read -r rank pus; do echo "$rank $(expand "$pus")"; done >"$WORK/got"
    while read -r rank objs; do
        echo "$rank $(expand "$(hwloc-calc --if xml --input "$XML" --physical-output --intersect pu "$type:$objs")")"
    done <<<"$want" >"$WORK/want"
    diff "$WORK/want" "$WORK/got" || fail "$name: ranks not where worked out by hand (< expected, > plan)"
    echo "ok: $name"
}

check "np 6 by core" core "$(printf '0 0\n1 1\n2 2\n3 3\n4 4\n5 5')" -- -np 6 --map-by core --bind-to core
check "np 2 ppr:2:node:PE=3" core "$(printf '0 0-2\n1 3-5')" -- -np 2 --map-by ppr:2:node:PE=3 --bind-to core
check "np 4 by l3cache" l3cache "$(printf '0 0\n1 1\n2 2\n3 3')" -- -np 4 --map-by l3cache --bind-to l3cache

# the control: an unbound rank is named so, on every online PU
"$BINDLAB" plan --topology "$XML" -np 1 --bind-to none --format tsv </dev/null \
    >"$WORK/none.tsv" 2>"$WORK/none.err" || { cat "$WORK/none.err"; fail "bind-to none: plan failed"; }
grep -q "rank 0 is not bound" "$WORK/none.err" || fail "bind-to none: not called unbound: $(cat "$WORK/none.err")"
[ "$(expand "$(awk -F'\t' 'NR == 2 { print $3 }' "$WORK/none.tsv")")" = "$(expand "$online")" ] ||
    fail "bind-to none: not every online PU: $(cat "$WORK/none.tsv")"
echo "test_plan_offline_pus: ok (online PUs $online)"
