#!/usr/bin/env bash
# configs/sweeps/default.yaml, unchanged, then a stencil and an LU run (both
# verified), under every extra MPI that scripts/mpis.sh installs (Open MPI 5,
# MPICH Hydra, Intel MPI): each run ok,
# no binding-mismatch, the launcher's own report read for every bound rank
# (Intel MPI's: the rank's own line), claimed = seen, each rank's mask the
# PU count the layout asks on this machine's cores, bound ranks disjoint,
# and the run file naming the launcher.
#
# MPIs: installed into BINDLAB_MPI_DIR (default SOURCE/build-mpi) by
# scripts/mpis.sh when missing. bindlab-app must be built against each: the
# tree BINDLAB_MPI_BUILD_PREFIX-NAME (default SOURCE/build-mpi-NAME) is
# used, and configured and built here (target bindlab-app) when it is
# missing. The harness is the build under test ($BINDLAB, so the ASan pass
# runs it sanitized): it only execs the launcher. BINDLAB_MPIS="ompi5 mpich" picks some. An MPI whose
# package cannot install is skipped with the reason; exit 77 only when none
# could be had.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
SRC=$BINDLAB_SOURCE_DIR
MPI_DIR=${BINDLAB_MPI_DIR:-$SRC/build-mpi}
BUILD_PREFIX=${BINDLAB_MPI_BUILD_PREFIX:-$SRC/build-mpi}
# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
# Every MPI or none, asked before the first check (no pass with one left out).
bl_require_mpis "$MPI_DIR" ${BINDLAB_MPIS:-${BL_MPIS[*]}} || { echo "SKIP: (the MPIs above)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# What the layouts can have here: the cores this process may use (its
# affinity within its cgroup cpuset: taskset -c 0 leaves one).
ALLOWED=$(hwloc-bind --get)
NCORES=$(hwloc-calc -N core "$ALLOWED")
PUS_PER_CORE=$(( $(hwloc-calc -N pu "$ALLOWED") / NCORES ))
FIRST_CPU=$(hwloc-calc --physical-output --intersect pu "$ALLOWED" | cut -d, -f1)
echo "cores usable: $NCORES, PUs per core: $PUS_PER_CORE"
extra=()
# default.yaml wants 2 cores (np 2, PE=2): on 1 core those layouts are
# recorded invalid and the others must still be ok.
[ "$NCORES" -lt 2 ] && extra=(--skip-invalid)

# Checks one results file (see the header); exits non-zero on the first miss.
cat >"$WORK/check.py" <<'PYEOF'
import sys, h5py
path, name, ppc, ncores = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
family = {"ompi5": "Open MPI 5.", "mpich": "MPICH (Hydra) ", "impi": "Intel MPI 20"}[name]
# PRRTE and Hydra print the binding they made; Intel MPI's table is each
# rank's own view in MPI_Init (its master thread, which libgomp binds to
# the first place first), checked against that thread.
source = b"rank" if name == "impi" else b"launcher"
# PUs each rank's binding must hold, from the layout (default.yaml)
want = {"kernel-ranks": ppc, "one-core": ppc, "pe2-close": 2 * ppc, "pe2-spread": 2 * ppc,
        "pe2-serial-init": 2 * ppc, "mpi-bound": ppc}
def cpus(text):
    s = set()
    for part in text.split(","):
        if part:
            lo, _, hi = part.partition("-")
            s.update(range(int(lo), int(hi or lo) + 1))
    return s
seen_ok = 0
with h5py.File(path, "r") as f:
    for k in f["runs"]:
        r = f["runs"][k]
        a = r.attrs
        st, flags = a["status"], a["flags"]
        if st == "invalid" and ncores < 2:
            continue
        assert st == "ok", (k, a["name"], st, a["reason"])
        assert r["result"].attrs["verified"] == 1, (k, "not verified")
        assert "binding-mismatch" not in flags, (k, flags)
        assert a["launcher_version"].startswith(family), a["launcher_version"]
        if a["name"] in want:
            checks = r["checks"][()]
            assert len(checks) == a["np"], (k, checks)
            masters = {p["rank"]: p for p in r["placement"][()] if p["thread"] == 0}
            sets = []
            for c in checks:
                claimed = c["claimed"].decode()
                assert c["source"] == source, (k, c)
                assert c["matches"] == 1, (k, c)
                assert claimed == c["seen"].decode(), (k, c)
                # the rank's mask as the rank itself recorded it
                mask = cpus(masters[c["rank"]]["rank_cpuset"].decode())
                assert len(mask) == want[a["name"]], (k, a["name"], mask)
                sets.append(mask)
            if len(sets) == 2:
                assert not (sets[0] & sets[1]), (k, "bound ranks share PUs", sets)
        seen_ok += 1
assert seen_ok >= 1
print(f"{name}: {seen_ok} runs ok, the report read for every bound rank")
PYEOF
NPK=$((NCORES < 2 ? 1 : 2))
cat >"$WORK/kernels.yaml" <<YAML
name: kernels
kernels:
  - {name: stencil, grid: 512x512, radius: 2, iters: 3, warmup: 1}
  - {name: lu, n: 203, nb: 16, grid: ${NPK}x1, iters: 2, warmup: 1}
defaults: {map_by: core, bind_to: core, omp_places: cores, omp_proc_bind: close,
           threads: 1, timeout: 120}
layouts:
  - {name: kernel-ranks, np: $NPK}
YAML

cat >"$WORK/allocated.yaml" <<YAML
name: allocated
kernels:
  - {name: triad, size: 8MiB, iters: 3, warmup: 1}
defaults: {map_by: core, bind_to: none, omp_places: cores, omp_proc_bind: close,
           threads: 1, timeout: 120}
layouts:
  - {name: unbound-in-one-cpu, np: 1}
YAML

tested=0
for name in ${BINDLAB_MPIS:-${BL_MPIS[*]}}; do
    bl_require_mpi "$name" "$MPI_DIR" || fail "$name: cannot be had"
    prefix=$BL_MPI_PREFIX
    eval "$(bl_mpi_env "$name" "$prefix")"
    tree=$BUILD_PREFIX-$name
    bl_build_mpi_app "$SRC" "$prefix" "$tree" "$WORK/build-$name.log" ||
        fail "$name: building bindlab-app failed"
    # the app links this MPI's library, not Debian's (ldd prints the
    # prefix resolved when it is reached through a symbolic link)
    ldd "$tree/bindlab-app" | grep -E 'libmpi\.so' | grep -qF -e "$prefix/" -e "$(realpath "$prefix")/" ||
        fail "$name: $tree/bindlab-app does not link $prefix's libmpi: $(ldd "$tree/bindlab-app" | grep libmpi)"
    launcher=$(bl_mpi_launcher "$prefix")
    out=$WORK/$name
    echo "== $name: $launcher"
    "$BINDLAB" sweep --dry-run --mpirun "$launcher" --app "$tree/bindlab-app" ${extra[@]+"${extra[@]}"} \
        --results "$out-dry" "$SRC/configs/sweeps/default.yaml" >"$WORK/dry-$name.out" 2>&1 ||
        { cat "$WORK/dry-$name.out"; fail "$name: dry run failed"; }
    grep -v '^#' "$WORK/dry-$name.out" | head -2
    set +e
    "$BINDLAB" sweep --mpirun "$launcher" --app "$tree/bindlab-app" ${extra[@]+"${extra[@]}"} --results "$out" \
        "$SRC/configs/sweeps/default.yaml" >"$WORK/sweep-$name.out" 2>&1
    rc=$?
    set -e
    cat "$WORK/sweep-$name.out"
    [ "$rc" = 0 ] || fail "$name: sweep exit status $rc"
    "$PY" "$WORK/check.py" "$out/default.h5" "$name" "$PUS_PER_CORE" "$NCORES" ||
        fail "$name: run records (default.yaml)"
    # the stencil and LU kernels through the harness under this MPI
    set +e
    "$BINDLAB" sweep --mpirun "$launcher" --app "$tree/bindlab-app" --results "$out-k" \
        "$WORK/kernels.yaml" >"$WORK/kernels-$name.out" 2>&1
    rc=$?
    set -e
    cat "$WORK/kernels-$name.out"
    [ "$rc" = 0 ] || fail "$name: stencil/LU sweep exit status $rc"
    "$PY" "$WORK/check.py" "$out-k/kernels.h5" "$name" "$PUS_PER_CORE" "$NCORES" ||
        fail "$name: run records (stencil, LU)"
    # inside an allocation of one CPU: an unbound rank may run there only,
    # so the launcher's "not bound" is that CPU and no binding-mismatch
    taskset -c "$FIRST_CPU" "$BINDLAB" sweep --mpirun "$launcher" --app "$tree/bindlab-app" \
        --results "$out-a" "$WORK/allocated.yaml" >"$WORK/allocated-$name.out" 2>&1 ||
        { cat "$WORK/allocated-$name.out"; fail "$name: sweep under taskset -c $FIRST_CPU"; }
    "$PY" - "$out-a/allocated.h5" "$FIRST_CPU" <<'PYEOF' || fail "$name: unbound rank inside one CPU"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for k in f["runs"]:
        a = f["runs"][k].attrs
        assert a["status"] == "ok", (k, a["status"], a["reason"])
        assert a["allowed_cpus"] == sys.argv[2], (k, a["allowed_cpus"])
        assert "binding-mismatch" not in a["flags"], (k, a["flags"])
        for c in f["runs"][k]["checks"][()]:
            assert c["matches"] != 0, (k, c)
PYEOF
    echo "ok: $name: an unbound rank under taskset -c $FIRST_CPU matches its one CPU"
    echo "ok: $name"
    tested=$((tested + 1))
done
[ "$tested" -gt 0 ] || fail "no MPI tested (BINDLAB_MPIS empty?)"
