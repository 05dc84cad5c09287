#!/usr/bin/env bash
# tests/workshop/course.py itself: on a hand-written course
# (tests/fixtures/workshop/) it passes every step named good-* and fails
# every step named planted-*, each for its own reason, and says so; a
# checker that passed everything would fail here.
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
fx=$BINDLAB_FIXTURES/workshop
rc=0
/usr/bin/python3 "$BINDLAB_SOURCE_DIR/tests/workshop/course.py" "$fx" "$WORK/run" >"$WORK/out" 2>&1 || rc=$?
cat "$WORK/out"
[ "$rc" = 1 ] || fail "course.py exited $rc on a course with planted failures, expected 1"
# Steps by the word in their last command: good-* pass, planted-* fail.
for w in hello-readme good-expect good-exit-3 good-order good-loop good-unmarked; do
    grep -q "^ok .*$w" "$WORK/out" || fail "step '$w' did not pass"
done
reason() { # reason WORD TEXT: step WORD failed, and its report says TEXT
    awk -v w="$1" '/^(ok|FAIL) / { on = ($1 == "FAIL" && index($0, w)) } on' "$WORK/out" |
        grep -qF -- "$2" || fail "step '$1' did not fail with '$2'"
}
reason planted-nomatch "no match for <!-- expect: ^something else$ -->"
reason planted-exit "exited 1, the text says 0"
reason planted-exit-3-not-0 "exited 3, the text says 0"
reason planted-earlier-command-failed "'false' exited 1, the text says 0"
reason planted-order "output line not found (in order): 'one'"
reason planted-expect-not "a match for <!-- expect-not: expect-not -->"
[ "$(grep -c '^FAIL ' "$WORK/out")" = 6 ] || fail "expected exactly 6 failed steps"
expect_line "$WORK/out" "course: 7 of 13 steps as the text says"
echo "ok: course.py passes the 7 true steps and fails the 6 planted ones, each for its reason"

# The host steps run whatever became of the node (tests/fixtures/workshop-node/:
# host, node, host). A node this host cannot run: its step is "not run", the
# host steps pass, exit 77. A node that ran nothing (a failed boot): its step
# fails as not run, the host steps still pass, exit 1.
nfx=$BINDLAB_FIXTURES/workshop-node
node_case() { # node_case HOW WANT_RC
    local rc=0
    /usr/bin/python3 "$BINDLAB_SOURCE_DIR/tests/workshop/course.py" --node "$1" "$nfx" "$WORK/node-$1" \
        >"$WORK/node.out" 2>&1 || rc=$?
    cat "$WORK/node.out"
    [ "$rc" = "$2" ] || fail "--node $1: course.py exited $rc, expected $2"
    for w in host-before host-after; do
        grep -q "^ok .*echo $w" "$WORK/node.out" || fail "--node $1: host step '$w' did not pass"
    done
}
node_case none 77
grep -q "^not run .*(node): scripts/workshop-node.sh echo node-step" "$WORK/node.out" || fail "--node none: the node step is not reported as not run"
node_case "done" 1
awk '/^(ok|FAIL|not run) / { on = /^FAIL .*node-step/ } on' "$WORK/node.out" | grep -q "did not run" ||
    fail "--node done without the node's outputs: the node step did not fail as not run"
echo "ok: host steps run and are judged whether the node could not run or ran nothing"

