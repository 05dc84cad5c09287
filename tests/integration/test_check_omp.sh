#!/bin/bash
# bindlab check's OpenMP lint under each runtime: libgomp (no runtime
# loaded: judged as libgomp; and libgomp.so.1 preloaded), LLVM's libomp and
# Intel's libiomp5 (preloaded into bindlab check, as a user's LD_PRELOAD
# would). Each finding is provoked with the same variables the real runtime
# then reads: omp_places_probe runs one parallel region under that runtime
# (preloaded ahead of its own libgomp) and whatever the runtime prints is
# what bindlab check must quote. Cheap: a few dozen runs of milliseconds.
#
# BINDLAB_APP_LIBOMP: the app built with clang and libomp (its libomp is
# the one used); BINDLAB_LIBIOMP5: Intel's libiomp5.so. Unset: build-omp-libomp/
# (cmake -S . -B build-omp-libomp -DCMAKE_C_COMPILER=clang) and
# build-omp/intel-openmp/ (a venv with PyPI's intel-openmp) in the source tree.
# A runtime missing: exit 77.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
APP_LIBOMP=${BINDLAB_APP_LIBOMP:-$SRC/build-omp-libomp/bindlab-app}
LIBIOMP5=${BINDLAB_LIBIOMP5:-$SRC/build-omp/intel-openmp/lib/libiomp5.so}
PROBE="$BINDLAB_BUILD_DIR/tests/omp_places_probe"
[ -x "$PROBE" ] || fail "$PROBE not built"
[ -x "$APP_LIBOMP" ] || { echo "SKIP: no clang+libomp app at $APP_LIBOMP (set BINDLAB_APP_LIBOMP, or build it: cmake -S . -B build-omp-libomp -DCMAKE_C_COMPILER=clang)"; exit 77; }
LIBOMP=$(ldd "$APP_LIBOMP" | awk '/libomp\.so/ && !n { print $3; n = 1 }')
[ -f "$LIBOMP" ] || { echo "SKIP: $APP_LIBOMP loads no libomp.so"; exit 77; }
[ -f "$LIBIOMP5" ] || { echo "SKIP: no Intel libiomp5.so at $LIBIOMP5 (set BINDLAB_LIBIOMP5: pip install intel-openmp gives lib/libiomp5.so)"; exit 77; }
LIBGOMP=$(ldd "$PROBE" | awk '/libgomp\.so/ && !n { print $3; n = 1 }')
[ -f "$LIBGOMP" ] || fail "$PROBE loads no libgomp.so"
# A sanitized build wants its runtime first; these preloads come first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

CLEAN=(env -u OMP_PLACES -u OMP_PROC_BIND -u OMP_NUM_THREADS -u KMP_AFFINITY
    -u KMP_HW_SUBSET -u GOMP_CPU_AFFINITY -u OMP_DISPLAY_ENV -u LD_PRELOAD
    -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u PMIX_RANK -u SLURM_PROCID)

allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${allowed%%[-,]*}
# A CPU outside "taskset -c $first": another online one, else one past the last.
mapfile -t cpus < <(tr ',' '\n' </sys/devices/system/cpu/online |
    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }')
other=""
for c in "${cpus[@]}"; do [ "$c" != "$first" ] && { other=$c; break; }; done
[ -n "$other" ] || other=$((${cpus[-1]} + 1))
ONE=(taskset -c "$first")
echo "runtimes: libgomp $LIBGOMP, libomp $LIBOMP, intel $LIBIOMP5; CPU $first allowed, $other not"

# check NAME PRELOAD [env/prefix...]: bindlab check; output $WORK/NAME.
check() {
    local name=$1 pre=$2; shift 2
    "${CLEAN[@]}" ${pre:+LD_PRELOAD=$pre} "$@" "$BINDLAB" check \
        >"$WORK/$name" 2>&1 || true
}
# runtime NAME PRELOAD [env/prefix...]: the real runtime's messages.
runtime() {
    local name=$1 pre=$2; shift 2
    "${CLEAN[@]}" ${pre:+LD_PRELOAD=$pre} "$@" OMP_NUM_THREADS=2 "$PROBE" run \
        >"$WORK/$name.rt" 2>&1 || true
}
has() { grep -q -- "$2" "$WORK/$1" || { cat "$WORK/$1" >&2; fail "$1: expected '$2'"; }; }
hasnt() { ! grep -q -- "$2" "$WORK/$1" || { cat "$WORK/$1" >&2; fail "$1: did not expect '$2'"; }; }
# quotes NAME ID PATTERN: the runtime printed a line matching PATTERN, and
# finding ID of bindlab check holds that line word for word.
quotes() {
    local line
    line=$(grep -m1 -- "$3" "$WORK/$1.rt") || { cat "$WORK/$1.rt" >&2; fail "$1: the runtime printed no '$3'"; }
    line=$(printf '%s' "$line" | sed 's/[[:space:]]*$//')
    grep "^warning $2: " "$WORK/$1" | grep -qF -- "$line" ||
        { cat "$WORK/$1" >&2; fail "$1: finding $2 does not quote the runtime's '$line'"; }
}
# both NAME PRELOAD ID PATTERN [env/prefix...]: the case under the runtime
# and under bindlab check, compared.
both() {
    local name=$1 pre=$2 id=$3 pattern=$4; shift 4
    runtime "$name" "$pre" "$@"
    check "$name" "$pre" "$@"
    quotes "$name" "$id" "$pattern"
}

# --- libgomp ----------------------------------------------------------------
check none ""
has none '^openmp runtime unknown (none loaded in this process): judged as libgomp'
hasnt none '^warning'
check gomp-loaded "$LIBGOMP"
has gomp-loaded "^openmp runtime libgomp (libgomp.so.1 loaded in this process)"
for pre in "" "$LIBGOMP"; do
    both places-bad "$pre" omp-places-invalid 'libgomp: Invalid value .*OMP_PLACES' env 'OMP_PLACES={0:'
    has places-bad "at character 4"
    both bind-bad "$pre" omp-proc-bind-invalid 'libgomp: Invalid value .*OMP_PROC_BIND' env OMP_PROC_BIND=bogus
    both places-out "$pre" places-outside-allowed 'libgomp: Number of places reduced' \
        "${ONE[@]}" env OMP_PLACES="{$first},{$other}" OMP_PROC_BIND=close
    has places-out "names CPU $other, outside the CPUs this process may use ($first)"
    both places-none "$pre" places-outside-allowed 'libgomp: None of the places' \
        "${ONE[@]}" env OMP_PLACES="{$other}" OMP_PROC_BIND=close
done
check kmp-gomp "$LIBGOMP" env KMP_AFFINITY=compact KMP_HW_SUBSET=1c
has kmp-gomp '^warning kmp-ignored: KMP_AFFINITY=compact is set, but libgomp'
check gomp-both "$LIBGOMP" env GOMP_CPU_AFFINITY="$first" OMP_PLACES="{$first}"
has gomp-both '^warning gomp-cpu-affinity-ignored: .*libgomp uses OMP_PLACES only'
# Cores from a given topology: each CPU k of this machine alone on core k
# (its SMT sibling k+N does not exist here), so two threads on one CPU share
# a core while the other allowed CPUs' cores idle; libgomp does put both
# threads of OMP_PLACES='{C},{C}' on CPU C.
N=$((${cpus[-1]} + 1))
idx=""; for ((k = 0; k < N; k++)); do idx="$idx${idx:+,}$k,$((k + N))"; done
SMT="pack:1 core:$N pu:2(indexes=$idx)"
"${CLEAN[@]}" OMP_PLACES="{$first},{$first}" OMP_PROC_BIND=close OMP_NUM_THREADS=2 \
    "$PROBE" run >"$WORK/smt.rt" 2>&1 || { cat "$WORK/smt.rt" >&2; fail "probe: OMP_PLACES={$first},{$first}"; }
grep -q "threads=0:0:$first 1:1:$first\$" "$WORK/smt.rt" ||
    fail "libgomp did not put both threads on CPU $first: $(cat "$WORK/smt.rt")"
smt() { # smt NAME PLACES: check with the threads on SMT-topology places
    "${CLEAN[@]}" OMP_PLACES="$2" OMP_PROC_BIND=close OMP_NUM_THREADS=2 \
        "$BINDLAB" check --topology "$SMT" >"$WORK/$1" 2>&1 || true
}
if [ "$allowed" != "$first" ]; then
    smt smt-shared "{$first},{$first}"
    has smt-shared "^warning smt-siblings: OMP_PLACES={$first},{$first} with OMP_PROC_BIND=close puts the 2 threads on CPUs $first, two or more sharing core $first "
else
    echo "not run: smt-siblings needs a second allowed CPU for an idle core"
fi
smt smt-apart "{$first},{$other}"
hasnt smt-apart 'smt-siblings'
has smt-apart "^openmp OMP_NUM_THREADS=2 OMP_PLACES={$first},{$other} OMP_PROC_BIND=close\$"

# --- LLVM's libomp ----------------------------------------------------------
check omp-loaded "$LIBOMP"
has omp-loaded "^openmp runtime libomp (libomp.so.5 loaded in this process)"
both places-bad-omp "$LIBOMP" omp-places-invalid 'OMP: Warning .*OMP_PLACES: syntax error' env 'OMP_PLACES={0:'
both places-ws-omp "$LIBOMP" omp-places-invalid 'OMP: Warning .*OMP_PLACES: syntax error' env 'OMP_PLACES= threads '
both bind-bad-omp "$LIBOMP" omp-proc-bind-invalid 'OMP: Warning .*OMP_PROC_BIND' env OMP_PROC_BIND=bogus
both kmp-over "$LIBOMP" kmp-affinity-overrides 'OMP_PROC_BIND: ignored because KMP_AFFINITY' \
    env KMP_AFFINITY=compact OMP_PROC_BIND=spread
both proclist-out "$LIBOMP" places-outside-allowed "Ignoring invalid OS proc ID $other" \
    "${ONE[@]}" env KMP_AFFINITY="explicit,proclist=[$first,$other]"
check kmp-subset "$LIBOMP" env KMP_HW_SUBSET=1c OMP_PROC_BIND=close
has kmp-subset '^warning kmp-hw-subset: KMP_HW_SUBSET=1c: libomp'
# Named instead of loaded: the same judgement.
"${CLEAN[@]}" OMP_PROC_BIND=bogus "$BINDLAB" check --omp-runtime libomp >"$WORK/named-omp" 2>&1 || true
has named-omp '^openmp runtime libomp (--omp-runtime)'
has named-omp '^warning omp-proc-bind-invalid: .*"OMP: Warning #42'

# --- Intel's libiomp5 -------------------------------------------------------
check iomp-loaded "$LIBIOMP5"
has iomp-loaded "^openmp runtime intel (libiomp5.so loaded in this process)"
both places-bad-iomp "$LIBIOMP5" omp-places-invalid 'OMP: Warning .*OMP_PLACES: syntax error' env 'OMP_PLACES={0:'
both gomp-over-iomp "$LIBIOMP5" gomp-cpu-affinity-overrides 'OMP_PLACES: ignored because GOMP_CPU_AFFINITY' \
    env GOMP_CPU_AFFINITY="$first" OMP_PLACES="{$first}" OMP_PROC_BIND=close
both gomp-out-iomp "$LIBIOMP5" places-outside-allowed "Ignoring invalid OS proc ID $other" \
    "${ONE[@]}" env GOMP_CPU_AFFINITY="$first $other"
has gomp-out-iomp "GOMP_CPU_AFFINITY='$first $other' names CPU $other"
both gomp-kmp-iomp "$LIBIOMP5" gomp-cpu-affinity-ignored 'GOMP_CPU_AFFINITY: ignored because KMP_AFFINITY' \
    env GOMP_CPU_AFFINITY="$first" KMP_AFFINITY=compact
# --json names the runtime and the variables.
"${CLEAN[@]}" LD_PRELOAD="$LIBIOMP5" KMP_AFFINITY=compact OMP_PROC_BIND=close \
    "$BINDLAB" check --json >"$WORK/json" 2>"$WORK/json.err" || true
python3 - "$WORK/json" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["omp_runtime"] == "intel", o["omp_runtime"]
assert o["omp_runtime_from"] == "libiomp5.so loaded in this process", o["omp_runtime_from"]
assert o["KMP_AFFINITY"] == "compact" and o["GOMP_CPU_AFFINITY"] is None, o
assert "kmp-affinity-overrides" in [f["id"] for f in o["findings"]], o["findings"]
PY
echo "ok: bindlab check's OpenMP findings match libgomp, libomp and libiomp5"
