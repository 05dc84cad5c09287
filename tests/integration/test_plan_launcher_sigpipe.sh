#!/usr/bin/env bash
# bindlab plan when the launcher dies of SIGPIPE: MPICH's Hydra (mpiexec)
# now and then does, with no output, when the /bin/true ranks of a plan are
# gone before it writes to them (rc 141, seen a few times in a hundred
# launches under load). That is the launcher's own failure, not an answer
# about the layout: the plan asks again, twice at most. A wrapper around
# the real MPICH mpiexec kills itself with SIGPIPE on its first launch (a
# marker file), or on every launch: the plan is the same as the real one's
# after one such death, and fails naming the signal after three.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
# shellcheck source=scripts/mpis.sh
source "$BINDLAB_SOURCE_DIR/scripts/mpis.sh"
bl_require_mpi mpich || exit 77
real=$BL_MPI_PREFIX/bin/mpiexec
topo="pack:2 core:2 pu:2"
layout=(-np 4 --map-by core --bind-to core --format tsv)

# wrapper FILE MODE: an mpiexec that dies of SIGPIPE on its first launch
# (MODE once) or on every launch (MODE always), counting its launches
wrapper() {
    cat >"$1" <<EOF
#!/usr/bin/env bash
[ "\$1" = --version ] && exec "$real" "\$@"
echo x >>"$WORK/launches.$2"
if [ "$2" = always ] || [ ! -e "$WORK/died" ]; then
    : >"$WORK/died"
    kill -PIPE \$\$
fi
exec "$real" "\$@"
EOF
    chmod +x "$1"
}

"$BINDLAB" plan --launcher mpich --mpirun "$real" --topology "$topo" "${layout[@]}" \
    >"$WORK/real.tsv" 2>"$WORK/real.err" || { cat "$WORK/real.err"; fail "plan with the real mpiexec failed"; }
[ "$(wc -l <"$WORK/real.tsv")" = 5 ] || { cat "$WORK/real.tsv"; fail "the real plan has not 4 ranks"; }

wrapper "$WORK/once" once
"$BINDLAB" plan --launcher mpich --mpirun "$WORK/once" --topology "$topo" "${layout[@]}" \
    >"$WORK/once.tsv" 2>"$WORK/once.err" || { cat "$WORK/once.err"; fail "a plan whose first launch died of SIGPIPE failed"; }
[ "$(wc -l <"$WORK/launches.once")" = 2 ] || fail "launches: $(wc -l <"$WORK/launches.once"), expected 2"
diff "$WORK/real.tsv" "$WORK/once.tsv" || fail "the plan after a SIGPIPE differs from the real one (< real, > after)"
echo "ok: the launcher died of SIGPIPE once, asked again, the same plan"

wrapper "$WORK/always" always
rc=0
"$BINDLAB" plan --launcher mpich --mpirun "$WORK/always" --topology "$topo" "${layout[@]}" \
    >"$WORK/always.tsv" 2>"$WORK/always.err" || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/always.err"; fail "a launcher that always dies: exit $rc, expected 1"; }
[ "$(wc -l <"$WORK/launches.always")" = 3 ] || fail "launches: $(wc -l <"$WORK/launches.always"), expected 3"
grep -q "signal 13" "$WORK/always.err" || { cat "$WORK/always.err"; fail "the error does not name the signal"; }
echo "ok: a launcher that always dies of SIGPIPE: 3 launches, then failed naming the signal"
echo "PASS"
