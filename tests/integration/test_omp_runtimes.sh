# Every OpenMP runtime against bindlab plan --omp-runtime: bindlab-app runs
# under libgomp, LLVM's libomp and Intel's libiomp5 for a table of settings
# (OMP_PLACES x OMP_PROC_BIND x threads, KMP_AFFINITY and KMP_HW_SUBSET
# forms), and each
# thread's CPU list as the app prints it (--show-placement, its cpuset
# column) must equal the plan's for that runtime.
#
# tests/integration/omp_runtimes_lib.sh says how one binary runs on each
# runtime; the same table's bigger cousin runs in the emulated two-socket
# node (tests/numa/guest_omp_runtimes.sh). The places lists are built from
# the CPUs this process may use, the expectations are bindlab plan's on
# this machine's topology. A runtime not found (BINDLAB_LIBOMP,
# BINDLAB_IOMP5, else the usual places) is reported and its rows do not
# run; with neither found, the test is skipped.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/omp_runtimes_lib.sh"

unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS OMP_DISPLAY_AFFINITY \
    KMP_AFFINITY GOMP_CPU_AFFINITY OMP_DYNAMIC KMP_HW_SUBSET
BINDLAB="${BINDLAB:-$BINDLAB_BUILD_DIR/bindlab}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

omp_find_runtimes "$SRC"
[ -n "$LIBOMP$IOMP5" ] || { echo "SKIP: neither libomp nor libiomp5 found"; exit 77; }
omp_libdirs "$WORK"

allowed_cpus
mine=($(echo "$ALLOWED" | tr ',' '\n' |
    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'))
C0=${mine[0]} C1=${mine[1]:-${mine[0]}}

# The table: PLACES | PROC_BIND | T | KMP_AFFINITY | runtimes [| KMP_HW_SUBSET]
# ("-" unset; "all" or "llvm": libomp and Intel only, as libgomp ignores
# KMP_*). KMP_HW_SUBSET forms that mean something on a node of one package
# and cores of one PU: cores kept (with an offset), sockets and threads per
# core asked for, more cores asked for than exist (libomp ignores the
# value, Intel's keeps what exists: the same CPUs here). Each distinct
# KMP_AFFINITY|KMP_HW_SUBSET pair costs one bindlab plan per runtime.
TABLE="$WORK/table"
cat >"$TABLE" <<ROWS
-|-|2|-|all
-|close|2|-|all
-|close|3|-|all
-|spread|3|-|all
-|true|3|-|all
-|primary|2|-|all
-|master|3|-|all
-|false|2|-|all
threads|-|2|-|all
threads|close|5|-|all
cores|spread|3|-|all
sockets|close|2|-|all
{$C0},{$C1},{$C0},{$C1}|spread|3|-|all
{$C0},{$C1},{$C0},{$C1}|-|2|-|all
{$C0},{$C1},{$C0},{$C1},{$C0}|close|7|-|all
{$C0},{$C1},{$C0},{$C1},{$C0}|spread|4|-|all
{$C1},{$C0}|close|3|-|all
-|-|3|compact|llvm
-|-|3|scatter|llvm
-|-|2|compact,granularity=fine|llvm
-|-|4|scatter,granularity=core|llvm
-|-|3|balanced|llvm
-|-|2|balanced,granularity=fine|llvm
-|-|3|compact,0,1|llvm
-|-|3|granularity=fine,explicit,proclist=[$C1,$C0]|llvm
-|false|2|compact|llvm
{$C1}|close|2|scatter,nodups|llvm
-|close|2|none|llvm
-|spread|2|granularity=fine|llvm
-|-|3|verbose,disabled|llvm
-|-|2|compact|llvm|1c
{$C0},{$C1}|close|2|-|llvm|1s,1c@1
-|-|2|granularity=fine,scatter|llvm|3c
-|-|2|none|llvm|1t,1c
ROWS

# The plans (bindlab plan, its mpirun asked) while the apps run, inside
# the CPUs this process may use (--allocation), as the apps are.
for rt in "${RUNTIMES[@]}"; do omp_rows "$rt" "$TABLE" "$WORK"; done
(for rt in "${RUNTIMES[@]}"; do omp_plan "$rt" "$TABLE" "$WORK" "$BINDLAB" --allocation || exit 1; done) &
plans=$!
for rt in "${RUNTIMES[@]}"; do
    omp_run "$rt" "$TABLE" "$WORK" "$BINDLAB_APP" "${MPIRUN[@]}" || fail "$rt: the app did not run"
done
wait "$plans" || fail "bindlab plan failed"
bad=0
for rt in "${RUNTIMES[@]}"; do omp_compare "$rt" "$TABLE" "$WORK" || bad=1; done
[ "$bad" = 0 ] || fail "the plan and the runtime disagree"
