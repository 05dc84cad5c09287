# The OpenMP places model (harness/plan/plan_omp.c) against libgomp on this
# machine: for every case, omp_places_probe runs one parallel region under
# OMP_PLACES / OMP_PROC_BIND / OMP_NUM_THREADS and prints each thread's
# omp_get_place_num() and sched_getaffinity() CPUs, plus libgomp's place
# list; the model prints the same line for the same case. They must agree.
#
# Place lists that name the same CPUs again ("{0},{1},{0},{1},...") let two
# CPUs stand for up to 8 places, so the grid P = 1..8 x T = 1..12 x
# close/spread/primary/true runs for real on a 2-CPU machine (or 1 CPU).
source "$(dirname "$0")/common.sh"

PROBE="$BINDLAB_BUILD_DIR/tests/omp_places_probe"
[ -x "$PROBE" ] || fail "$PROBE not built"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS OMP_DISPLAY_AFFINITY GOMP_CPU_AFFINITY OMP_DYNAMIC

ALL=$(taskset -pc $$ | sed 's/.*: //')
# The two CPUs the explicit lists alternate between; with one CPU allowed
# both are that CPU (the places still differ by number, which is what the
# model and libgomp must agree on).
mine=($(echo "$ALL" | tr ',' '\n' |
    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'))
C0=${mine[0]} C1=${mine[1]:-${mine[0]}}

CASES="$WORK/cases"   # PLACES <TAB> BIND <TAB> T <TAB> CPUS ("-" = unset / all)
: >"$CASES"
add() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:--}" >>"$CASES"; }

# The grid: P places alternating between two CPUs, T threads, four policies.
for P in 1 2 3 4 5 6 7 8; do
    list=""
    for ((i = 0; i < P; i++)); do
        list+="${list:+,}{$(( i % 2 ? C1 : C0 ))}"
    done
    for T in 1 2 3 4 5 6 7 8 9 10 11 12; do
        for bind in close spread primary true; do add "$list" "$bind" "$T"; done
    done
    add "$list" - 5          # OMP_PLACES alone: libgomp binds as with true
    add "$list" false 3      # false: unbound, no place
done
# Unset variables and the default places.
add - - 3
add - close 3
add - spread 5
add - master 2
add - "spread,close" 4
# Abstract names, counts, case, strides, intervals and exclusions.
for name in threads cores sockets ll_caches numa_domains "threads(1)" "CORES(1)" " cores ( 2 ) "; do
    add "$name" close 4
done
add "{$C0:2}" spread 3
add "{$C0}:2" close 3
add "{$C0}:2:1" spread 4
add "{$C0,$C1},{$C0}" close 5
add "{$C0:2,!$C1}" close 2
add "{$C0},{$C1},!{$C0}" close 3
add "$C0,$C1,$C0" spread 2
# The rank's cpuset cuts places: empty places are dropped, and with none
# left libgomp falls back to its defaults (unbound when OMP_PROC_BIND is unset).
add "{$C0},{$C1},{$C0},{$C1}" close 3 "$C1"
add "{$C0:2}" spread 2 "$C1"
add "{$C0}" close 2 "$C1"
add "{$C0}" - 2 "$C1"
add threads spread 3 "$C1"

ncases=$(wc -l <"$CASES")
echo "comparing $ncases cases with libgomp (CPUs $ALL, lists over $C0 and $C1)"

# libgomp, one process per case.
: >"$WORK/real"
while IFS=$'\t' read -r places bind t cpus; do
    envs=(OMP_NUM_THREADS="$t")
    [ "$places" = - ] || envs+=(OMP_PLACES="$places")
    [ "$bind" = - ] || envs+=(OMP_PROC_BIND="$bind")
    pin=()
    [ "$cpus" = - ] || pin=(taskset -c "$cpus")
    out=$(env "${envs[@]}" "${pin[@]}" "$PROBE" run 2>"$WORK/stderr") ||
        { cat "$WORK/stderr" >&2; fail "probe run failed for '$places' '$bind' $t"; }
    printf '%s|%s|%s|%s => %s\n' "$places" "$bind" "$t" "$cpus" "$out" >>"$WORK/real"
done <"$CASES"

# The model, one process per rank cpuset.
: >"$WORK/model"
while IFS=$'\t' read -r places bind t cpus; do
    out=$(printf '%s\t%s\t%s\n' "$places" "$bind" "$t" |
        "$PROBE" model "$([ "$cpus" = - ] && echo "$ALL" || echo "$cpus")") ||
        fail "probe model failed for '$places' '$bind' $t"
    printf '%s|%s|%s|%s => %s\n' "$places" "$bind" "$t" "$cpus" "$out" >>"$WORK/model"
done <"$CASES"

if ! diff -u "$WORK/real" "$WORK/model" >"$WORK/diff"; then
    echo "--- libgomp (-) vs model (+):" >&2
    grep '^[-+][^-+]' "$WORK/diff" | head -40 >&2
    fail "the model disagrees with libgomp in $(grep -c '^+[^+]' "$WORK/diff") of $ncases cases"
fi
[ "$(wc -l <"$WORK/real")" -eq "$ncases" ] || fail "not every case ran"

# The grid must exercise the runtime's T mod P dealing: with 2 places and 5
# threads libgomp puts threads 0,1,4 on place 0 (the specification's
# consecutive reading would give 0,1,2).
expect_line "$WORK/real" "{$C0},{$C1}|close|5|- => places=$C0;$C1 threads=0:0:$C0 1:0:$C0 2:1:$C1 3:1:$C1 4:0:$C0"
echo "ok: $ncases cases agree with libgomp"
