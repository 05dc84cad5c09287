#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds twice (optimised,
# and with AddressSanitizer + UndefinedBehaviorSanitizer + coverage counters)
# and runs every unit and integration test in both, checks the second pass's
# coverage per folder against its floors, then a short run of every fuzz
# target.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

# Each heavy group's wall time, printed at the end (CI's budget is tight).
times=()
group_start=$SECONDS
group_done() { # NAME: the time since the last group ended
    times+=("$(printf '%-28s %5d s' "$1" $((SECONDS - group_start)))")
    group_start=$SECONDS
}

bl_install_deps
group_done "Debian packages"

# Root may run mpirun; the tests set what else they need.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The other MPIs (Open MPI 5, MPICH, Intel MPI) from PyPI, one venv each under
# build-mpi/, and bindlab-app built against each (build-mpi-NAME) before the
# tests start, so test_mpis only runs them. One that cannot install or build
# fails the suite at the end; the rest still run.
status=0
bl_install_mpis build-mpi || status=1
for name in "${BL_MPIS[@]}"; do
    prefix=$PWD/build-mpi/$name
    [ -x "$prefix/bin/mpicc" ] || continue
    echo "== bindlab-app for $name"
    (
        eval "$(bl_mpi_env "$name" "$prefix")"
        mkdir -p "build-mpi-$name"
        cmake -S . -B "build-mpi-$name" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DMPI_C_COMPILER="$prefix/bin/mpicc" >"build-mpi-$name/configure.log" 2>&1 ||
            { cat "build-mpi-$name/configure.log" >&2; exit 1; }
        cmake --build "build-mpi-$name" -j"$(nproc)" --target bindlab-app >/dev/null
    ) || status=1
done
group_done "extra MPIs + their app"

# The other OpenMP runtimes (docs/openmp-runtimes.md): Intel's libiomp5 from
# PyPI under build-omp/, and bindlab-app built with clang (LLVM's libomp)
# in build-omp-libomp/. The build trees' CMake hands both paths to the
# tests (BINDLAB_LIBIOMP5, BINDLAB_APP_LIBOMP), which fail without them.
bl_install_omp_runtimes build-omp || status=1
bl_build_omp_libomp_app . build-omp-libomp || status=1
group_done "OpenMP runtimes + clang app"

# Programs this project did not write, for test_apps_run.sh: GROMACS, LAMMPS,
# HPC Challenge (Debian) and mpi4py + numpy built for Debian's Open MPI and
# each MPI above, one venv each under build-apps/ (scripts/apps.sh).
bl_install_apps build-apps build-mpi || status=1
group_done "third-party programs"

junits=()
for variant in build build-asan; do
    if [ "$variant" = build-asan ]; then
        # With coverage counters too: the floors below read what this
        # pass's unit and integration tests ran (no pass of its own).
        scripts/build.sh build-asan -DBINDLAB_SANITIZE=ON -DBINDLAB_NATIVE=OFF \
            -DBINDLAB_COVERAGE=ON
        find build-asan -name '*.gcda' -delete # an earlier run's counts
    else
        scripts/build.sh build
    fi
    group_done "build $variant"
    echo "== tests in $variant"
    # The NUMA tests (label numa) and the workshop (label workshop) boot an
    # emulated node with the baseline build they make themselves: once, in
    # the optimised pass. So does the cycle check (label symbols): the
    # graph of a file's symbols is the same in both builds.
    skip=()
    # The multi-node cluster's launch tests run no bindlab code but the app
    # (already sanitized elsewhere): the ASan pass runs only its sweep test.
    # So do the third-party programs (test_apps_run: no bindlab code at all).
    # test_omp_runtimes runs the app under three OpenMP runtimes (65 s under
    # ASan, 5 s optimised); the plan code it checks is sanitized by
    # unit.test_omp_llvm_model, unit.test_kmp_hw_subset, fuzz_omp_env and
    # fuzz_kmp_hw_subset.
    [ "$variant" = build-asan ] &&
        skip=(-LE 'numa|workshop|symbols' -E 'cluster\.test_cluster_(launch|mpis)|integration\.test_(apps_run|omp_runtimes)')
    # CTest counts a skip (exit 77) as passed: each pass's JUnit file goes
    # to skip_report.py at the end, which fails on a test that did not run
    # unless tests/skip-allow.txt allows it for the reason it gave.
    (cd "$variant" && ctest --output-on-failure -j2 --output-junit ctest-junit.xml "${skip[@]}") ||
        status=1
    junits+=("$variant/ctest-junit.xml")
    group_done "tests in $variant"
done

# Line and branch coverage of the ASan pass per product folder (its table
# printed); a folder under its floor in tests/coverage-floors.txt fails.
echo "== coverage of the tests in build-asan"
python3 scripts/coverage_floors.py build-asan tests/coverage-floors.txt || status=1
group_done "coverage (gcovr, floors)"

# Every parser's libFuzzer target (clang), a short run each on its seeds;
# scripts/fuzz.sh SECONDS runs them longer.
echo "== fuzz targets in build-fuzz"
scripts/build.sh build-fuzz -DCMAKE_C_COMPILER=clang -DBINDLAB_FUZZ=ON -DBINDLAB_NATIVE=OFF
(cd build-fuzz && ctest --output-on-failure --output-junit ctest-junit.xml -R '^fuzz\.') || status=1
junits+=(build-fuzz/ctest-junit.xml)
group_done "fuzz build + runs"

# What was not tested here and why; a skip not on the allow-list fails.
python3 scripts/skip_report.py tests/skip-allow.txt "${junits[@]}" || status=1

echo "== time per group"
printf '%s\n' "${times[@]}"
echo "total                        $SECONDS s"
exit $status
