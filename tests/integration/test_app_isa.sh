#!/bin/bash
# bindlab-app's ISA level (docs/kernels/isa.md): for every level this CPU
# runs (from /proc/cpuinfo's flags, not from bindlab), BINDLAB_ISA=LEVEL
# gives a run file whose /run isa, isa_asked, ranks.isa and machine
# isa_levels say so (read with h5py, not bindlab's reader), and a stencil
# checksum equal to the lowest level's (unit.test_isa compares every loop
# bit for bit, the LU's included); a level the CPU lacks is refused (exit
# 2, one line naming it) and reported here as not testable; --isa beats
# BINDLAB_ISA. One rank (MPI singleton), small sizes, six runs.
source "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }

flags=" $(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1) "
has() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
runs=() lacks=()
if [ "$(uname -m)" = x86_64 ]; then
    runs+=(sse2)
    v3=(avx2 fma bmi1 bmi2 f16c movbe)
    if has "${v3[@]}"; then runs+=(avx2); else lacks+=(avx2); fi
    if has "${v3[@]}" avx512f avx512bw avx512cd avx512dq avx512vl; then
        runs+=(avx512); else lacks+=(avx512); fi
else
    runs+=(generic); lacks+=(sse2 avx2 avx512)
fi
want_levels=$(IFS=,; echo "${runs[*]}")
echo "this CPU runs: $want_levels; lacks: ${lacks[*]:-none}"

# facts FILE: "isa I asked A ranks R levels L checksum C"
facts() {
    "$PY" - "$1" <<'EOF'
import sys, h5py
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[1], "r") as f:
    r = f["run"]
    ranks = ",".join(s(x) for x in r["ranks"]["isa"])
    print("isa", s(r.attrs["isa"]), "asked", s(r.attrs["isa_asked"]),
          "ranks", ranks, "levels", s(f["machine"].attrs["isa_levels"]),
          "checksum", repr(float(r["result"].attrs["checksum"])))
EOF
}

declare -A first
for level in "${runs[@]}"; do
    for k in "stencil --grid 400 --radius 3"; do
        name=${k%% *}.$level
        # shellcheck disable=SC2086
        BINDLAB_ISA=$level OMP_NUM_THREADS=2 "$BINDLAB_APP" --kernel $k \
            --iters 2 --warmup 0 --out "$WORK/$name.h5" >"$WORK/$name.out" 2>&1 ||
            { cat "$WORK/$name.out" >&2; fail "BINDLAB_ISA=$level $k: exit non-zero"; }
        got=$(facts "$WORK/$name.h5")
        echo "$name: $got"
        [[ $got == "isa $level asked $level ranks $level levels $want_levels "* ]] ||
            fail "BINDLAB_ISA=$level: the run file says '$got'"
        sum=${got##* checksum }
        [ -n "${first[${k%% *}]:-}" ] || first[${k%% *}]=$sum
        [ "$sum" = "${first[${k%% *}]}" ] ||
            fail "$k: checksum $sum at $level, ${first[${k%% *}]} at ${runs[0]}"
    done
done

for level in "${lacks[@]}"; do
    rc=0
    BINDLAB_ISA=$level "$BINDLAB_APP" --kernel triad --size 24MiB \
        >"$WORK/lack.out" 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "BINDLAB_ISA=$level (lacking): exit $rc, not 2"
    grep -q "BINDLAB_ISA: ISA level '$level'" "$WORK/lack.out" ||
        fail "BINDLAB_ISA=$level: no line naming it: $(cat "$WORK/lack.out")"
    echo "not testable here: $level ($(grep -o "ISA level.*" "$WORK/lack.out"))"
done

# --isa beats BINDLAB_ISA (here a bad one, which alone would be refused)
BINDLAB_ISA=nonsense "$BINDLAB_APP" --kernel triad --size 24MiB --iters 1 \
    --warmup 0 --isa "${runs[0]}" --out "$WORK/opt.h5" >"$WORK/opt.out" 2>&1 ||
    { cat "$WORK/opt.out" >&2; fail "--isa ${runs[0]} with BINDLAB_ISA=nonsense failed"; }
got=$(facts "$WORK/opt.h5")
[[ $got == "isa ${runs[0]} asked ${runs[0]} "* ]] || fail "--isa ${runs[0]}: '$got'"
rc=0
BINDLAB_ISA=nonsense "$BINDLAB_APP" --kernel triad --size 24MiB >"$WORK/bad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "accepted are best" "$WORK/bad.out" ||
    fail "BINDLAB_ISA=nonsense: exit $rc, $(cat "$WORK/bad.out")"
# without either: the best level, asked "best"
"$BINDLAB_APP" --kernel triad --size 24MiB --iters 1 --warmup 0 \
    --out "$WORK/best.h5" >/dev/null 2>&1 || fail "default run failed"
got=$(facts "$WORK/best.h5")
[[ $got == "isa ${runs[-1]} asked best "* ]] || fail "default: '$got'"
echo "PASS: ISA levels ${runs[*]} recorded and equal; ${#lacks[@]} refused"
