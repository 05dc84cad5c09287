#!/usr/bin/env bash
# Installs the programs this project did not write that the tests run under
# mpirun (tests/apps/, tests/integration/test_apps_run.sh):
#   - GROMACS (gmx_mpi), LAMMPS (lmp), HPC Challenge (hpcc): Debian packages
#     gromacs lammps hpcc, built against Debian's Open MPI 4.1.4;
#   - mpi4py + numpy from PyPI, pinned, one venv per MPI under DIR
#     (default build-apps/ of the source tree), never the system Python:
#       DIR/py-debian  mpi4py built with Debian's Open MPI (mpicc.openmpi)
#       DIR/py-NAME    mpi4py built with the MPI NAME of scripts/mpis.sh
#                      (ompi5, mpich, impi under MPIDIR, default build-mpi/),
#                      for each one installed there.
#     One venv per MPI because mpi4py is compiled against one MPI.
#   scripts/apps.sh [DIR [MPIDIR]]  install what is missing, print the venvs
#   scripts/apps.sh --list [DIR]     print "NAME VENV" per installed venv
# Sourced by scripts/deps.sh (bl_install_apps DIR MPIDIR). A second call only
# checks stamps (under a second). What fails is named with the fix; the rest
# still installs, and the status is 1 at the end so a CI log shows it.

BL_APPS_DEFAULT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-apps
BL_APPS_DEBIAN_PACKAGES=(gromacs lammps hpcc)
BL_APPS_PROGRAMS=(gmx_mpi lmp hpcc)
# mpi4py is built from source (--no-binary) so that it links the MPI whose
# mpicc is given, and without pip's cache (--no-cache-dir): pip keeps the
# wheel it built under the sdist's name, not the compiler's, and would
# hand the first MPI's build to every other venv. Compiled at -O0 without
# debug information: mpi4py's one large generated C file takes minutes at
# Python's default -O3 -g, and the tests time numpy, not mpi4py's calls.
# numpy is the PyPI wheel (its own OpenBLAS, pthreads).
BL_APPS_PY_PACKAGES="mpi4py==4.1.2 numpy==2.4.6"

# Debian's Open MPI compiler wrapper by its own name: /usr/bin/mpicc is an
# alternative that may point at another MPI.
bl_apps_debian_mpicc() {
    if [ -x /usr/bin/mpicc.openmpi ]; then echo /usr/bin/mpicc.openmpi
    else echo /usr/bin/mpicc; fi
}

# A venv is installed when its stamp names the packages asked for and the
# compiler mpi4py was built with (written only after both import).
bl_apps_pyenv_installed() {
    local venv=$1 mpicc=$2
    [ -x "$venv/bin/python" ] &&
        [ "$(cat "$venv/.bindlab-apps" 2>/dev/null)" = "$BL_APPS_PY_PACKAGES $mpicc" ]
}

# bl_apps_install_pyenv VENV MPICC LOG: the venv with mpi4py built by MPICC
# (run in the environment that MPI needs, bl_mpi_env). Output to LOG,
# shown on failure.
bl_apps_install_pyenv() {
    local venv=$1 mpicc=$2 log=$3 py=${BINDLAB_PYTHON:-python3}
    bl_apps_pyenv_installed "$venv" "$mpicc" && return 0
    echo "== installing $BL_APPS_PY_PACKAGES into $venv (mpi4py built with $mpicc)"
    rm -f "$venv/.bindlab-apps"
    # shellcheck disable=SC2086 # one word per package
    if ! { "$py" -m venv "$venv" &&
           MPICC=$mpicc CFLAGS="-O0 -g0" "$venv/bin/python" -m pip install -q \
               --disable-pip-version-check --no-cache-dir --no-binary mpi4py \
               $BL_APPS_PY_PACKAGES &&
           "$venv/bin/python" -c 'from mpi4py import MPI; import numpy
print(MPI.Get_library_version().split("\0")[0].splitlines()[0])' >"$venv/mpi-library"
         } >"$log" 2>&1; then
        tail -30 "$log" >&2
        echo "bindlab: could not build mpi4py with $mpicc into $venv" \
             "(full log: $log). It needs a C compiler and Python's headers" \
             "(python3-dev, scripts/deps.sh) and PyPI; fix what the log" \
             "names and run scripts/apps.sh again" >&2
        return 1
    fi
    echo "$BL_APPS_PY_PACKAGES $mpicc" >"$venv/.bindlab-apps"
    echo "   mpi4py in $venv runs $(cat "$venv/mpi-library")"
}

# The Debian packages, installed when root and missing; otherwise the
# apt-get line to run.
bl_apps_install_debian() {
    local p absent=()
    for p in "${BL_APPS_DEBIAN_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q 'install ok installed' || absent+=("$p")
    done
    [ ${#absent[@]} = 0 ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "bindlab: the tests need these Debian packages; as root run:" >&2
        echo "  apt-get update && apt-get install -y ${absent[*]}" >&2
        return 1
    fi
    echo "== installing: ${absent[*]}"
    if ! { apt-get update -q &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${absent[@]}"; }; then
        echo "bindlab: apt-get install ${absent[*]} failed (see above)" >&2
        return 1
    fi
}

# bl_install_apps [DIR [MPIDIR]]: everything above; prints "NAME VENV" per
# venv that is ready.
bl_install_apps() {
    local dir=${1:-$BL_APPS_DEFAULT_DIR} mpidir=${2:-${BL_MPI_DEFAULT_DIR:-build-mpi}}
    local failed=0 name prefix mpicc
    bl_apps_install_debian || failed=1
    for name in "${BL_APPS_PROGRAMS[@]}"; do
        command -v "$name" >/dev/null ||
            { echo "bindlab: $name is missing (Debian packages" \
                   "${BL_APPS_DEBIAN_PACKAGES[*]})" >&2; failed=1; }
    done
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
    mpicc=$(bl_apps_debian_mpicc)
    if bl_apps_install_pyenv "$dir/py-debian" "$mpicc" "$dir/py-debian.log"; then
        echo "debian $dir/py-debian"
    else
        failed=1
    fi
    [ -d "$mpidir" ] && mpidir=$(cd "$mpidir" && pwd)
    for name in "${BL_MPIS[@]}"; do
        prefix=$mpidir/$name
        bl_mpi_installed "$prefix" || continue
        if ( eval "$(bl_mpi_env "$name" "$prefix")"
             bl_apps_install_pyenv "$dir/py-$name" "$prefix/bin/mpicc" \
                 "$dir/py-$name.log" ); then
            echo "$name $dir/py-$name"
        else
            failed=1
        fi
    done
    return $failed
}

# NAME VENV for each ready venv under DIR (the stamp is there).
bl_list_apps_pyenvs() {
    local dir=${1:-$BL_APPS_DEFAULT_DIR} venv
    [ -d "$dir" ] || return 0
    dir=$(cd "$dir" && pwd)
    for venv in "$dir"/py-*; do
        [ -f "$venv/.bindlab-apps" ] && echo "${venv##*/py-} $venv"
    done
    return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    # shellcheck source=scripts/mpis.sh
    source "$(dirname "${BASH_SOURCE[0]}")/mpis.sh"
    if [ "${1:-}" = --list ]; then
        bl_list_apps_pyenvs "${2:-$BL_APPS_DEFAULT_DIR}"
    else
        bl_install_apps "${1:-$BL_APPS_DEFAULT_DIR}" "${2:-$BL_MPI_DEFAULT_DIR}"
    fi
fi
