#!/usr/bin/env bash
# libbindlab-probe.so in programs this project did not write (tests/apps/),
# preloaded as a user would (mpirun -x LD_PRELOAD=... -x BINDLAB_PROBE_DIR=...,
# Hydra's -genv), its files read by probe_dump and checked against the
# machine (hwloc-calc, nproc):
#   - LAMMPS and HPC Challenge, 2 ranks: every rank complete;
#   - mpi4py + numpy under every MPI with a venv, unbound, with
#     OPENBLAS_NUM_THREADS=2: every rank with the variable its MPI sets, and
#     OpenBLAS's worker threads as threads of their rank labelled blas;
#   - the exit status and the rate line are the same with the probe.
# GROMACS's runs under the probe are test_apps_gromacs.sh's (through bindlab
# run). Missing programs fail on CI (CI=true), are skipped elsewhere.
source "$(dirname "$0")/common.sh"
# shellcheck source=tests/integration/apps_common.sh
source "$(dirname "$0")/apps_common.sh"

PROBE=$BINDLAB_BUILD_DIR/libbindlab-probe.so
DUMP=$BINDLAB_BUILD_DIR/tests/probe_dump
[ -f "$PROBE" ] && [ -x "$DUMP" ] || fail "libbindlab-probe.so or tests/probe_dump not built"
NCPU=$(nproc)
ENVFLAG=-x # Debian's Open MPI (py_launcher sets it per MPI)

# expand LIST: the kernel's "0-2,5" as hwloc-calc's "0,1,2,5".
expand() {
    awk -v s="$1" 'BEGIN { n = split(s, p, ","); o = ""
        for (i = 1; i <= n; i++) { m = split(p[i], r, "-"); hi = m == 2 ? r[2] : r[1]
            for (c = r[1]; c <= hi; c++) o = o (o == "" ? "" : ",") c }
        print o }'
}
# core_pus R: the PUs of core R (logical index), hwloc-calc's form.
core_pus() { hwloc-calc --physical-output --intersect PU "core:$1"; }

# probe_args DIR: the launcher options (ENVFLAG) that preload the probe
# writing into DIR, in the array ENV_ARGS.
probe_args() { mkdir -p "$1"; env_args "LD_PRELOAD=$PROBE" "BINDLAB_PROBE_DIR=$1"; }

# dump NAME DIR: probe_dump of DIR into DIR.tsv; a failure is counted.
dump() {
    "$DUMP" "$2" >"$2.tsv" 2>"$2.err" && return 0
    bad "$1: probe_dump $2: $(cat "$2.err")"
    return 1
}

# field TSV TYPE COLUMN [AWK-CONDITION]: COLUMN of the lines of TYPE.
field() { awk -F'\t' -v t="$2" "\$1 == t ${4:+&& ($4)} { print \$$3 }" "$1"; }

# labels TSV [AWK-CONDITION]: the threads' labels counted, "main:1 mpi:2".
labels() { field "$1" thread 4 "${2:-}" | sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }'; }

# ranks_complete NAME TSV NP VAR: NP processes, ranks 0..NP-1 once each,
# read from VAR, of size NP, each file complete (its end line written).
ranks_complete() {
    local name=$1 tsv=$2 np=$3 var=$4 want got
    want=$(seq 0 $((np - 1)) | paste -sd' ')
    got=$(field "$tsv" process 2 | paste -sd' ')
    [ "$got" = "$want" ] || { bad "$name: ranks '$got', expected '$want'"; return 1; }
    [ -z "$(field "$tsv" process 2 "\$3 != $np || \$4 != \"$var\" || \$7 != 1")" ] ||
        { bad "$name: a process not complete, not of size $np or not from $var:" \
              "$(grep '^process' "$tsv")"; return 1; }
    echo "$name: ranks $got complete, rank from $var"
}

# starts_on_cores NAME TSV: each rank's start, init and finalize sets are
# its core's PUs (mapped and bound by core: rank R on core R).
starts_on_cores() {
    local r line
    for r in $(field "$2" process 2); do
        line=$(field "$2" process '8 "\t" $9 "\t" $10' "\$2 == $r")
        for set in $line; do
            [ "$(expand "$set")" = "$(core_pus "$r")" ] ||
                bad "$1: rank $r: start/init/finalize sets '$line', core $r has PUs $(core_pus "$r")"
        done
    done
}

if have lmp "Debian package lammps"; then
    d=$WORK/lammps
    probe_args "$d/probe"
    if run lammps "$d" "${DEBIAN_MPIRUN[@]}" "${ENV_ARGS[@]}" lmp -in "$apps/lammps/in.lj" \
           -log none && dump lammps "$d/probe"; then
        rate_line lammps "$d/out" "^Performance: ($NUM) tau/day"
        ranks_complete lammps "$d/probe.tsv" "$NP" OMPI_COMM_WORLD_RANK
        starts_on_cores lammps "$d/probe.tsv"
    fi
    # A failing run fails the same with the probe (an input that is not there).
    for with in plain probe; do
        args=()
        [ $with = plain ] || { probe_args "$WORK/lammps-fail/probe"; args=("${ENV_ARGS[@]}"); }
        rc=0
        (cd "$WORK" && timeout 300 "${MPIRUN[@]}" -np 1 "${args[@]}" lmp -in no-such-input \
             -log none >"$WORK/lammps-fail.$with" 2>&1) || rc=$?
        eval "rc_$with=$rc"
    done
    # shellcheck disable=SC2154 # set by the eval above
    [ "$rc_plain" != 0 ] && [ "$rc_plain" = "$rc_probe" ] ||
        bad "lammps with a missing input: exit $rc_plain, $rc_probe with the probe"
    echo "lammps: a missing input exits $rc_plain, with the probe too"
fi

if have hpcc "Debian package hpcc"; then
    d=$WORK/hpcc
    mkdir -p "$d" && cp "$apps/hpcc/hpccinf.txt" "$d/"
    probe_args "$d/probe"
    if run hpcc "$d" "${DEBIAN_MPIRUN[@]}" "${ENV_ARGS[@]}" hpcc && dump hpcc "$d/probe"; then
        rate_line hpcc "$d/hpccoutf.txt" "^HPL_Tflops=($NUM)\$"
        ranks_complete hpcc "$d/probe.tsv" "$NP" OMPI_COMM_WORLD_RANK
        starts_on_cores hpcc "$d/probe.tsv"
    fi
fi

# mpi4py + numpy: unbound, OpenBLAS may start a worker per CPU beyond the
# first, up to OPENBLAS_NUM_THREADS.
BLAS_THREADS=2
want_blas=$(( (NCPU < BLAS_THREADS ? NCPU : BLAS_THREADS) - 1 ))
declare -A RANK_VAR=([debian]=OMPI_COMM_WORLD_RANK [ompi5]=OMPI_COMM_WORLD_RANK
                     [mpich]=PMI_RANK [impi]=PMI_RANK)
for name in debian "${BL_MPIS[@]}"; do
    pyenv_ready "$name" || continue
    d=$WORK/python-$name
    py_launcher "$name" "$prefix" none
    probe_args "$d/probe"
    env_args "LD_PRELOAD=$PROBE" "BINDLAB_PROBE_DIR=$d/probe" "OPENBLAS_NUM_THREADS=$BLAS_THREADS"
    if ( [ -z "$prefix" ] || eval "$(bl_mpi_env "$name" "$prefix")"
         run "python-$name" "$d" "${LAUNCH[@]}" "${ENV_ARGS[@]}" "$venv/bin/python" \
             "$apps/python/matmul.py" ) && dump "python-$name" "$d/probe"; then
        t=$d/probe.tsv
        rate_line "python-$name" "$d/out" "^mpi: ${PY_LIBRARY[$name]}"
        rate_line "python-$name" "$d/out" "^rate: ($NUM) GFLOP/s\$"
        ranks_complete "python-$name" "$t" "$NP" "${RANK_VAR[$name]}"
        for r in $(seq 0 $((NP - 1))); do
            n=$(field "$t" thread 3 "\$2 == $r && \$4 == \"blas\"" | wc -l)
            [ "$n" = "$want_blas" ] ||
                bad "python-$name: rank $r: $n blas threads, expected $want_blas:" \
                    "$(grep "^thread	$r	" "$t")"
        done
        echo "python-$name: $want_blas blas thread(s) per rank;" \
             "threads of both ranks: $(labels "$t")"
    else
        fails=$((fails + 1))
    fi
done

apps_end
