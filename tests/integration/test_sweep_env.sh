#!/usr/bin/env bash
# "Unset means unset": OpenMP variables exported in the harness's own
# environment (OMP_*, GOMP_*, KMP_*) must not reach the ranks. Observed in
# what each rank recorded of its environment and in how many threads it ran,
# with a non-OpenMP variable (HWLOC_*, recorded too) as the control that
# the environment does reach the ranks.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3

cat >"$WORK/env.yaml" <<'YAML'
name: envt
kernels: [{name: triad, size: 1MiB, iters: 2, warmup: 0}]
layouts:
  - {name: unset, np: 1, threads: 1}
  - {name: set, np: 1, threads: 1, omp_places: cores, omp_proc_bind: close}
YAML
OMP_NUM_THREADS=7 OMP_PLACES=sockets OMP_PROC_BIND=spread OMP_DYNAMIC=true \
GOMP_SPINCOUNT=12345 GOMP_CPU_AFFINITY=0 KMP_AFFINITY=compact \
HWLOC_BINDLAB_TEST_MARKER=reached \
    "$BINDLAB" sweep --results "$WORK/res" "$WORK/env.yaml" >"$WORK/out" 2>&1 ||
    { cat "$WORK/out"; fail "sweep failed"; }

"$PY" - "$WORK/res/envt.h5" <<'PYEOF' || fail "the ranks' environment"
import sys, h5py
def s(v):
    return v.decode() if isinstance(v, bytes) else v
with h5py.File(sys.argv[1], "r") as f:
    runs = {s(g.attrs["name"]): g for g in f["runs"].values()}
    assert set(runs) == {"unset", "set"}, list(runs)
    for name, g in runs.items():
        env = {s(r["name"]): s(r["value"]) for r in g["env"][()]}
        assert env.get("HWLOC_BINDLAB_TEST_MARKER") == "reached", \
            f"{name}: the control variable did not reach the rank: {env}"
        for var in ("OMP_DYNAMIC", "GOMP_SPINCOUNT", "GOMP_CPU_AFFINITY",
                    "KMP_AFFINITY"):
            assert var not in env, f"{name}: {var} inherited: {env[var]}"
        assert env.get("OMP_NUM_THREADS") == "1", f"{name}: {env.get('OMP_NUM_THREADS')}"
        # one rank ran one thread, not the 7 the shell asked for
        threads = {int(r["thread"]) for r in g["placement"][()]}
        assert threads == {0}, f"{name}: threads {sorted(threads)}"
    unset = {s(r["name"]): s(r["value"]) for r in runs["unset"]["env"][()]}
    assert "OMP_PLACES" not in unset and "OMP_PROC_BIND" not in unset, unset
    st = {s(r["name"]): s(r["value"]) for r in runs["set"]["env"][()]}
    assert st.get("OMP_PLACES") == "cores" and st.get("OMP_PROC_BIND") == "close", st
print("ok: OMP_*/GOMP_*/KMP_* of the harness's shell did not reach the ranks")
PYEOF
echo "1 passed, 0 failed"
