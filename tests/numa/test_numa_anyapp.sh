#!/usr/bin/env bash
# bindlab run of a program under the probe, on a real NUMA kernel:
# tests/numa/guest_anyapp.sh ran in the snc2 node's workshop boot
# (numa.boot.snc2+workshop). Judged here on the host, from the records:
#   remote  the rank's 64 MiB are on the far node it was bound away from:
#           remote-pages raised, its note counting at least those pages,
#           the record's memory rows putting them on the far node
#   local   the same pages on the rank's own node: no remote-pages
#   spans   4 threads spread over the NUMA domains with NUMA balancing
#           on: rank-spans-numa and numa-balancing
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
DUMP=$BINDLAB_BUILD_DIR/tests/runrecord_dump
[ -x "$DUMP" ] || fail "runrecord_dump not built"

guest_results snc2+workshop anyapp
read -r _ _ _ _ _ near _ far <"$share/nodes.txt" # logical indexes
[ -n "$near" ] && [ -n "$far" ] && [ "$near" != "$far" ] ||
    fail "the guest found no far node: $(cat "$share/nodes.txt")"
touched=$((64 * 1024 * 1024 / $(getconf PAGESIZE)))

# judged NAME: NAME ran and its record reads; its dump in NAME.dump
judged() {
    [ "$(cat "$share/$1.rc")" = 0 ] || fail "($1) bindlab run exited $(cat "$share/$1.rc"): $(cat "$share/$1.out")"
    "$DUMP" "$share/$1.h5" >"$WORK/$1.dump" || fail "($1) record unreadable"
    expect_line "$WORK/$1.dump" "status ok"
}
# pages_on NAME NODE: rank 0's pages on NUMA node NODE in NAME's record
pages_on() { awk -v n="$2" '$1 == "memory" && $2 == 0 && $4 == n { print $6 }' "$WORK/$1.dump"; }

judged remote
grep -q '^flags .*remote-pages' "$WORK/remote.dump" || fail "(remote) no remote-pages: $(cat "$WORK/remote.dump")"
on_far=$(pages_on remote "$far")
[ "${on_far:-0}" -ge "$touched" ] ||
    fail "(remote) ${on_far:-0} pages on node $far, the program wrote $touched there: $(grep '^memory' "$WORK/remote.dump")"
note=$(grep '^remote-pages: rank 0: ' "$share/remote.out") || fail "(remote) no note: $(cat "$share/remote.out")"
remote=$(echo "$note" | awk '{ print $4 }')
[ "$remote" -ge "$touched" ] || fail "(remote) the note counts $remote remote pages, under the $touched written: $note"
echo "remote: $note (node $far: $on_far pages)"

judged local
! grep -q '^flags .*remote-pages' "$WORK/local.dump" || fail "(local) remote-pages on the rank's own node: $(cat "$share/local.out")"
on_near=$(pages_on local "$near")
[ "${on_near:-0}" -ge "$touched" ] ||
    fail "(local) ${on_near:-0} pages on node $near, the program wrote $touched there: $(grep '^memory' "$WORK/local.dump")"
echo "local: $on_near pages on node $near, no remote-pages"

judged spans
grep -q '^flags .*rank-spans-numa' "$WORK/spans.dump" || fail "(spans) no rank-spans-numa: $(cat "$WORK/spans.dump")"
grep -q '^flags .*numa-balancing' "$WORK/spans.dump" || fail "(spans) no numa-balancing: $(cat "$WORK/spans.dump")"
echo "test_numa_anyapp: ok"
