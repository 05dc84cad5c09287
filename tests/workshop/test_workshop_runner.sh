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
