#!/usr/bin/env bash
# The programs of tests/apps/, which this project did not write, run here
# under mpirun with their inputs, 2 ranks bound to cores, and print the line
# that carries their rate: GROMACS (md.log "Performance:" ns/day, and its
# note that it keeps the launcher's binding), LAMMPS ("Performance:"), HPC
# Challenge (hpccoutf.txt "HPL_Tflops="), and the mpi4py + numpy program
# ("rate: ... GFLOP/s") under every MPI scripts/apps.sh built mpi4py for,
# each naming the MPI it runs. A smoke test of the fixtures the probe's
# tests run. It installs nothing (scripts/test.sh runs bl_install_apps): a
# missing program fails on CI (CI=true) and is skipped elsewhere.
source "$(dirname "$0")/common.sh"
src=${BINDLAB_SOURCE_DIR:?run through ctest}
apps=$src/tests/apps
pyenvs=${BINDLAB_APPS_DIR:-$src/build-apps}
mpis=${BINDLAB_MPI_DIR:-$src/build-mpi}
# shellcheck source=scripts/apps.sh
source "$src/scripts/mpis.sh"
source "$src/scripts/apps.sh"
export GMX_MAXBACKUP=-1
test_start=$SECONDS

# Two ranks, one core each; on a machine of one core they share it.
NP=2
BIND=core
[ "$(hwloc-calc -N core all)" -ge "$NP" ] || BIND=core:overload-allowed
DEBIAN_MPIRUN=("${MPIRUN[@]}" -np "$NP" --bind-to "$BIND")

missing=0
# have PROGRAM WHAT: PROGRAM (a command or a path) is there; otherwise a
# failure on CI, a skip note elsewhere (status 1).
have() {
    [ -e "$1" ] || command -v "$1" >/dev/null && return 0
    if [ "${CI:-}" = true ]; then
        bad "$1 is missing ($2): scripts/test.sh installs it (scripts/apps.sh)"
    else
        echo "SKIP: $1 is missing ($2; run scripts/apps.sh)"
        missing=$((missing + 1))
    fi
    return 1
}

# run NAME DIR CMD...: CMD in DIR (created), 300 s at most, output in
# DIR/out; a failure is reported with the output's end.
run() {
    local name=$1 dir=$2 start=$SECONDS
    shift 2
    mkdir -p "$dir"
    if ! (cd "$dir" && timeout 300 "$@" >out 2>&1); then
        tail -30 "$dir/out"
        bad "$name: $* failed"
        return 1
    fi
    echo "$name: $((SECONDS - start)) s"
}

# rate_line NAME FILE REGEX: FILE has a line matching REGEX (extended),
# printed; a miss is counted (bad) and the checks go on.
rate_line() {
    local line
    if line=$(grep -E -m1 -- "$3" "$2"); then
        echo "$1: $line"
    else
        tail -30 "$2"
        bad "$1: no line matching '$3' in $2"
    fi
}

# A positive number: not 0, not 0.000, not nan.
NUM='[0-9]*[1-9][0-9]*(\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*([eE][-+]?[0-9]+)?'

if have gmx_mpi "Debian package gromacs" && have gmx "Debian package gromacs"; then
    d=$WORK/gromacs
    if bash "$apps/gromacs/prepare.sh" "$d" &&
       run gromacs "$d" "${DEBIAN_MPIRUN[@]}" gmx_mpi -quiet mdrun -s topol.tpr \
           -ntomp 1 -nb cpu; then
        rate_line gromacs "$d/md.log" "^Performance: +($NUM) +[0-9.]+\$"
        # Bound by the launcher, GROMACS leaves the binding alone.
        rate_line gromacs "$d/md.log" "^Non-default thread affinity set"
    fi
fi

if have lmp "Debian package lammps"; then
    d=$WORK/lammps
    run lammps "$d" "${DEBIAN_MPIRUN[@]}" lmp -in "$apps/lammps/in.lj" -log none &&
        rate_line lammps "$d/out" "^Performance: ($NUM) tau/day"
fi

if have hpcc "Debian package hpcc"; then
    d=$WORK/hpcc
    mkdir -p "$d"
    cp "$apps/hpcc/hpccinf.txt" "$d/"
    if run hpcc "$d" "${DEBIAN_MPIRUN[@]}" hpcc; then
        rate_line hpcc "$d/hpccoutf.txt" "^HPL_Tflops=($NUM)\$"
        rate_line hpcc "$d/hpccoutf.txt" "^End of Summary section"
    fi
fi

# py_launcher NAME PREFIX: the launch command of that MPI, 2 ranks bound
# to cores, in the array LAUNCH.
py_launcher() {
    case $1 in
    debian) LAUNCH=("${DEBIAN_MPIRUN[@]}") ;;
    ompi5) LAUNCH=("$(bl_mpi_launcher "$2")" -np "$NP" --bind-to "$BIND") ;;
    mpich) LAUNCH=("$(bl_mpi_launcher "$2")" -np "$NP" -bind-to core) ;;
    impi) LAUNCH=("$(bl_mpi_launcher "$2")" -np "$NP" -genv I_MPI_PIN_DOMAIN core) ;;
    esac
    [ "$(id -u)" = 0 ] && [ "$1" = ompi5 ] && LAUNCH+=(--allow-run-as-root)
    return 0
}

# The MPI library each venv's mpi4py must report (extended regexes).
declare -A PY_LIBRARY=([debian]="Open MPI v4\\." [ompi5]="Open MPI v5\\." \
                       [mpich]="MPICH Version:" [impi]="Intel\(R\) MPI Library")
for name in debian "${BL_MPIS[@]}"; do
    prefix=
    if [ "$name" != debian ]; then
        prefix=$mpis/$name
        bl_mpi_installed "$prefix" || continue # scripts/mpis.sh reports it
    fi
    venv=$pyenvs/py-$name
    # The stamp scripts/apps.sh writes once the venv's mpi4py imports.
    have "$venv/.bindlab-apps" "mpi4py for $name" || continue
    d=$WORK/python-$name
    py_launcher "$name" "$prefix"
    if ( [ -z "$prefix" ] || eval "$(bl_mpi_env "$name" "$prefix")"
         run "python-$name" "$d" "${LAUNCH[@]}" "$venv/bin/python" \
             "$apps/python/matmul.py" ); then
        rate_line "python-$name" "$d/out" "^mpi: ${PY_LIBRARY[$name]}"
        rate_line "python-$name" "$d/out" "^rate: ($NUM) GFLOP/s\$"
    else
        fails=$((fails + 1))
    fi
done

echo "total: $((SECONDS - test_start)) s"
[ "$fails" = 0 ] || fail "$fails check(s) failed"
[ "$missing" = 0 ] || { echo "SKIP: $missing program(s) missing"; exit 77; }
exit 0
