# shellcheck shell=bash disable=SC2034 # sourced: its variables are used by the scripts
# Shared by test_apps_run.sh and test_apps_probe.sh (sourced after
# common.sh): where the programs of tests/apps/ and their venvs are, the
# launch commands, and the checks that go on after a miss. Nothing is
# installed here (scripts/test.sh runs bl_install_apps): a missing program
# fails on CI (CI=true) and is skipped elsewhere.
src=${BINDLAB_SOURCE_DIR:?run through ctest}
apps=$src/tests/apps
pyenvs=${BINDLAB_APPS_DIR:-$src/build-apps}
mpis=${BINDLAB_MPI_DIR:-$src/build-mpi}
# shellcheck source=scripts/mpis.sh
source "$src/scripts/mpis.sh"
# shellcheck source=scripts/apps.sh
source "$src/scripts/apps.sh"
export GMX_MAXBACKUP=-1
test_start=$SECONDS

# Two ranks, one core each; where this process may use one core (taskset,
# a one-CPU allocation) they share it, and sweeps oversubscribe it.
NP=2
BIND=core
OVERSUB=()
if [ "$(hwloc-calc -N core "$(hwloc-bind --get)")" -lt "$NP" ]; then
    BIND=core:overload-allowed
    OVERSUB=(--oversubscribe)
fi
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

# py_launcher NAME PREFIX [none]: the launch command of that MPI, 2 ranks
# bound to cores (with "none": not bound), in the array LAUNCH; ENVFLAG is
# how it passes a variable to the ranks: ENVFLAG VAR=VALUE for Open MPI's
# -x, ENVFLAG VAR VALUE for Hydra's -genv (env_args builds either).
py_launcher() {
    local launcher
    [ -z "$2" ] || launcher=$(bl_mpi_launcher "$2")
    case $1:${3:-} in
    debian:) LAUNCH=("${DEBIAN_MPIRUN[@]}") ;;
    debian:none) LAUNCH=("${MPIRUN[@]}" -np "$NP" --bind-to none) ;;
    ompi5:) LAUNCH=("$launcher" -np "$NP" --bind-to "$BIND") ;;
    ompi5:none) LAUNCH=("$launcher" -np "$NP" --bind-to none) ;;
    mpich:) LAUNCH=("$launcher" -np "$NP" -bind-to core) ;;
    mpich:none) LAUNCH=("$launcher" -np "$NP" -bind-to none) ;;
    impi:) LAUNCH=("$launcher" -np "$NP" -genv I_MPI_PIN_DOMAIN core) ;;
    impi:none) LAUNCH=("$launcher" -np "$NP" -genv I_MPI_PIN 0) ;;
    esac
    [ "$(id -u)" = 0 ] && [ "$1" = ompi5 ] && LAUNCH+=(--allow-run-as-root)
    case $1 in debian | ompi5) ENVFLAG=-x ;; *) ENVFLAG=-genv ;; esac
    return 0
}

# env_args VAR=VALUE...: the launcher's options (ENVFLAG, py_launcher)
# that give each rank these variables, in the array ENV_ARGS.
env_args() {
    local kv
    ENV_ARGS=()
    for kv in "$@"; do
        if [ "$ENVFLAG" = -x ]; then ENV_ARGS+=(-x "$kv")
        else ENV_ARGS+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
}

# The MPI library each venv's mpi4py must report (extended regexes).
declare -A PY_LIBRARY=([debian]="Open MPI v4\\." [ompi5]="Open MPI v5\\." \
                       [mpich]="MPICH Version:" [impi]="Intel\(R\) MPI Library")

# pyenv_ready NAME: the venv of NAME exists and its MPI is installed; sets
# prefix ("" for Debian's Open MPI) and venv. Status 1 to skip NAME.
pyenv_ready() {
    prefix=
    if [ "$1" != debian ]; then
        prefix=$mpis/$1
        bl_mpi_installed "$prefix" || return 1 # scripts/mpis.sh reports it
    fi
    venv=$pyenvs/py-$1
    # The stamp scripts/apps.sh writes once the venv's mpi4py imports.
    have "$venv/.bindlab-apps" "mpi4py for $1"
}

# apps_end: the total time, then the status (failures, then skips).
apps_end() {
    echo "total: $((SECONDS - test_start)) s"
    [ "$fails" = 0 ] || fail "$fails check(s) failed"
    [ "$missing" = 0 ] || { echo "SKIP: $missing program(s) missing"; exit 77; }
    exit 0
}
