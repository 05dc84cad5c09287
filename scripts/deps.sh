#!/usr/bin/env bash
# Installs the Debian packages bindlab needs (when root), or prints the exact
# apt-get line to run (when not). Sourced by scripts/main.sh and
# scripts/test.sh; also runs on its own.
set -euo pipefail

BINDLAB_PACKAGES=(
    gcc make cmake pkg-config
    openmpi-bin libopenmpi-dev
    libhwloc-dev hwloc
    libhdf5-dev hdf5-tools
    zlib1g-dev # harness/matrix/png.c: bindlab matrix --png
    libpapi-dev
    libyaml-dev
    libxml2-dev
    libopenblas-openmp-dev
    gfortran # test_probe.sh: a Fortran MPI program (mpif90)
    linux-perf # test_app_mpirun.sh: perf stat, the second opinion on the counters
    libcmocka-dev
    clang libclang-rt-14-dev libomp-dev # scripts/fuzz.sh: libFuzzer, OpenMP for clang
    python3-h5py python3-pandas
    slurmctld slurmd slurm-client munge # test_slurm_cluster.sh, tests/cluster/ (Slurm clusters)
    iproute2 util-linux # tests/slurm/nodes.sh: namespaced nodes (ip netns, unshare, nsenter)
    qemu-system-x86 busybox-static cpio numactl # scripts/numa-node.sh's emulated NUMA node
    python3-venv # scripts/mpis.sh: Open MPI 5, MPICH, Intel MPI from PyPI, one venv each
    chromium # test_report_html.sh: the HTML report in a real headless browser
    likwid # bench/triad.sh, bench/latency.sh: likwid-bench, the reference beside the app
    gromacs lammps hpcc python3-dev # test_apps_run.sh: programs we did not write (scripts/apps.sh builds mpi4py)
    gcovr # scripts/coverage_floors.py: coverage per folder (CI, coverage.sh)
    man-db lmod tcl # test_install.sh, test_modules.sh (environment-modules conflicts with lmod: that test unpacks its .deb)
)

bl_missing_packages() {
    local p
    for p in "${BINDLAB_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            echo "$p"
    done
}

bl_install_deps() {
    local missing
    missing=$(bl_missing_packages | tr '\n' ' ')
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "bindlab needs these Debian packages; as root run:" >&2
        echo "  apt-get update && apt-get install -y $missing" >&2
        return 1
    fi
    echo "== installing: $missing"
    apt-get update -q
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
}

# bl_install_mpis DIR / bl_list_mpis DIR: the extra MPIs (scripts/mpis.sh).
# shellcheck source=scripts/mpis.sh
source "$(dirname "${BASH_SOURCE[0]}")/mpis.sh"
# bl_install_omp_runtimes DIR: Intel's OpenMP runtime (scripts/omp_runtimes.sh).
# shellcheck source=scripts/omp_runtimes.sh
source "$(dirname "${BASH_SOURCE[0]}")/omp_runtimes.sh"
# bl_install_apps DIR MPIDIR: mpi4py per MPI, the Debian programs (scripts/apps.sh).
# shellcheck source=scripts/apps.sh
source "$(dirname "${BASH_SOURCE[0]}")/apps.sh"

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    bl_install_deps
fi
