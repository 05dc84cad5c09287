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
# shellcheck source=tests/integration/apps_common.sh
source "$(dirname "$0")/apps_common.sh"

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

for name in debian "${BL_MPIS[@]}"; do
    pyenv_ready "$name" || continue
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

apps_end
