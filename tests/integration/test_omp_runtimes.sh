# Every OpenMP runtime against bindlab plan --omp-runtime: bindlab-app runs
# under libgomp, LLVM's libomp and Intel's libiomp5 for a table of settings
# (OMP_PLACES x OMP_PROC_BIND x threads, and KMP_AFFINITY forms), and each
# thread's CPU list as the app prints it (--show-placement, its cpuset
# column) must equal the plan's for that runtime.
#
# One binary for all three: libomp and libiomp5 speak libgomp's ABI, so a
# directory holding "libgomp.so.1" -> the other runtime on LD_LIBRARY_PATH
# makes the app (and OpenBLAS, also linked to libgomp) run on that runtime
# alone. Loading it beside libgomp instead (LD_PRELOAD) is not the same:
# libgomp's constructor pins the initial thread to its first place before
# the other runtime starts, which then sees one CPU. KMP_VERSION's banner
# shows which runtime ran. Each runtime is one mpirun with one app context
# per setting; the expectations are bindlab plan's on this machine's
# topology, the places lists built from the CPUs this process may use.
#
# BINDLAB_LIBOMP (libomp.so.5) and BINDLAB_IOMP5 (libiomp5.so) name the
# runtimes; unset, the usual places are tried (Debian's LLVM, the
# build-omp/ venv beside the build). A runtime not found is reported and
# its rows do not run; with neither found, the test is skipped.
source "$(dirname "$0")/common.sh"

unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS OMP_DISPLAY_AFFINITY \
    KMP_AFFINITY GOMP_CPU_AFFINITY OMP_DYNAMIC KMP_HW_SUBSET
BINDLAB="${BINDLAB:-$BINDLAB_BUILD_DIR/bindlab}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

find_lib() { # VAR candidates...: the first that exists
    local v=$1
    shift
    if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
    for c in "$@"; do [ -e "$c" ] && { echo "$c"; return; }; done
    echo ""
}
LIBOMP=$(find_lib BINDLAB_LIBOMP /usr/lib/llvm-*/lib/libomp.so.5 \
    /usr/lib/x86_64-linux-gnu/libomp.so.5)
IOMP5=$(find_lib BINDLAB_IOMP5 "$SRC/build-omp/intel-openmp/lib/libiomp5.so" \
    "$BINDLAB_BUILD_DIR/../build-omp/intel-openmp/lib/libiomp5.so")
[ -n "$LIBOMP$IOMP5" ] || { echo "SKIP: neither libomp nor libiomp5 found"; exit 77; }

allowed_cpus
mine=($(echo "$ALLOWED" | tr ',' '\n' |
    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'))
C0=${mine[0]} C1=${mine[1]:-${mine[0]}}

# The table: PLACES | PROC_BIND | T | KMP_AFFINITY | runtimes ("-" unset;
# "all" or "llvm": libomp and Intel only, as libgomp ignores KMP_AFFINITY).
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
ROWS

APP_ARGS=(--kernel triad --size 64KiB --iters 1 --warmup 0 --show-placement)

# run RUNTIME LIBDIR: one mpirun, one app context per row for RUNTIME;
# writes $WORK/real.RUNTIME ("row thread cpus" lines) and the row list.
run_runtime() {
    local rt=$1 libdir=$2 ctx=() row=0 used=() places bind t kmp who
    while IFS='|' read -r places bind t kmp who; do
        row=$((row + 1))
        [ "$rt" != libgomp ] || [ "$who" = all ] || continue
        [ ${#ctx[@]} -eq 0 ] || ctx+=(:)
        ctx+=(-np 1 -x OMP_NUM_THREADS="$t" -x KMP_VERSION=1 -x OMP_WAIT_POLICY=passive
            -x KMP_BLOCKTIME=0)
        [ "$places" = - ] || ctx+=(-x OMP_PLACES="$places")
        [ "$bind" = - ] || ctx+=(-x OMP_PROC_BIND="$bind")
        [ "$kmp" = - ] || ctx+=(-x KMP_AFFINITY="$kmp")
        [ -z "$libdir" ] || ctx+=(-x LD_LIBRARY_PATH="$libdir")
        ctx+=("$BINDLAB_APP" "${APP_ARGS[@]}")
        used+=("$row")
    done <"$TABLE"
    printf '%s\n' "${used[@]}" >"$WORK/rows.$rt"
    "${MPIRUN[@]}" --bind-to none "${ctx[@]}" >"$WORK/out.$rt" 2>&1 ||
        { cat "$WORK/out.$rt" >&2; fail "$rt: mpirun failed"; }
    # which runtime ran: KMP_VERSION's banner, from LLVM's and Intel's only
    case $rt in
    libgomp) ! grep -q "OMP version" "$WORK/out.$rt" || fail "libgomp: another runtime ran" ;;
    libomp) grep -q "^LLVM OMP version" "$WORK/out.$rt" || fail "libomp did not run" ;;
    intel) grep -q "^Intel(R) OMP version" "$WORK/out.$rt" || fail "Intel's runtime did not run" ;;
    esac
    # the placement table: host rank thread cpu core l3 numa package cpuset
    awk -v rows="$(tr '\n' ' ' <"$WORK/rows.$rt")" '
        BEGIN { n = split(rows, r, " ") }
        /^host +rank +thread/ { on = 1; next }
        on && NF == 9 && $2 ~ /^[0-9]+$/ { print r[$2 + 1], $3, $9; next }
        on { on = 0 }' "$WORK/out.$rt" | sort -n -k1,1 -k2,2 >"$WORK/real.$rt"
}

# plan RUNTIME: bindlab plan's CPU list of every thread of every row; the
# rows of one KMP_AFFINITY value are one sweep file's layouts, planned by
# one bindlab plan (one mpirun for their common rank layout).
plan_runtime() {
    local rt=$1 kmp_group rows row places bind t kmp who args k
    : >"$WORK/plan.$rt"
    cut -d'|' -f4 "$TABLE" | sort -u >"$WORK/kmps"
    while read -r kmp_group; do
        rows=()
        printf 'name: rows\nkernels: [triad]\nlayouts:\n' >"$WORK/rows.yaml"
        row=0
        while IFS='|' read -r places bind t kmp who; do
            row=$((row + 1))
            [ "$kmp" = "$kmp_group" ] && grep -qx "$row" "$WORK/rows.$rt" || continue
            rows+=("$row")
            printf '  - {name: r%d, np: 1, bind_to: none, threads: %d' "$row" "$t" >>"$WORK/rows.yaml"
            [ "$places" = - ] || printf ', omp_places: "%s"' "$places" >>"$WORK/rows.yaml"
            [ "$bind" = - ] || printf ', omp_proc_bind: "%s"' "$bind" >>"$WORK/rows.yaml"
            printf '}\n' >>"$WORK/rows.yaml"
        done <"$TABLE"
        [ ${#rows[@]} -gt 0 ] || continue
        args=(plan "$WORK/rows.yaml" --omp-runtime "$rt" --format tsv)
        [ "$kmp_group" = - ] || [ "$rt" = libgomp ] || args+=(--kmp-affinity "$kmp_group")
        "$BINDLAB" "${args[@]}" 2>"$WORK/plan.err" >"$WORK/plan.tsv" ||
            { cat "$WORK/rows.yaml" "$WORK/plan.err" >&2; fail "$rt: bindlab ${args[*]}"; }
        # run ids r0000, r0001, ... follow the layouts' order
        awk -v rows="${rows[*]}" -F'\t' '
            BEGIN { split(rows, r, " ") }
            NR > 1 { k = substr($1, 2) + 1; print r[k], $3, $4 }' \
            "$WORK/plan.tsv" >>"$WORK/plan.$rt"
    done <"$WORK/kmps"
    sort -n -k1,1 -k2,2 -o "$WORK/plan.$rt" "$WORK/plan.$rt"
}

LIBDIR_LIBOMP="$WORK/libomp" LIBDIR_INTEL="$WORK/intel"
mkdir -p "$LIBDIR_LIBOMP" "$LIBDIR_INTEL"
runtimes=(libgomp)
if [ -n "$LIBOMP" ]; then ln -s "$LIBOMP" "$LIBDIR_LIBOMP/libgomp.so.1"; runtimes+=(libomp); else echo "libomp: not found, its rows do not run"; fi
if [ -n "$IOMP5" ]; then ln -s "$IOMP5" "$LIBDIR_INTEL/libgomp.so.1"; runtimes+=(intel); else echo "libiomp5: not found, its rows do not run"; fi

bad=0
for rt in "${runtimes[@]}"; do
    libdir=""
    [ "$rt" = libomp ] && libdir=$LIBDIR_LIBOMP
    [ "$rt" = intel ] && libdir=$LIBDIR_INTEL
    run_runtime "$rt" "$libdir"
    plan_runtime "$rt"
    n=$(wc -l <"$WORK/rows.$rt")
    [ -s "$WORK/real.$rt" ] || { cat "$WORK/out.$rt" >&2; fail "$rt: no placement table"; }
    if ! diff -u "$WORK/plan.$rt" "$WORK/real.$rt" >"$WORK/diff.$rt"; then
        echo "--- $rt: bindlab plan (-) vs the app (+), 'row thread cpus'; rows:" >&2
        nl -ba -s'|' "$TABLE" >&2
        cat "$WORK/diff.$rt" >&2
        bad=1
    else
        echo "$rt: $n settings, $(wc -l <"$WORK/real.$rt") threads: the app's placement equals the plan"
    fi
done
[ "$bad" = 0 ] || fail "the plan and the runtime disagree"
