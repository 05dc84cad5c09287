#!/usr/bin/env bash
# bindlab-app under real mpirun, every expectation taken from this machine:
# - the run file has the ranks launched (2, or 1 when this process may use
#   one core only), each rank's recorded cpuset equals what
#   --report-bindings printed for it, the answer is verified;
# - the local page fraction is 1 wherever every thread is bound inside one
#   NUMA node that has memory (first touch puts each page there), on any
#   number of NUMA nodes;
# - every counter is available exactly when the kernel offers its event to
#   this process (tests/perf_probe asks perf_event_open directly; `perf stat`
#   confirms the probe when it works);
# - --show-placement prints its columns, one row per thread, each with the
#   launcher's binding and the topology of its CPU as hwloc-calc names it;
# - bad input exits 2 with one line and leaves no file.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PERF_PROBE="$BINDLAB_BUILD_DIR/tests/perf_probe"
unset BINDLAB_COUNTERS # the checks below are of counting, not of its switch

# expand_list "0-2,5" -> "0 1 2 5"
expand_list() {
    local part parts list=()
    IFS=, read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then
            mapfile -t -O "${#list[@]}" list < <(seq "${part%-*}" "${part#*-}")
        else
            list+=("$part")
        fi
    done
    echo "${list[*]}"
}

# --- What this process may use ---------------------------------------------
ALLOWED=$(expand_list "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)")
core_of() { # a CPU's core, as the set of its hardware threads
    local t=/sys/devices/system/cpu/cpu$1/topology
    cat "$t/core_cpus_list" 2>/dev/null || cat "$t/thread_siblings_list"
}
NCORES=$(for c in $ALLOWED; do core_of "$c"; done | sort -u | wc -l)
NP=$((NCORES >= 2 ? 2 : 1))
echo "this process may use CPUs $(echo "$ALLOWED" | tr ' ' ,): $NCORES core(s), $NP rank(s)"

# Open MPI 5 calls a socket a package.
OMPI_MAJOR=$(mpirun --version 2>/dev/null | sed -n 's/.*Open MPI) \([0-9]*\)\..*/\1/p' | head -1)
SOCKET=socket
if [ "${OMPI_MAJOR:-4}" -ge 5 ]; then SOCKET=package; fi

# Whether a NUMA node has memory, from /sys (node_of: common.sh).
node_has_memory() {
    local m=/sys/devices/system/node/node$1/meminfo
    [ ! -e "$m" ] || awk '/MemTotal:/ {exit !($4 > 0)}' "$m"
}

# expect_local_pages NAME RULE: every rank's thread 0 is bound to the CPUs
# RULE says (rank: the rank's claimed cpus; first-pu: their first PU); when
# those lie in one NUMA node with memory, all pages must be local.
expect_local_pages() {
    local name=$1 rule=$2 line cpus nodes
    while read -r line; do
        cpus=$(expand_list "$(awk '{print $4}' <<<"$line")")
        [ "$rule" = first-pu ] && cpus=${cpus%% *}
        nodes=$(for c in $cpus; do node_of "$c"; done | sort -u)
        if [ "$(wc -l <<<"$nodes")" != 1 ]; then
            echo "note: $name: ${line%% cpus*} is bound across NUMA nodes" \
                "${nodes//$'\n'/ }; local_page_fraction not predicted"
            return
        fi
        if ! node_has_memory "$nodes"; then
            echo "note: $name: NUMA node $nodes has no memory;" \
                "local_page_fraction not predicted"
            return
        fi
    done <"$WORK/$name.claimed"
    expect_line "$WORK/$name.dump" "local_page_fraction 1.000000"
}

# run_layout NAME INIT RULE MPIRUN-OPTIONS...: run the app, check the file.
run_layout() {
    local name=$1 init=$2 rule=$3 rc=0
    shift 3
    local out="$WORK/$name.h5"
    OMP_NUM_THREADS=1 "${MPIRUN[@]}" -np "$NP" --report-bindings "$@" \
        -x OMP_NUM_THREADS "$BINDLAB_APP" --size 24MiB --iters 3 --warmup 1 \
        --init "$init" --out "$out" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
        rc=$?
    if [ "$rc" != 0 ]; then
        cat "$WORK/$name.err" >&2
        fail "$name: mpirun exited $rc"
    fi
    "$RUNFILE_DUMP" "$out" >"$WORK/$name.dump"
    expect_line "$WORK/$name.dump" "ranks $NP"
    expect_line "$WORK/$name.dump" "verified 1"
    expect_line "$WORK/$name.dump" "status ok"
    # The launcher's claim, through the harness's own parser ...
    "$BINDLAB" bindings "$WORK/$name.err" |
        awk '{print $1, $2, $5, $6}' >"$WORK/$name.claimed"
    # ... against what each rank recorded.
    grep '^rank ' "$WORK/$name.dump" >"$WORK/$name.seen"
    [ "$(wc -l <"$WORK/$name.claimed")" = "$NP" ] ||
        { cat "$WORK/$name.err" >&2; fail "$name: report has no $NP ranks"; }
    diff -u "$WORK/$name.claimed" "$WORK/$name.seen" ||
        fail "$name: recorded cpusets differ from --report-bindings"
    grep -q '^bindlab-app: result kernel=triad verified=yes' "$WORK/$name.out" ||
        fail "$name: no result line"
    expect_local_pages "$name" "$rule"
    echo "ok: $name ($(tr '\n' ' ' <"$WORK/$name.claimed"))"
}

run_layout core-close parallel rank --map-by core --bind-to core \
    -x OMP_PROC_BIND=close -x OMP_PLACES=cores
run_layout core-serial serial rank --map-by core --bind-to core \
    -x OMP_PROC_BIND=close -x OMP_PLACES=cores
run_layout core-unset parallel rank --map-by core --bind-to core
# One thread, OMP_PLACES=threads: bound to the first PU of the rank's set.
run_layout socket parallel first-pu --map-by "$SOCKET" --bind-to "$SOCKET" \
    -x OMP_PROC_BIND=spread -x OMP_PLACES=threads

# --- Counters: available exactly when the kernel offers the event ----------
"$PERF_PROBE" >"$WORK/probe"
# perf is installed (scripts/deps.sh): one that does not run is a failure.
perf stat -x, -e page-faults -- true >/dev/null 2>"$WORK/perf.check" ||
    fail "perf stat does not run here: $(head -1 "$WORK/perf.check") (scripts/deps.sh installs linux-perf)"
{
    # A second opinion on the probe: perf's own verdict for each event.
    while read -r name event offered; do
        perf stat -x, -e "$event" -- true >/dev/null 2>"$WORK/perf.out" || true
        seen=1
        grep -q '<not supported>\|<not counted>' "$WORK/perf.out" && seen=0
        case $event in cpu-migrations|context-switches) continue ;; esac
        [ "$seen" = "$offered" ] ||
            fail "perf_probe says $event=$offered, perf stat says $seen"
    done <"$WORK/probe"
    echo "ok: perf stat agrees with perf_probe"
}
dump="$WORK/core-close.dump"
[ "$(grep -c '^counter ' "$dump")" = 6 ] || fail "expected 6 counters"
while read -r name event offered; do
    if grep -qxF "counter $name available 1" "$dump"; then got=1; else got=0; fi
    source=$(awk -v n="$name" '$1 == "counter_value" && $2 == n {print $5}' "$dump")
    if [ "$offered" = 1 ]; then
        [ "$got" = 1 ] || fail "the kernel offers $event, but $name is unavailable: $(grep "^counter_note $name " "$dump")"
    elif [ "$got" = 1 ]; then
        # Only PAPI may count what the kernel's generic events lack.
        [[ $source == papi:* ]] ||
            fail "$name available from '$source', but the kernel does not offer $event"
    else
        grep -q "^counter_note $name .*kernel: " "$dump" ||
            fail "$name unavailable without the kernel's reason"
    fi
    echo "ok: counter $name: kernel offers $event=$offered, recorded available=$got ($source)"
done <"$WORK/probe"

# --- --show-placement: columns, rows, bindings and topology ----------------
OMP_NUM_THREADS=2 "${MPIRUN[@]}" -np "$NP" --report-bindings --map-by core \
    --bind-to core -x OMP_NUM_THREADS -x OMP_PROC_BIND=close -x OMP_PLACES=cores \
    "$BINDLAB_APP" --size 8MiB --iters 2 --show-placement --out "$WORK/show.h5" \
    >"$WORK/show.out" 2>"$WORK/show.err" || { cat "$WORK/show.err" >&2; fail "show-placement run failed"; }
"$BINDLAB" bindings "$WORK/show.err" | awk '{print $2, $6}' >"$WORK/show.claimed"
header=$(grep -m1 '^host ' "$WORK/show.out" | tr -s ' ')
[ "$header" = "host rank thread cpu core l3 numa package cpuset" ] ||
    fail "--show-placement header is '$header'"
awk 'f && NF == 9 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/; /^host /{f=1}' \
    "$WORK/show.out" >"$WORK/show.rows"
[ "$(wc -l <"$WORK/show.rows")" = $((NP * 2)) ] ||
    { cat "$WORK/show.out" >&2; fail "--show-placement: expected $((NP * 2)) rows"; }
[ "$(awk '{print $2 "." $3}' "$WORK/show.rows" | sort -u | wc -l)" = $((NP * 2)) ] ||
    fail "--show-placement: a (rank, thread) appears twice"
# hwloc-calc's logical index of the object of TYPE holding PU cpu, -1 if none.
logical() {
    local v
    v=$(hwloc-calc --physical-input --logical-output "pu:$2" --intersect "$1" 2>/dev/null)
    echo "${v:--1}"
}
while read -r host rank thread cpu core l3 numa package cpuset; do
    [ "$host" = "$(hostname)" ] || fail "row $rank.$thread: host $host, this is $(hostname)"
    claimed=$(awk -v r="$rank" '$1 == r {print $2}' "$WORK/show.claimed")
    # A thread of a rank bound to one core, OMP_PLACES=cores: the core.
    [ "$(expand_list "$cpuset")" = "$(expand_list "$claimed")" ] ||
        fail "row $rank.$thread: cpuset $cpuset, the launcher bound rank $rank to $claimed"
    [[ " $(expand_list "$cpuset") " == *" $cpu "* ]] ||
        fail "row $rank.$thread: cpu $cpu is outside its cpuset $cpuset"
    want="$(logical core "$cpu") $(logical l3cache "$cpu") $(logical numa "$cpu") $(logical package "$cpu")"
    [ "$core $l3 $numa $package" = "$want" ] ||
        fail "row $rank.$thread: core l3 numa package '$core $l3 $numa $package', hwloc-calc says '$want' for PU $cpu"
done <"$WORK/show.rows"
echo "ok: --show-placement ($(wc -l <"$WORK/show.rows") rows match the launcher and hwloc-calc)"

# --- Bad input: exit status 2, one line naming the option, no file ---------
for bad in "--size 12XB" "--iters zero" "--init lazy" "--bogus" "--size 900TiB"; do
    set +e
    # shellcheck disable=SC2086 # word splitting of $bad is intended
    "${MPIRUN[@]}" -np "$NP" "$BINDLAB_APP" $bad --out "$WORK/bad.h5" \
        >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "'$bad': exit status $rc, expected 2"
    [ "$(grep -c '^bindlab-app:' "$WORK/bad.err")" = 1 ] ||
        fail "'$bad': expected one bindlab-app line on stderr"
    ls "$WORK"/bad.h5* >/dev/null 2>&1 && fail "'$bad' left a file"
    echo "ok: '$bad' -> exit 2: $(grep '^bindlab-app:' "$WORK/bad.err")"
done
echo "all checks passed"
