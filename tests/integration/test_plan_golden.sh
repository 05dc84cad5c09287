#!/bin/bash
# bindlab plan: golden outputs on shipped topologies (hwloc's style: run the
# tool on a known topology, compare with the stored output). The rank
# placements are Open MPI's answers, so the files hold one version's output,
# named in golden/SOURCE with the bindlab commit that made them; with
# another Open MPI this test is skipped, saying so (test_plan_openmpi.sh
# checks what holds for any version).
#
# BINDLAB_UPDATE_GOLDEN=1 ctest -R plan_golden rewrites the files from the
# current output. When nothing changed it passes; when something did, it
# records the commit in golden/SOURCE, prints the diff and FAILS: review
# the diff and commit the files with the change that caused it.
. "$(dirname "$0")/plan_common.sh"
need_openmpi

update=${BINDLAB_UPDATE_GOLDEN:-}
made_with=$(sed -n 's/^open_mpi //p' "$G/SOURCE")
[ -n "$made_with" ] || fail "$G/SOURCE names no open_mpi version"
if [ -z "$update" ] && [ "$made_with" != "$OMPI_VERSION" ]; then
    echo "SKIP: the golden files are Open MPI $made_with's output ($G/SOURCE);" \
         "mpirun here is Open MPI $OMPI_VERSION"
    exit 77
fi
if [ -n "$update" ]; then
    git rev-parse HEAD >/dev/null 2>&1 ||
        fail "BINDLAB_UPDATE_GOLDEN needs a git checkout to show what changed"
fi

# golden NAME ARGS...: stdout must equal $G/NAME.out (after its comment line)
golden() {
    local name=$1 rc; shift
    "$BINDLAB" plan "$@" >"$T/$name.out" 2>"$T/$name.err"; rc=$?
    if [ -n "$update" ]; then
        { echo "# bindlab plan $* (Open MPI $OMPI_VERSION, libgomp model); exit $rc"
          cat "$T/$name.out"; } >"$G/$name.out"
        return
    fi
    [ -f "$G/$name.out" ] || fail "$name: no golden file $G/$name.out"
    want_rc=$(head -n 1 "$G/$name.out" | sed -n 's/.*; exit \([0-9]*\)$/\1/p')
    [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, golden says $want_rc: $(cat "$T/$name.err")"
    tail -n +2 "$G/$name.out" | diff -u - "$T/$name.out" >"$T/diff" ||
        { cat "$T/diff" >&2; fail "$name: output differs from $G/$name.out"; }
}

# One rank per package with 96 cores each, 8 threads spread one per 12 cores.
golden epyc9654-package-pe96-spread --topology "$EPYC" -np 2 \
    --map-by ppr:1:package:PE=96 --bind-to core --threads 8 \
    --omp-places cores --omp-proc-bind spread
# One rank per L3 (CCD), 8 threads close on its cores: 132-column map.
golden epyc9654-l3cache-pe8-close --topology "$EPYC" -np 24 \
    --map-by ppr:1:l3cache:PE=8 --threads 1 --width 132
# Xeon 6230, 2 ranks per package, every hardware thread, TSV.
golden xeon6230-ppr2package-fill-threads --topology "$XEON" -np 4 \
    --map-by ppr:2:package:PE=10 --threads fill --omp-places threads \
    --omp-proc-bind close --format tsv
# Synthetic NPS4: one rank per NUMA node, 4 threads spread.
golden nps4-numa-pe16-spread --topology "$NPS4" -np 8 \
    --map-by ppr:1:numa:PE=16 --threads 4 --omp-places cores --omp-proc-bind spread
# Pure MPI by core: fills package 0 first.
golden nps4-core-np20 --topology "$NPS4" -np 20 --map-by core --bind-to core
# bind-to none, OpenMP unset: everything floats.
golden skylake-bind-none --topology "$SKYLAKE" -np 2 --map-by package \
    --bind-to none --threads 4
# A sweep file: a duplicate placement, and a refused layout (exit 2).
golden sweep-nps4 tests/fixtures/plan/sweep.yaml --topology "$NPS4"

if [ -n "$update" ]; then
    golden_review "$G" "$(sed -n '/^#/p' "$G/SOURCE")" "open_mpi $OMPI_VERSION"
fi
echo "ok (Open MPI $OMPI_VERSION)"
