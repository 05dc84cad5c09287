#!/usr/bin/env bash
# A sweep names its launcher (launcher: in the sweep file, --launcher on the
# command line), with the real MPIs: Debian's Open MPI 4.1 and those
# scripts/mpis.sh installs (Open MPI 5, MPICH, Intel MPI).
#  - launcher: FAMILY with that MPI's bin first in PATH: --dry-run prints
#    that launcher's spelling of each layout (expected lines written from
#    docs/launchers.md's table, not from the code), and a real run records
#    it (status ok, launcher_version of that family, argv[0] the family's
#    program);
#  - launcher: PATH picks that program whatever PATH holds;
#  - the command line's --launcher overrides the file's;
#  - a family other than the program found, a program not found, an
#    unknown name: exit 2 with FILE:LINE:COL and the fix, nothing run;
#  - a layout the named launcher cannot express: refused before running.
# MPIs and per-MPI app trees as in test_mpis.sh (BINDLAB_MPI_DIR,
# BINDLAB_MPI_BUILD_PREFIX); an MPI whose package is missing is skipped
# with the reason; the Open MPI 4 and refusal checks need only mpirun.
source "$(dirname "$0")/common.sh"
set +e
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
SRC=$BINDLAB_SOURCE_DIR
MPI_DIR=${BINDLAB_MPI_DIR:-$SRC/build-mpi}
BUILD_PREFIX=${BINDLAB_MPI_BUILD_PREFIX:-$SRC/build-mpi}
# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
# Every MPI or none, asked before the first check (no pass with one left out).
bl_require_mpis "$MPI_DIR" ${BINDLAB_MPIS:-${BL_MPIS[*]}} || { echo "SKIP: (the MPIs above)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
NCORES=$(hwloc-calc -N core "$(hwloc-bind --get)") # the cores this process may use
NP=$((NCORES < 2 ? 1 : 2))
BASE_PATH=$PATH

# sweep FILE LAUNCHER_LINE: two layouts, np NP per core and one rank per
# package; LAUNCHER_LINE is the file's second line ("" for none).
sweep() {
    printf 'name: which\n%s\nkernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]\n' "$2" >"$1"
    cat >>"$1" <<YAML
defaults: {omp_places: cores, omp_proc_bind: close, threads: 1, timeout: 120}
layouts:
  - {name: per-core, np: $NP, map_by: core, bind_to: core}
  - {name: per-package, np: 1, map_by: package, bind_to: package}
YAML
}

# dry FILE [ARGS...]: the dry run's command lines (comments dropped) in
# $WORK/dry.out, its status in $rc
dry() {
    local f=$1
    shift
    "$BINDLAB" sweep --dry-run --results "$WORK/res-dry" "$@" "$f" >"$WORK/dry.all" 2>&1
    rc=$?
    grep -v '^#' "$WORK/dry.all" >"$WORK/dry.out"
}

# The OpenMP part every MPI launcher line carries, in its spelling.
OMPX="-x OMP_NUM_THREADS=1 -x OMP_PLACES=cores -x OMP_PROC_BIND=close -x OMP_DISPLAY_AFFINITY=true -x 'OMP_AFFINITY_FORMAT=bindlab-omp host=%H pid=%P thread=%n affinity=%A'"
GENV="-genv OMP_NUM_THREADS 1 -genv OMP_PLACES cores -genv OMP_PROC_BIND close -genv OMP_DISPLAY_AFFINITY true -genv OMP_AFFINITY_FORMAT 'bindlab-omp host=%H pid=%P thread=%n affinity=%A'"
ROOT=""
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root "

# expect_dry NAME PROGRAM: the two lines of the sweep for launcher NAME
# (ompi4, ompi5, mpich, impi) started as PROGRAM, from docs/launchers.md.
expect_dry() {
    local name=$1 p=$2 app
    app="$BINDLAB_APP --kernel triad --size 4MiB --iters 2 --warmup 0 --init parallel --out $WORK/res-dry/which.d/app"
    case $name in
    ompi4)
        printf '%s\n' \
          "$p ${ROOT}-np $NP --map-by core --bind-to core --report-bindings $OMPX $app/r0000.h5" \
          "$p ${ROOT}-np 1 --map-by socket --bind-to socket --report-bindings $OMPX $app/r0001.h5" ;;
    ompi5)
        printf '%s\n' \
          "$p ${ROOT}-np $NP --map-by core --bind-to core --report-bindings $OMPX $app/r0000.h5" \
          "$p ${ROOT}-np 1 --map-by package --bind-to package --report-bindings $OMPX $app/r0001.h5" ;;
    mpich)
        printf '%s\n' \
          "env HYDRA_TOPO_DEBUG=1 $p -np $NP -bind-to core -map-by core $GENV $app/r0000.h5" \
          "env HYDRA_TOPO_DEBUG=1 $p -np 1 -bind-to socket -map-by socket $GENV $app/r0001.h5" ;;
    impi)
        printf '%s\n' \
          "$p -np $NP -genv I_MPI_PIN_DOMAIN core -genv I_MPI_PIN_ORDER compact -genv I_MPI_DEBUG 4 $GENV $app/r0000.h5" \
          "$p -np 1 -genv I_MPI_PIN_DOMAIN socket -genv I_MPI_PIN_ORDER range -genv I_MPI_DEBUG 4 $GENV $app/r0001.h5" ;;
    esac
}

check_dry() {  # check_dry WHAT NAME PROGRAM
    [ "$rc" = 0 ] || { cat "$WORK/dry.all"; fail "$1: dry run exit $rc"; }
    expect_dry "$2" "$3" >"$WORK/dry.want"
    diff -u "$WORK/dry.want" "$WORK/dry.out" || fail "$1: the dry run's lines differ from the table"
}

# --- Open MPI 4 (Debian, in PATH) ------------------------------------------
sweep "$WORK/ompi4.yaml" "launcher: ompi4"
dry "$WORK/ompi4.yaml" --app "$BINDLAB_APP"
check_dry "launcher: ompi4" ompi4 mpirun
echo "ok: launcher: ompi4 spells the layouts for Open MPI 4.1"

# The family is checked against what PATH gives.
sweep "$WORK/mpich-here.yaml" "launcher: mpich"
# mpiexec of Open MPI 4 (Debian installs it beside mpirun)
OMPI_BIN=$(dirname "$(command -v mpirun)")
if [ -x "$OMPI_BIN/mpiexec" ]; then
    PATH=$OMPI_BIN dry "$WORK/mpich-here.yaml" --app "$BINDLAB_APP"
    [ "$rc" = 2 ] || { cat "$WORK/dry.all"; fail "launcher: mpich with Open MPI's mpiexec: exit $rc, want 2"; }
    grep -qF "$WORK/mpich-here.yaml:2:11: launcher: mpich asks for MPICH (Hydra), but mpiexec is Open MPI 4.1" "$WORK/dry.all" ||
        { cat "$WORK/dry.all"; fail "launcher: mpich with Open MPI's mpiexec: message"; }
    [ -s "$WORK/dry.out" ] && grep -v 'bindlab sweep' "$WORK/dry.out" && fail "lines printed after a refusal"
    echo "ok: launcher: mpich refused with Open MPI's mpiexec in PATH"
fi
# Not found at all.
mkdir -p "$WORK/empty"
sweep "$WORK/impi-none.yaml" "launcher: impi"
PATH=$WORK/empty dry "$WORK/impi-none.yaml" --app "$BINDLAB_APP"
[ "$rc" = 2 ] || { cat "$WORK/dry.all"; fail "launcher: impi, none in PATH: exit $rc"; }
expect_line "$WORK/dry.all" "bindlab sweep: $WORK/impi-none.yaml:2:11: launcher impi: no mpiexec in PATH; load the MPI (module load, spack load) or give the path of its mpiexec with --mpirun PATH (or launcher: PATH in the sweep file)"
sweep "$WORK/path-none.yaml" "launcher: $WORK/empty/mpiexec"
dry "$WORK/path-none.yaml" --app "$BINDLAB_APP"
[ "$rc" = 2 ] || fail "launcher: a missing path: exit $rc"
expect_line "$WORK/dry.all" "bindlab sweep: $WORK/path-none.yaml:2:11: launcher: the launcher '$WORK/empty/mpiexec' is not an executable file"
sweep "$WORK/unknown.yaml" "launcher: intel"
dry "$WORK/unknown.yaml"
[ "$rc" = 2 ] || fail "launcher: intel: exit $rc"
grep -qF "$WORK/unknown.yaml:2:11: launcher: 'intel' is not a launcher bindlab knows; accepted: openmpi, ompi4, ompi5, mpich, impi, srun" "$WORK/dry.all" ||
    { cat "$WORK/dry.all"; fail "launcher: intel: message"; }
echo "ok: a missing launcher, a missing path and an unknown name are refused with FILE:LINE:COL"

# --- each extra MPI --------------------------------------------------------
tested=0
for name in ${BINDLAB_MPIS:-${BL_MPIS[*]}}; do
    bl_require_mpi "$name" "$MPI_DIR" || fail "$name: cannot be had"
    prefix=$BL_MPI_PREFIX
    launcher=$(bl_mpi_launcher "$prefix")
    prog=$(basename "$launcher")
    [ "$name" = ompi5 ] || prog=mpiexec   # mpich and impi start mpiexec
    (
        eval "$(bl_mpi_env "$name" "$prefix")"
        tree=$BUILD_PREFIX-$name
        BINDLAB_APP=$tree/bindlab-app
        bl_build_mpi_app "$SRC" "$prefix" "$tree" "$WORK/build-$name.log" ||
            fail "$name: building bindlab-app failed"
        sweep "$WORK/$name.yaml" "launcher: $name"
        # the family, found in PATH
        dry "$WORK/$name.yaml" --app "$tree/bindlab-app"
        check_dry "launcher: $name" "$name" "$prog"
        # the command line's --launcher wins over the file's
        sweep "$WORK/$name-other.yaml" "launcher: srun"
        dry "$WORK/$name-other.yaml" --launcher "$name" --app "$tree/bindlab-app"
        check_dry "--launcher $name over launcher: srun" "$name" "$prog"
        # a path, with Debian's Open MPI first in PATH
        sweep "$WORK/$name-path.yaml" "launcher: $prefix/bin/$prog"
        PATH=$OMPI_BIN:$BASE_PATH dry "$WORK/$name-path.yaml" --app "$tree/bindlab-app"
        check_dry "launcher: PATH ($name)" "$name" "$prefix/bin/$prog"
        # a real run, the launcher named only by the file
        "$BINDLAB" sweep --app "$tree/bindlab-app" --results "$WORK/res-$name" \
            "$WORK/$name.yaml" >"$WORK/run-$name.out" 2>&1
        rc=$?
        cat "$WORK/run-$name.out"
        [ "$rc" = 0 ] || fail "$name: sweep with launcher: $name exit $rc"
        "$PY" - "$WORK/res-$name/which.h5" "$name" "$prog" <<'PYEOF' || fail "$name: records"
import sys, h5py
path, name, prog = sys.argv[1:]
family = {"ompi5": "Open MPI 5.", "mpich": "MPICH (Hydra) ", "impi": "Intel MPI 20"}[name]
with h5py.File(path, "r") as f:
    runs = list(f["runs"])
    assert len(runs) == 2, runs
    for k in runs:
        a = f["runs"][k].attrs
        assert a["status"] == "ok", (k, a["status"], a["reason"])
        assert a["launcher_version"].startswith(family), a["launcher_version"]
        argv = a["launcher_argv"]
        first = argv.split()[2] if argv.startswith("env ") else argv.split()[0]
        assert first == prog, (argv, prog)
        assert "binding-mismatch" not in a["flags"], a["flags"]
print(f"{name}: 2 runs ok under launcher: {name}")
PYEOF
        # a layout this launcher cannot express: refused before running
        case $name in
        mpich) bad='{name: bad, np: 1, map_by: "ppr:1:package"}'
               why="map_by 'ppr:1:package': MPICH has no ppr over package" ;;
        impi)  bad='{name: bad, np: 1, map_by: package, bind_to: core}'
               why="map_by package with bind_to core: Intel MPI gives each rank its own core domain in order" ;;
        *) why="" ;;   # Open MPI 5 expresses every layout of the file
        esac
        if [ -n "$why" ]; then
            sweep "$WORK/$name-bad.yaml" "launcher: $name"
            echo "  - $bad" >>"$WORK/$name-bad.yaml"
            dry "$WORK/$name-bad.yaml" --app "$tree/bindlab-app"
            [ "$rc" = 2 ] || { cat "$WORK/dry.all"; fail "$name: inexpressible layout: exit $rc"; }
            grep -qF "invalid: r0002 bad " "$WORK/dry.all" && grep -qF "$why" "$WORK/dry.all" ||
                { cat "$WORK/dry.all"; fail "$name: the refusal does not say '$why'"; }
            grep -qF "1 of 3 runs cannot run" "$WORK/dry.all" || fail "$name: refusal count"
        fi
        echo "ok: $name named by the sweep file"
    ) || exit 1
    tested=$((tested + 1))
done
echo "ok: Open MPI 4 and $tested extra MPI(s)"
