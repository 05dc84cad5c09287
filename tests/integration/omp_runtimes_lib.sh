# shellcheck shell=bash
# Shared by test_omp_runtimes.sh (this machine) and the numa guest check
# omp_runtimes (the emulated two-socket node): bindlab-app under libgomp,
# LLVM's libomp and Intel's libiomp5 for a table of settings, and bindlab
# plan --omp-runtime for the same table. Sourced, not run.
#
# A table line: PLACES|PROC_BIND|T|KMP_AFFINITY|WHO[|KMP_HW_SUBSET] ("-" or
# nothing: unset; WHO "all", "llvm" for libomp and Intel only, "gomp" for
# libgomp only).
#
# One binary for all three: libomp and libiomp5 speak libgomp's ABI, so a
# directory holding "libgomp.so.1" -> the other runtime on LD_LIBRARY_PATH
# makes the app (and OpenBLAS, also linked to libgomp) run on that runtime
# alone. Loading it beside libgomp instead (LD_PRELOAD) is not the same:
# libgomp's constructor pins the initial thread to its first place before
# the other runtime starts, which then sees one CPU. KMP_VERSION's banner
# shows which runtime ran.

# omp_find_runtimes SRC: LIBOMP and IOMP5, the libraries (BINDLAB_LIBOMP,
# BINDLAB_IOMP5, else the usual places), "" when not found.
omp_find_runtimes() {
    local c
    LIBOMP=${BINDLAB_LIBOMP:-} IOMP5=${BINDLAB_IOMP5:-}
    if [ -z "$LIBOMP" ]; then
        for c in /usr/lib/llvm-*/lib/libomp.so.5 /usr/lib/x86_64-linux-gnu/libomp.so.5; do
            [ -e "$c" ] && { LIBOMP=$c; break; }
        done
    fi
    if [ -z "$IOMP5" ] && [ -e "$1/build-omp/intel-openmp/lib/libiomp5.so" ]; then
        IOMP5=$(readlink -f "$1/build-omp/intel-openmp/lib/libiomp5.so")
    fi
}

# omp_libdirs DIR: the runtimes found, in RUNTIMES, each runtime's
# LD_LIBRARY_PATH directory made under DIR (LIBDIR_libomp, LIBDIR_intel).
omp_libdirs() {
    RUNTIMES=(libgomp)
    mkdir -p "$1/libomp" "$1/intel"
    LIBDIR_libomp=$1/libomp LIBDIR_intel=$1/intel LIBDIR_libgomp=""
    if [ -n "$LIBOMP" ]; then ln -sf "$LIBOMP" "$1/libomp/libgomp.so.1"; RUNTIMES+=(libomp); else echo "libomp: not found, its rows do not run"; fi
    if [ -n "$IOMP5" ]; then ln -sf "$IOMP5" "$1/intel/libgomp.so.1"; RUNTIMES+=(intel); else echo "libiomp5: not found, its rows do not run"; fi
}

omp_row_runs() { # RUNTIME WHO
    [ "$2" = all ] || { [ "$2" = llvm ] && [ "$1" != libgomp ]; } ||
        { [ "$2" = gomp ] && [ "$1" = libgomp ]; }
}

# omp_rows RUNTIME TABLE OUT: OUT/rows.RUNTIME, the table rows RUNTIME runs.
omp_rows() {
    local row=0 places bind t kmp who hw
    : >"$3/rows.$1"
    while IFS='|' read -r places bind t kmp who hw; do
        row=$((row + 1))
        ! omp_row_runs "$1" "$who" || echo "$row" >>"$3/rows.$1"
    done <"$2"
}

# omp_run RUNTIME TABLE OUT APP MPIRUN...: one mpirun, one app context per
# row of OUT/rows.RUNTIME (omp_rows); OUT/out.RUNTIME (all output),
# OUT/real.RUNTIME ("row thread cpus" per thread). 0 or 1.
omp_run() {
    local rt=$1 table=$2 out=$3 app=$4 ctx=() row=0 libdir
    local places bind t kmp who hw
    shift 4
    libdir=LIBDIR_$rt
    libdir=${!libdir}
    while IFS='|' read -r places bind t kmp who hw; do
        row=$((row + 1))
        grep -qx "$row" "$out/rows.$rt" || continue
        [ ${#ctx[@]} -eq 0 ] || ctx+=(:)
        ctx+=(-np 1 -x OMP_NUM_THREADS="$t" -x KMP_VERSION=1 -x OMP_WAIT_POLICY=passive
            -x KMP_BLOCKTIME=0)
        [ "$places" = - ] || ctx+=(-x OMP_PLACES="$places")
        [ "$bind" = - ] || ctx+=(-x OMP_PROC_BIND="$bind")
        [ "$kmp" = - ] || ctx+=(-x KMP_AFFINITY="$kmp")
        [ "${hw:--}" = - ] || ctx+=(-x KMP_HW_SUBSET="$hw")
        [ -z "$libdir" ] || ctx+=(-x LD_LIBRARY_PATH="$libdir")
        ctx+=("$app" --kernel triad --size 64KiB --iters 1 --warmup 0 --show-placement)
    done <"$table"
    "$@" --bind-to none "${ctx[@]}" >"$out/out.$rt" 2>&1 ||
        { cat "$out/out.$rt" >&2; echo "$rt: mpirun failed" >&2; return 1; }
    # which runtime ran: KMP_VERSION's banner, from LLVM's and Intel's only
    case $rt in
    libgomp) ! grep -q "OMP version" "$out/out.$rt" || { echo "libgomp: another runtime ran" >&2; return 1; } ;;
    libomp) grep -q "^LLVM OMP version" "$out/out.$rt" || { echo "libomp did not run" >&2; return 1; } ;;
    intel) grep -q "^Intel(R) OMP version" "$out/out.$rt" || { echo "Intel's runtime did not run" >&2; return 1; } ;;
    esac
    # the placement table: host rank thread cpu core l3 numa package cpuset
    awk -v rows="$(tr '\n' ' ' <"$out/rows.$rt")" '
        BEGIN { n = split(rows, r, " ") }
        /^host +rank +thread/ { on = 1; next }
        on && NF == 9 && $2 ~ /^[0-9]+$/ { print r[$2 + 1], $3, $9; next }
        on { on = 0 }' "$out/out.$rt" | sort -n -k1,1 -k2,2 >"$out/real.$rt"
    [ -s "$out/real.$rt" ] || { cat "$out/out.$rt" >&2; echo "$rt: no placement table" >&2; return 1; }
}

# omp_plan RUNTIME TABLE OUT BINDLAB [PLAN ARGS...]: OUT/plan.RUNTIME, bindlab
# plan's CPU list of every thread of the rows in OUT/rows.RUNTIME; the rows
# of one KMP_AFFINITY and KMP_HW_SUBSET pair are one sweep file's layouts,
# planned by one bindlab plan (one mpirun for their common rank layout).
# 0 or 1.
omp_plan() {
    local rt=$1 table=$2 out=$3 bindlab=$4 group kmp_group hw_group rows row
    local places bind t kmp who hw args
    shift 4
    : >"$out/plan.$rt"
    local y=$out/rows.$rt.yaml
    awk -F'|' '{ print $4 "|" ($6 == "" ? "-" : $6) }' "$table" | sort -u >"$out/kmps.$rt"
    while IFS= read -r group; do
        kmp_group=${group%%|*} hw_group=${group#*|}
        rows=()
        printf 'name: rows\nkernels: [triad]\nlayouts:\n' >"$y"
        row=0
        while IFS='|' read -r places bind t kmp who hw; do
            row=$((row + 1))
            [ "$kmp|${hw:--}" = "$group" ] && grep -qx "$row" "$out/rows.$rt" || continue
            rows+=("$row")
            printf '  - {name: r%d, np: 1, bind_to: none, threads: %d' "$row" "$t" >>"$y"
            [ "$places" = - ] || printf ', omp_places: "%s"' "$places" >>"$y"
            [ "$bind" = - ] || printf ', omp_proc_bind: "%s"' "$bind" >>"$y"
            printf '}\n' >>"$y"
        done <"$table"
        [ ${#rows[@]} -gt 0 ] || continue
        args=(plan "$y" --omp-runtime "$rt" --format tsv "$@")
        [ "$kmp_group" = - ] || [ "$rt" = libgomp ] || args+=(--kmp-affinity "$kmp_group")
        [ "$hw_group" = - ] || [ "$rt" = libgomp ] || args+=(--kmp-hw-subset "$hw_group")
        "$bindlab" "${args[@]}" 2>"$out/plan.$rt.err" >"$out/plan.$rt.tsv" ||
            { cat "$y" "$out/plan.$rt.err" >&2; echo "$rt: bindlab ${args[*]}" >&2; return 1; }
        # run ids r0000, r0001, ... follow the layouts' order
        awk -v rows="${rows[*]}" -F'\t' '
            BEGIN { split(rows, r, " ") }
            NR > 1 { k = substr($1, 2) + 1; print r[k], $3, $4 }' \
            "$out/plan.$rt.tsv" >>"$out/plan.$rt"
    done <"$out/kmps.$rt"
    sort -n -k1,1 -k2,2 -o "$out/plan.$rt" "$out/plan.$rt"
}

# omp_compare RUNTIME TABLE OUT: 0 when the app's placement equals the
# plan's, else prints the table and the difference and returns 1.
omp_compare() {
    local rt=$1 table=$2 out=$3
    if ! diff -u "$out/plan.$rt" "$out/real.$rt" >"$out/diff.$rt"; then
        echo "--- $rt: bindlab plan (-) vs the app (+), 'row thread cpus'; rows:" >&2
        nl -ba -s'|' "$table" >&2
        cat "$out/diff.$rt" >&2
        return 1
    fi
    echo "$rt: $(wc -l <"$out/rows.$rt") settings, $(wc -l <"$out/real.$rt") threads: the app's placement equals the plan"
}
