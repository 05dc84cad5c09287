#!/usr/bin/env bash
# measure.sh [REPEATS]: runs each program of tests/apps/ REPEATS times
# (default 3) under `mpirun -np 2 --bind-to core` (Debian's Open MPI 4; the
# python program also under each MPI that scripts/apps.sh built mpi4py
# for) and prints, per program: the median wall time, the most threads
# seen per rank (/proc/PID/task, polled while it runs) with their names,
# the rate line and what the program says about its affinity. The machine
# (CPU model, ISA level, load) comes first. The figures in README.md come
# from here. Needs scripts/apps.sh done (build-apps/ of the source tree).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
repeats=${1:-3}
apps=${BINDLAB_APPS_DIR:-$src/build-apps}
mpis=${BINDLAB_MPI_DIR:-$src/build-mpi}
# shellcheck source=scripts/deps.sh
source "$src/scripts/mpis.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GMX_MAXBACKUP=-1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

isa_level() {
    local l
    for l in 4 3 2; do
        /lib64/ld-linux-x86-64.so.2 --help 2>/dev/null |
            grep -q "x86-64-v$l (supported" && { echo "x86-64-v$l"; return; }
    done
    echo "x86-64"
}
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
     "$(nproc) CPUs, $(isa_level)"
echo "load: $(uptime)"

# threads_of PID...: per PID, its threads as NAME*COUNT,... (names sorted).
threads_of() {
    local p
    for p in "$@"; do
        [ -d "/proc/$p/task" ] || continue
        printf '%s ' "$(cat /proc/"$p"/task/*/comm 2>/dev/null | sort |
            uniq -c | awk '{printf "%s%s*%s", (NR > 1 ? "," : ""), $2, $1}')"
    done
}

# run_once DIR LAUNCHER ARGS...: one run in DIR; prints the seconds it
# took and leaves DIR/out (stdout+stderr) and DIR/threads (the rank
# threads seen at the poll with the most threads).
run_once() {
    local dir=$1 start end pid best=0 n k kids line
    shift
    start=$(date +%s.%N)
    (cd "$dir" && exec "$@" >out 2>&1) &
    pid=$!
    : >"$dir/threads"
    while kill -0 "$pid" 2>/dev/null; do
        # The ranks: the launcher's descendants that are not launcher parts.
        kids=$(pgrep -d ' ' -f "$RANK_PATTERN" | tr ' ' '\n' |
               while read -r k; do [ "$k" != "$pid" ] && echo "$k"; done | tr '\n' ' ')
        if [ -n "$kids" ]; then
            n=0
            for k in $kids; do
                n=$((n + $(find "/proc/$k/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)))
            done
            if [ "$n" -gt "$best" ]; then
                best=$n
                # shellcheck disable=SC2086
                line=$(threads_of $kids)
                echo "$line" >"$dir/threads"
            fi
        fi
        sleep 0.05
    done
    wait "$pid" || { cat "$dir/out" >&2; echo "measure.sh: $* failed" >&2; return 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

# measure NAME RATE_GREP PREP LAUNCHER ARGS...: REPEATS runs, each in a
# fresh directory prepared by the shell command PREP.
measure() {
    local name=$1 rate=$2 prep=$3 i times=() dir
    shift 3
    for i in $(seq "$repeats"); do
        dir=$work/$name.$i
        mkdir -p "$dir"
        (cd "$dir" && eval "$prep")
        times+=("$(run_once "$dir" "$@")")
    done
    echo "== $name: $*"
    echo "   wall seconds: $(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')" \
         "(median $(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (repeats + 1) / 2 ))p"))"
    echo "   threads per rank (most seen): $(cat "$dir/threads")"
    echo "   rate: $(cd "$dir" && eval "$rate" | head -3 | tr '\n' ' ')"
    echo "   affinity: $(grep -hiE 'affinity|pinning|cpus ' "$dir/out" "$dir"/md.log 2>/dev/null |
                        sort -u | head -4 | tr '\n' ' ')"
}

MPIRUN=(mpirun -np 2 --bind-to core)
RANK_PATTERN='^gmx_mpi .*mdrun'
measure gromacs "grep -h '^Performance:' md.log" "$here/gromacs/prepare.sh ." \
    "${MPIRUN[@]}" gmx_mpi -quiet mdrun -s topol.tpr -ntomp 1 -nb cpu
measure gromacs-pin "grep -h '^Performance:' md.log" "$here/gromacs/prepare.sh ." \
    mpirun -np 2 --bind-to none gmx_mpi -quiet mdrun -s topol.tpr -ntomp 1 -nb cpu -pin on
# One rank of 2 OpenMP threads that GROMACS pins itself (2 ranks x 2
# spinning threads would oversubscribe 2 CPUs).
measure gromacs-omp2-pin "grep -h '^Performance:' md.log" "$here/gromacs/prepare.sh ." \
    mpirun -np 1 --bind-to none gmx_mpi -quiet mdrun -s topol.tpr -ntomp 2 -nb cpu -pin on
RANK_PATTERN='^lmp -in'
measure lammps "grep -h '^Performance:' out" ":" \
    "${MPIRUN[@]}" lmp -in "$here/lammps/in.lj" -log none
RANK_PATTERN='^hpcc$'
measure hpcc "grep -hE '^(HPL_Tflops|StarSTREAM_Triad|MPIFFT_Gflops)=' hpccoutf.txt" \
    "cp '$here/hpcc/hpccinf.txt' ." "${MPIRUN[@]}" hpcc
# Unbound, OpenBLAS (libgomp in Debian's, pthreads in numpy's) sees both
# CPUs and starts a second thread per rank.
measure hpcc-unbound "grep -hE '^HPL_Tflops=' hpccoutf.txt" \
    "cp '$here/hpcc/hpccinf.txt' ." mpirun -np 2 --bind-to none hpcc
RANK_PATTERN='^[^ ]*/python[0-9.]* [^ ]*matmul\.py'
# Read first: mpirun reads standard input.
mapfile -t pyenvs < <(bash "$src/scripts/apps.sh" --list "$apps")
for line in "${pyenvs[@]}"; do
    read -r name venv <<<"$line"
    (
    case $name in
    debian) launcher=(mpirun) ;;
    *) bl_mpi_installed "$mpis/$name" || exit 0
       eval "$(bl_mpi_env "$name" "$mpis/$name")"
       launcher=("$(bl_mpi_launcher "$mpis/$name")") ;;
    esac
    case $name in
    debian) bind=(-np 2 --bind-to core) ;;
    ompi5) bind=(-np 2 --bind-to core --allow-run-as-root) ;;
    mpich) bind=(-np 2 -bind-to core) ;;
    impi) bind=(-np 2 -genv I_MPI_PIN_DOMAIN core) ;;
    esac
    measure "python-$name" "grep -h '^rate:' out" ":" \
        "${launcher[@]}" "${bind[@]}" "$venv/bin/python" "$here/python/matmul.py"
    [ "$name" = debian ] || exit 0
    measure "python-$name-unbound" "grep -h '^rate:' out" ":" \
        "${launcher[@]}" -np 2 --bind-to none "$venv/bin/python" "$here/python/matmul.py"
    )
done
