#!/usr/bin/env bash
# libbindlab-probe.so on real runs: mpirun -np 2 --bind-to core with the
# probe preloaded into (a) bindlab-app (every rank and OpenMP thread
# recorded, each rank's start set what --report-bindings says), (b)
# probe_target, whose dlopen'ed library changes the affinity after MPI_Init
# (named as the caller, phase after-init), libgomp binding the initial
# thread under OMP_PROC_BIND=true, and a run where the program changes
# nothing, (c) a rank killed with SIGKILL (a .part file), (d) exit status
# and standard output unchanged; a raw system call seen as an unknown change,
# a forked child writing nothing, a Fortran program's init and finalize,
# an MPI library a module loaded with RTLD_LOCAL calls;
# and a static program, which gets no file.
. "$(dirname "$0")/common.sh"

B=$BINDLAB_BUILD_DIR
PROBE=$B/libbindlab-probe.so
TARGET=$B/tests/probe_target
SETTER=$B/tests/libbl_probe_setter.so
[ -f "$PROBE" ] && [ -x "$TARGET" ] && [ -f "$SETTER" ] || fail "probe or its test programs not built"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
# A sanitized build: ASan refuses a preloaded library ahead of its runtime
# unless told not to check; with its runtime preloaded first instead, its
# own pthread_create wrapper would be every thread's start routine (labels
# "libasan"). The probe defines no allocator, so its going first is safe.
PRELOAD=$PROBE
asan=$(ldd "$TARGET" | awk '$1 ~ /^libasan/ {print $3}')
[ -z "$asan" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
need_allowed_cores 2 "two ranks bound one per core"

# expand LIST: "0-2,5" as "0,1,2,5" (hwloc-calc's form).
expand() { awk -v s="$1" 'BEGIN { n = split(s, p, ","); o = "";
    for (i = 1; i <= n; i++) { if (split(p[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) o = o (o ? "," : "") c }
                               else o = o (o ? "," : "") p[i] } print o }'; }
# val FILE TYPE KEY [FILTER]: KEY's value on the lines of TYPE (matching FILTER).
val() { awk -v t="$2" -v k="$3" -v f="${4:-}" '$1 == t && index($0, f) {
    for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"; }

# probe_run DIR ARGS...: ARGS under mpirun -np 2 --bind-to core, the probe
# writing into DIR; output in DIR.out, status in rc.
probe_run() {
    local dir=$1
    shift
    mkdir -p "$dir"
    rc=0
    BINDLAB_PROBE_DIR=$dir timeout 300 "${MPIRUN[@]}" -np 2 --bind-to core --report-bindings \
        -x BINDLAB_PROBE_DIR -x LD_PRELOAD="$PRELOAD" "$@" >"$dir.out" 2>&1 || rc=$?
}

# complete_files DIR: the two finished files, one per rank, no .part left.
complete_files() {
    [ -z "$(find "$1" -name '*.part')" ] || fail "$1: .part files left: $(ls "$1")"
    files=("$1"/bindlab-probe.*)
    [ "${#files[@]}" = 2 ] || fail "$1: expected 2 probe files, got: $(ls "$1")"
    for f in "${files[@]}"; do
        head -1 "$f" | grep -qx 'bindlab-probe 1' || fail "$f: no magic line"
        tail -1 "$f" | grep -q '^end ' || fail "$f: no end line"
    done
}

# probe_of DIR RANK: the file of RANK.
probe_of() { grep -l "^process .* rank=$2 rank_from=OMPI_COMM_WORLD_RANK " "$1"/bindlab-probe.* | head -1; }

# --- (a) bindlab-app, OpenMP threads bound close on cores ---------------------
OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores \
    probe_run "$WORK/a" -x OMP_NUM_THREADS -x OMP_PROC_BIND -x OMP_PLACES \
    "$BINDLAB_APP" --kernel triad --size 8MiB --iters 3
[ "$rc" = 0 ] || fail "(a) bindlab-app under the probe: exit $rc: $(cat "$WORK/a.out")"
complete_files "$WORK/a"
"$BINDLAB" bindings "$WORK/a.out" >"$WORK/a.bindings" || fail "(a) no binding report in $WORK/a.out"
for r in 0 1; do
    f=$(probe_of "$WORK/a" $r)
    [ -n "$f" ] || fail "(a) no file for rank $r: $(head -2 "$WORK"/a/*)"
    [ "$(val "$f" process size)" = 2 ] || fail "(a) rank $r: size not 2"
    reported=$(awk -v r=$r '$1 == "rank" && $2 == r {print $6}' "$WORK/a.bindings")
    start=$(val "$f" cpus cpus "moment=start")
    # --bind-to core, mapped by core: rank r on logical core r
    core=$(hwloc-calc --physical-output --intersect PU "core:$r")
    [ "$(expand "$start")" = "$(expand "$reported")" ] ||
        fail "(a) rank $r: start cpus $start, --report-bindings says $reported"
    [ "$(expand "$start")" = "$core" ] || fail "(a) rank $r: start cpus $start, core $r has PUs $core"
    [ -n "$(val "$f" cpus cpus "moment=init")" ] && [ -n "$(val "$f" cpus cpus "moment=finalize")" ] ||
        fail "(a) rank $r: no init or finalize moment"
    # OMP_NUM_THREADS=2: the main thread and one thread libgomp starts
    [ "$(val "$f" thread label | grep -c '^openmp$')" = 1 ] || fail "(a) rank $r: not one openmp thread: $(grep '^thread ' "$f")"
    [ "$(val "$f" thread label | grep -c '^main$')" = 1 ] || fail "(a) rank $r: no main thread"
    val "$f" thread object "label=openmp" | grep -q libgomp || fail "(a) rank $r: openmp thread not from libgomp"
    for tid in $(val "$f" thread tid); do
        grep -q "^thread_end tid=$tid " "$f" || fail "(a) rank $r: thread $tid has no end"
    done
    [ -n "$(val "$f" pages n "at=finalize")" ] || fail "(a) rank $r: no pages at finalize"
done
echo "ok (a): both ranks, their OpenMP threads and start sets as reported"

# --- (b) a library that changes the affinity after MPI_Init -------------------
OMP_NUM_THREADS=2 OMP_PROC_BIND=false probe_run "$WORK/b" -x OMP_NUM_THREADS -x OMP_PROC_BIND \
    "$TARGET" --setter "$SETTER"
[ "$rc" = 0 ] || fail "(b) probe_target --setter: exit $rc: $(cat "$WORK/b.out")"
complete_files "$WORK/b"
all=$(hwloc-calc --physical-output --intersect PU all)
for f in "$WORK"/b/bindlab-probe.*; do
    line=$(grep "^affinity .*caller=$SETTER " "$f") || fail "(b) $f: no change by $SETTER: $(grep '^affinity' "$f")"
    [ "$(wc -l <<<"$line")" = 1 ] || fail "(b) $f: more than one change by the setter"
    grep -q " phase=after-init call=sched_setaffinity " <<<"$line" || fail "(b) $f: $line"
    grep -q " changed=1 ok=1 " <<<"$line" || fail "(b) $f: not a change: $line"
    [ "$(expand "$(val - affinity new <<<"$line")")" = "$all" ] || fail "(b) $f: new set not all PUs ($all): $line"
done
OMP_NUM_THREADS=2 OMP_PROC_BIND=true probe_run "$WORK/b2" -x OMP_NUM_THREADS -x OMP_PROC_BIND "$TARGET"
[ "$rc" = 0 ] || fail "(b) OMP_PROC_BIND=true: exit $rc: $(cat "$WORK/b2.out")"
complete_files "$WORK/b2"
for f in "$WORK"/b2/bindlab-probe.*; do
    grep -q '^affinity .* call=pthread_setaffinity_np .* caller=[^ ]*libgomp[^ ]* by=openmp$' "$f" ||
        fail "(b) OMP_PROC_BIND=true: libgomp's binding of the initial thread not recorded: $(grep '^affinity' "$f")"
done
OMP_NUM_THREADS=2 OMP_PROC_BIND=false probe_run "$WORK/b3" -x OMP_NUM_THREADS -x OMP_PROC_BIND "$TARGET"
[ "$rc" = 0 ] || fail "(b) no change: exit $rc: $(cat "$WORK/b3.out")"
complete_files "$WORK/b3"
# The MPI library may bind and unbind while it initialises (Open MPI's PSM
# components do, as they probe): only the init phase may hold changes.
for f in "$WORK"/b3/bindlab-probe.*; do
    if grep '^affinity ' "$f" | grep -v ' phase=init '; then
        fail "(b) a run that changes nothing recorded changes outside MPI_Init"
    fi
done
echo "ok (b): the setter library named after init, libgomp's binding, nothing when nothing changes"

# --- a change behind the interposers (raw system call), and fork ---------------
# (sanitized: no leak check, which in a forked child of an MPI process
# hangs on threads of the parent, with or without the probe)
leaks=${ASAN_OPTIONS:-}
[ -z "$asan" ] || leaks="$leaks:detect_leaks=0"
ASAN_OPTIONS=$leaks OMP_NUM_THREADS=2 OMP_PROC_BIND=false probe_run "$WORK/r" \
    -x OMP_NUM_THREADS -x OMP_PROC_BIND "$TARGET" --raw --fork
[ "$rc" = 0 ] || fail "--raw --fork: exit $rc: $(cat "$WORK/r.out")"
# the forked children (no exec) write nothing: two files, the ranks'
complete_files "$WORK/r"
for f in "$WORK"/r/bindlab-probe.*; do
    pid=$(val "$f" process pid)
    line=$(grep '^affinity .* call=unknown ' "$f") || fail "raw system call not seen: $(grep '^affinity' "$f")"
    grep -q "target=$pid phase=after-init call=unknown " <<<"$line" || fail "raw change: $line"
    [ "$(expand "$(val - affinity new <<<"$line")")" = "$all" ] || fail "raw change: new set not $all: $line"
    # the child's own sched_setaffinity is in no file
    if grep '^affinity .* call=sched_setaffinity ' "$f" | grep -v ' phase=init '; then
        fail "a forked child's affinity call went into its parent's file"
    fi
done
echo "ok: a raw change recorded as unknown after init; a forked child writes nothing"

# --- (c) killed mid-run ---------------------------------------------------------
mkdir -p "$WORK/c" "$WORK/c.ready"
BINDLAB_PROBE_DIR=$WORK/c LD_PRELOAD=$PRELOAD OMP_NUM_THREADS=2 "$TARGET" --ready "$WORK/c.ready" --wait \
    >"$WORK/c.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e "$WORK/c.ready/ready.0" ] && break; sleep 0.1; done
[ -e "$WORK/c.ready/ready.0" ] || { kill -9 $pid; fail "(c) probe_target never got ready: $(cat "$WORK/c.out")"; }
kill -9 $pid
wait $pid 2>/dev/null || true
part=("$WORK"/c/bindlab-probe.*.part)
[ -f "${part[0]}" ] || fail "(c) no .part file after SIGKILL: $(ls "$WORK/c")"
[ "$(find "$WORK/c" -type f | wc -l)" = 1 ] || fail "(c) other files beside the .part: $(ls "$WORK/c")"
grep -q '^end ' "${part[0]}" && fail "(c) a killed process's file has an end line"
grep -q '^cpus moment=init ' "${part[0]}" || fail "(c) the .part lost what was written before the kill"
echo "ok (c): SIGKILL leaves a .part file without end"

# --- (d) exit status and standard output unchanged ------------------------------
"${MPIRUN[@]}" -np 2 --bind-to core "$TARGET" --exit 3 >"$WORK/d.plain" 2>/dev/null && fail "(d) exit 3 not seen without the probe"
mkdir -p "$WORK/d"
rc=0
BINDLAB_PROBE_DIR=$WORK/d "${MPIRUN[@]}" -np 2 --bind-to core -x BINDLAB_PROBE_DIR -x LD_PRELOAD="$PRELOAD" \
    "$TARGET" --exit 3 >"$WORK/d.probed" 2>/dev/null || rc=$?
[ "$rc" != 0 ] || fail "(d) exit 3 lost under the probe (mpirun exited 0)"
for x in 0 3; do
    rc=0
    BINDLAB_PROBE_DIR=$WORK/d LD_PRELOAD=$PRELOAD "$TARGET" --exit $x >"$WORK/d.single.$x" \
        2>"$WORK/d.single.err.$x" || rc=$?
    [ "$rc" = $x ] || fail "(d) singleton: exit $x became $rc under the probe"
    "$TARGET" --exit $x >"$WORK/d.bare.$x" 2>"$WORK/d.bare.err.$x" || true
    cmp "$WORK/d.single.$x" "$WORK/d.bare.$x" || fail "(d) stdout changed by the probe"
    # (a sanitized build's leak reports at exit carry addresses)
    [ -n "$asan" ] || cmp "$WORK/d.single.err.$x" "$WORK/d.bare.err.$x" ||
        fail "(d) stderr changed by the probe"
done
cmp "$WORK/d.plain" "$WORK/d.probed" || fail "(d) mpirun output changed by the probe"
[ -s "$WORK/d.bare.0" ] || fail "(d) probe_target printed nothing: the comparison proves nothing"
echo "ok (d): exit status and stdout the same with and without the probe"

# --- Fortran: gfortran's mpi_init_ / mpi_finalize_ -------------------------------
# (compiled here: the project has no Fortran; scripts/deps.sh installs
# gfortran, so a missing mpif90 is a failure, not a part left out)
command -v mpif90 >/dev/null || fail "no mpif90 (scripts/deps.sh installs gfortran)"
{
    mpif90 -o "$WORK/mpi_hello" "$(dirname "$0")/probe/mpi_hello.f90" || fail "mpif90 failed"
    probe_run "$WORK/f" "$WORK/mpi_hello"
    [ "$rc" = 0 ] || fail "Fortran program: exit $rc: $(cat "$WORK/f.out")"
    complete_files "$WORK/f"
    for f in "$WORK"/f/bindlab-probe.*; do
        grep -q '^mpi call=mpi_init_ .* rc=0$' "$f" && grep -q '^mpi call=mpi_finalize_ ' "$f" ||
            fail "Fortran: mpi_init_ / mpi_finalize_ not seen: $(grep '^mpi' "$f")"
        [ "$(grep -c '^mpi ' "$f")" = 2 ] || fail "Fortran: an MPI call recorded twice: $(grep '^mpi' "$f")"
        grep -q '^cpus moment=init ' "$f" && grep -q '^cpus moment=finalize ' "$f" ||
            fail "Fortran: no init or finalize moment"
    done
    echo "ok: a Fortran program's mpi_init_ and mpi_finalize_"
}

# --- an MPI library loaded with RTLD_LOCAL (as Python loads mpi4py's) -----------
# local_loader links no MPI; the module it dlopens does, out of the global
# scope dlsym(RTLD_NEXT) searches: the hooks must still reach MPI.
probe_run "$WORK/l" "$B/tests/local_loader" "$B/tests/libbl_mpi_module.so"
[ "$rc" = 0 ] || fail "MPI loaded RTLD_LOCAL: exit $rc under the probe: $(cat "$WORK/l.out")"
complete_files "$WORK/l"
for f in "$WORK"/l/bindlab-probe.*; do
    grep -q '^mpi call=MPI_Init_thread .* rc=0$' "$f" && grep -q '^mpi call=MPI_Finalize ' "$f" ||
        fail "MPI loaded RTLD_LOCAL: init or finalize not forwarded: $(grep '^mpi' "$f")"
done
echo "ok: an MPI library loaded RTLD_LOCAL is reached"

# --- a static program: nothing to preload into, no file -------------------------
mkdir -p "$WORK/s"
(cd "$WORK/s" && LD_PRELOAD=$PROBE "$B/tests/probe_static" >/dev/null) || fail "static program failed"
file "$B/tests/probe_static" | grep -q 'statically linked' || fail "probe_static is not static"
[ -z "$(ls "$WORK/s")" ] || fail "a static program got a probe file: $(ls "$WORK/s")"
echo "ok: a static program gets no file"
