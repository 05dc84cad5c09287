#!/bin/bash
# Runs inside an emulated snc2 node: the workshop's node steps (its
# scripts/workshop-node.sh commands, docs/workshop/) in the text's order,
# their outputs into SHARE, where workshop.course (tests/workshop/course.py
# --node done) judges them and runs the host steps.
#   tests/numa/guest_course.sh GUEST_BUILD_DIR SHARE
set -eu
guest=$1
# The baseline guest build first in PATH, as scripts/workshop-node.sh does.
export PATH="$guest:$PATH" BINDLAB_BUILD_DIR=$guest
exec /usr/bin/python3 tests/workshop/course.py --node inside docs/workshop "$2"
