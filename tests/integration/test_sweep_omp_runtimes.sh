#!/bin/bash
# The sweep key omp_runtime, run for real with mpirun under each runtime:
# libgomp (the app as built), libomp (the clang-built app) and intel (the
# app with Intel's libiomp5 preloaded). Three of the default sweep's
# layouts at a small size (a rank with PE=2 (PE=1 on one allowed CPU) and
# its threads close, a rank left unbound by mpirun with OpenMP binding, two
# bound ranks): every run ok, no binding mismatch, the runtime the app
# recorded is the one asked for, and the flag two-omp-runtimes is there
# exactly where the dynamic linker loads two runtime files (ldd with the
# environment the ranks got, read back from the record's launcher argv).
# Then the clang-built app as the default app, unaliased: two runtimes,
# flagged; and the refusals when a runtime's path is missing.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2>/dev/null || { echo "SKIP: python3-h5py missing (scripts/deps.sh installs it)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun in PATH"; exit 77; }
[ -f "${BINDLAB_LIBIOMP5:-}" ] || { echo "SKIP: no Intel libiomp5 at '${BINDLAB_LIBIOMP5:-}' (scripts/omp_runtimes.sh installs it)"; exit 77; }
[ -x "${BINDLAB_APP_LIBOMP:-}" ] || { echo "SKIP: no clang-built bindlab-app at '${BINDLAB_APP_LIBOMP:-}' (scripts/test.sh builds build-omp-libomp)"; exit 77; }
export BINDLAB_LIBIOMP5 BINDLAB_APP_LIBOMP
# PE=2 where this process may use two cores, else PE=1: a sweep refuses a
# rank wider than the allowed CPUs.
allowed_cpus
PE=$((ALLOWED_CORES < 2 ? ALLOWED_CORES : 2))

{
    cat <<'YAML'
name: omprt
kernels:
  - {name: triad, size: 4MiB, iters: 2, warmup: 0}
defaults: {map_by: core, bind_to: core, omp_places: cores, omp_proc_bind: close, threads: fill, timeout: 120}
layouts:
YAML
    for rt in libgomp libomp intel; do
        cat <<YAML
  - {name: pe-close-$rt, np: 1, map_by: "slot:PE=$PE", omp_runtime: $rt}
  - {name: unbound-omp-close-$rt, np: 1, bind_to: none, threads: 2, omp_runtime: $rt}
  - {name: mpi-bound-$rt, np: 2, omp_runtime: $rt}
YAML
    done
} >"$WORK/s.yaml"

# Dry run: the intel lines preload libiomp5 through mpirun -x, libomp's
# run the clang app; both put the alias directory first in the path.
"$BINDLAB" sweep --dry-run --oversubscribe --results "$WORK/dry" "$WORK/s.yaml" >"$WORK/dry.out" 2>&1 ||
    { cat "$WORK/dry.out" >&2; fail "dry run failed"; }
[ "$(grep -c -- "-x LD_PRELOAD=$BINDLAB_LIBIOMP5 $BINDLAB_APP " "$WORK/dry.out")" = 3 ] ||
    { cat "$WORK/dry.out" >&2; fail "expected 3 intel lines preloading libiomp5"; }
[ "$(grep -c -- "omp-alias/libomp $BINDLAB_APP_LIBOMP " "$WORK/dry.out")" = 3 ] ||
    fail "expected 3 libomp lines running $BINDLAB_APP_LIBOMP"
echo "ok: dry run: libiomp5 preloaded with -x, the clang app for libomp"

"$BINDLAB" sweep --oversubscribe --results "$WORK/res" -o "$WORK/run.h5" "$WORK/s.yaml" >"$WORK/run.out" 2>&1 ||
    { tail -n 20 "$WORK/run.out" >&2; fail "sweep failed"; }
# the default app, clang-built: LLVM's runtime and, through OpenBLAS, GCC's
printf 'name: two\nkernels:\n  - {name: triad, size: 4MiB, iters: 2, warmup: 0}\nlayouts:\n  - {name: mpi-bound, np: 2, threads: 1}\n' >"$WORK/two.yaml"
"$BINDLAB" sweep --oversubscribe --app "$BINDLAB_APP_LIBOMP" --results "$WORK/res2" -o "$WORK/two.h5" "$WORK/two.yaml" >"$WORK/two.out" 2>&1 ||
    { tail -n 20 "$WORK/two.out" >&2; fail "sweep of the clang app failed"; }

"$PY" - "$WORK/run.h5" "$WORK/two.h5" <<'PY'
import os, re, shlex, subprocess, sys, h5py
def s(v):
    return v.decode() if isinstance(v, bytes) else v
def runtime_files(argv):
    """The OpenMP runtime files ld.so loads for the rank's program, with
    the environment mpirun -x gave it (ldd honours LD_PRELOAD and
    LD_LIBRARY_PATH)."""
    words = shlex.split(argv)
    env = dict(os.environ)
    for i, w in enumerate(words):
        if w == "-x" and "=" in words[i + 1]:
            k, v = words[i + 1].split("=", 1)
            if k.startswith("LD_"):
                env[k] = v
    app = next(w for w in words if w.endswith("bindlab-app"))
    out = subprocess.run(["ldd", app], env=env, capture_output=True, text=True).stdout
    files = set()
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)(?: => (\S+))? \(", line)
        if not m:
            continue
        path = m.group(2) or m.group(1)
        if re.match(r"lib(g|i)?omp", os.path.basename(m.group(1))) and os.path.exists(path):
            files.add(os.path.realpath(path))
    return files
bad = []
seen = {}
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        for rid, g in f["runs"].items():
            a = {k: s(v) for k, v in g.attrs.items()}
            asked, ran, flags = a["omp_runtime_asked"], a["omp_runtime"], a["flags"].split(",")
            name = a["name"]
            seen[name] = ran
            if a["status"] != "ok":
                bad.append(f"{name}: {a['status']} {a['reason']}")
            if "binding-mismatch" in flags:
                bad.append(f"{name}: binding-mismatch ({a['flags']})")
            if asked != "default" and ran != asked:
                bad.append(f"{name}: asked {asked}, recorded {ran}")
            files = runtime_files(a["launcher_argv"])
            two = "two-omp-runtimes" in flags
            if two != (len(files) > 1):
                bad.append(f"{name}: ld.so loads {sorted(files)}, flags {a['flags']}")
            if os.path.realpath(a["omp_runtime_path"]) not in files:
                bad.append(f"{name}: recorded {a['omp_runtime_path']}, ld.so loads {sorted(files)}")
if len(seen) != 10:
    bad.append(f"expected 10 runs, got {len(seen)}")
if seen.get("mpi-bound") != "libomp":
    bad.append(f"the clang app recorded {seen.get('mpi-bound')}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -q "two-omp-runtimes" "$WORK/res2/two.d/r0000.log" || fail "the clang app's output has no two-omp-runtimes warning"
echo "ok: 9 runs under 3 runtimes as asked, one runtime each; the clang app alone: two, flagged"

# The report shows the runtime of each run, as a column and in its detail.
"$BINDLAB" report "$WORK/run.h5" >"$WORK/report.txt" 2>&1 || fail "report: $(cat "$WORK/report.txt")"
head -n 1 "$WORK/report.txt" | grep -qw omp || fail "no omp column: $(head -n 1 "$WORK/report.txt")"
for rt in libgomp libomp intel; do
    [ "$(grep -c "omp=$rt .* $rt " "$WORK/report.txt")" = 3 ] || fail "report: not 3 rows of $rt"
done
"$BINDLAB" report --html "$WORK/report.html" "$WORK/run.h5" >/dev/null 2>&1 || fail "report --html"
[ "$(grep -c "OpenMP runtime: intel (asked: intel)" "$WORK/report.html")" = 3 ] || fail "html: no intel run detail"
echo "ok: report: an omp column and each run's runtime in its detail"

# Refusals name what to give.
rc=0
env -u BINDLAB_LIBIOMP5 "$BINDLAB" sweep --dry-run --results "$WORK/r1" "$WORK/s.yaml" >"$WORK/r1.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "omp_runtime intel: no --libiomp5 given and BINDLAB_LIBIOMP5 unset" "$WORK/r1.out" ||
    fail "no libiomp5: exit $rc: $(cat "$WORK/r1.out")"
rc=0
"$BINDLAB" sweep --dry-run --app-libomp "$BINDLAB_APP" --results "$WORK/r2" "$WORK/s.yaml" >"$WORK/r2.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "omp_runtime libomp: .*its OpenMP calls go to libgomp" "$WORK/r2.out" ||
    fail "gcc app as --app-libomp: exit $rc: $(cat "$WORK/r2.out")"
echo "ok: a missing runtime is refused naming the option and the variable"

# A Slurm script of the same sweep hands the job's sweep both paths.
"$BINDLAB" slurm -o "$WORK/job.sbatch" --results "$WORK/sres" "$WORK/s.yaml" >"$WORK/slurm.out" 2>&1 ||
    fail "bindlab slurm: $(cat "$WORK/slurm.out")"
# shellcheck disable=SC2016 # the job script's own variables, literally
grep -q -- '--app-libomp "$app_libomp" --libiomp5 "$libiomp5"' "$WORK/job.sbatch" ||
    fail "the job's sweep line lacks the runtimes: $(grep sweep "$WORK/job.sbatch")"
grep -qx "libiomp5=$(readlink -f "$BINDLAB_LIBIOMP5")" "$WORK/job.sbatch" || fail "no libiomp5= line"
rc=0
env -u BINDLAB_APP_LIBOMP "$BINDLAB" slurm -o "$WORK/job2.sbatch" "$WORK/s.yaml" >"$WORK/slurm2.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "omp_runtime libomp: set BINDLAB_APP_LIBOMP" "$WORK/slurm2.out" ||
    fail "slurm without BINDLAB_APP_LIBOMP: exit $rc: $(cat "$WORK/slurm2.out")"
echo "ok: the Slurm script passes --app-libomp and --libiomp5 to the job's sweep"

# Any program under the probe: bindlab run records the runtimes the same
# way, and flags the clang app's two, not the GCC app's one.
for which in gcc clang; do
    prog=$BINDLAB_APP; [ "$which" = clang ] && prog=$BINDLAB_APP_LIBOMP
    "$BINDLAB" run -np 1 --threads 1 --out "$WORK/run-$which.h5" -- "$prog" --size 1MiB --iters 1 --warmup 0 \
        --out "$WORK/app-$which.h5" >"$WORK/run-$which.out" 2>&1 || fail "bindlab run $which: $(tail -5 "$WORK/run-$which.out")"
done
"$PY" - "$WORK/run-gcc.h5" "$WORK/run-clang.h5" <<'PY'
import sys, h5py
def s(v):
    return v.decode() if isinstance(v, bytes) else v
want = {"gcc": ("libgomp", False), "clang": ("libomp", True)}
for path, which in zip(sys.argv[1:], ("gcc", "clang")):
    with h5py.File(path, "r") as f:
        (g,) = f["runs"].values()
        a = {k: s(v) for k, v in g.attrs.items()}
        procs = g["processes"][:]
        ran, two = want[which]
        assert a["omp_runtime"] == ran, (which, a["omp_runtime"])
        assert ("two-omp-runtimes" in a["flags"].split(",")) == two, (which, a["flags"])
        assert all(s(p) == ran for p in procs["omp_runtime"]), (which, procs["omp_runtime"])
        assert all(bool(s(p)) == two for p in procs["omp_runtimes_other"]), (which, procs["omp_runtimes_other"])
PY
echo "ok: bindlab run records each process's runtimes; two-omp-runtimes for the clang app only"
