#!/usr/bin/env bash
# The installed tree works on its own, as on a cluster: `cmake --install`
# into a temporary prefix, the prefix MOVED elsewhere (so nothing may point
# back at the build or the first prefix), then from an unrelated directory
# with a clean environment: bindlab --version names the moved paths,
# `bindlab sweep` runs the shipped default sweep (--dry-run in full, then
# a real run of a shrunk copy), `bindlab plan --topology SHORTNAME`, the
# man pages through man(1), and `bindlab slurm` writes a script naming the
# moved paths.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}" "${BINDLAB_SOURCE_DIR:?run through ctest}"
PY=/usr/bin/python3

command -v hwloc-calc >/dev/null || fail "hwloc-calc is missing (scripts/deps.sh installs hwloc)"
command -v man >/dev/null || fail "man is missing (scripts/deps.sh installs man-db)"
allowed_cpus # the cores this process may use: a sweep checks against them
NCORES=$ALLOWED_CORES
# Its last part runs a Slurm job, and slurmd starts jobs as root only:
# asked before any check, so that a skip never follows checks that passed.
[ "$(id -u)" = 0 ] || { echo "SKIP: the Slurm job part needs root, as slurmd does"; exit 77; }

cmake --install "$BINDLAB_BUILD_DIR" --prefix "$WORK/first" >"$WORK/install.log" ||
    { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }
mkdir -p "$WORK/shared/apps" "$WORK/elsewhere" "$WORK/home"
mv "$WORK/first" "$WORK/shared/apps/bindlab"
P="$WORK/shared/apps/bindlab"
P=$(cd "$P" && pwd -P)
for f in bin/bindlab bin/bindlab-app bin/bindlab-gpu-wrap \
         lib/bindlab/libbindlab_preload.so \
         lib/bindlab/libbindlab-probe.so \
         share/bindlab/sweeps/default.yaml share/bindlab/topologies/qemu-2s.xml \
         share/doc/bindlab/README.md share/man/man1/bindlab.1 \
         share/man/man1/bindlab-plan.1 share/man/man1/bindlab-app.1 \
         share/man/man5/bindlab-sweep-file.5 \
         share/bash-completion/completions/bindlab; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
echo "ok: installed and moved to $P"

# A clean environment: the prefix's bin, the system's, nothing else (root
# needs Open MPI's consent to run as root; that is this machine, not bindlab;
# a sanitizer build keeps the suppressions ctest gives it, for the MPI's leaks).
run() {
    local extra=() v
    [ "$(id -u)" = 0 ] && extra=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
    for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
        [ -n "${!v:-}" ] && extra+=("$v=${!v}")
    done
    (cd "$WORK/elsewhere" &&
        env -i HOME="$WORK/home" PATH="$P/bin:/usr/bin:/bin" LANG=C "${extra[@]}" "$@")
}

# --version: the moved paths, the MPI the loaded library names.
run bindlab --version >"$WORK/version" || fail "--version"
cat "$WORK/version"
grep -q '^bindlab [0-9]' "$WORK/version" || fail "--version: no version line"
expect_line "$WORK/version" "app:      $P/bin/bindlab-app"
expect_line "$WORK/version" "preload:  $P/lib/bindlab/libbindlab_preload.so"
expect_line "$WORK/version" "data:     $P/share/bindlab (sweeps/, topologies/)"
grep -q '^commit:   [^ ]' "$WORK/version" || fail "--version: no commit line"
# The MPI: what ompi_info / mpichversion of the MPI on PATH says (a second source).
if command -v ompi_info >/dev/null; then
    v=$(ompi_info --version 2>/dev/null | sed -n 's/^Open MPI v\([0-9][^ ]*\).*/\1/p' | head -n 1 || true)
    if [ -n "$v" ]; then
        grep -q "^MPI: .*Open MPI v$v" "$WORK/version" || fail "--version: MPI is not Open MPI $v (ompi_info)"
    fi
fi
echo "ok: --version"

# The shipped default sweep, given no file, from a directory without configs/.
expected=$(awk '/^layouts:/ { on = 1; next } /^[a-z]/ { on = 0 } on && /^  - \{/' "$P/share/bindlab/sweeps/default.yaml" | wc -l)
run bindlab sweep --dry-run --skip-invalid --results r >"$WORK/dry" 2>&1 ||
    { cat "$WORK/dry" >&2; fail "sweep --dry-run of the shipped default"; }
n=$(grep -c "^mpirun .*$P/bin/bindlab-app" "$WORK/dry" || true)
if [ "$NCORES" -ge 2 ]; then
    [ "$n" = "$expected" ] || { cat "$WORK/dry" >&2; fail "dry run: $n command lines, the shipped default has $expected layouts"; }
else
    [ "$n" -ge 1 ] || { cat "$WORK/dry" >&2; fail "dry run: no command line"; }
fi
run bindlab sweep --dry-run --skip-invalid --results r default >"$WORK/dry2" 2>&1 ||
    fail "sweep 'default' (short name)"
cmp -s <(grep '^mpirun' "$WORK/dry") <(grep '^mpirun' "$WORK/dry2") ||
    { diff "$WORK/dry" "$WORK/dry2" >&2; fail "sweep 'default' runs other commands than the default sweep"; }
[ -e "$WORK/elsewhere/r" ] && fail "dry run wrote results"
echo "ok: sweep --dry-run of the shipped default ($n runs)"

# A real run of the shipped default, shrunk to seconds.
sed -e 's/^name: default/name: installsmall/' -e 's/size: 512MiB, iters: 30/size: 4MiB, iters: 2/' \
    "$P/share/bindlab/sweeps/default.yaml" >"$WORK/elsewhere/small.yaml"
grep -q 'size: 4MiB' "$WORK/elsewhere/small.yaml" || fail "could not shrink default.yaml (its kernels line changed?)"
run bindlab sweep --skip-invalid --results res small.yaml >"$WORK/sweep.out" 2>&1 ||
    { cat "$WORK/sweep.out" >&2; fail "sweep of the shrunk default"; }
"$PY" - "$WORK/elsewhere/res/installsmall.h5" "$n" <<'PYEOF' || fail "results of the installed sweep"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["summary"][()]
    st = [r["status"].decode() if isinstance(r["status"], bytes) else r["status"] for r in rows]
    print("runs:", len(rows), "statuses:", st)
    # the layouts the allowed CPUs cannot hold are recorded invalid
    assert st.count("ok") == int(sys.argv[2]), "expected %s runs ok" % sys.argv[2]
    assert all(s in ("ok", "invalid") for s in st)
PYEOF
echo "ok: installed sweep ran $n runs"

# plan with a shipped topology by its short name: the same plan as with the
# file's path, on the node the file describes (PUs counted by hwloc itself).
xml="$P/share/bindlab/topologies/qemu-2s.xml"
pus=$(hwloc-calc --input "$xml" -N pu all)
run bindlab plan --topology qemu-2s -np 2 --map-by core --bind-to core >"$WORK/plan.short" 2>&1 ||
    { cat "$WORK/plan.short" >&2; fail "plan --topology qemu-2s"; }
run bindlab plan --topology "$xml" -np 2 --map-by core --bind-to core >"$WORK/plan.path" 2>&1 ||
    fail "plan --topology FILE"
sed "s|$xml|qemu-2s|g" "$WORK/plan.path" | cmp -s - "$WORK/plan.short" ||
    { diff "$WORK/plan.path" "$WORK/plan.short" >&2; fail "plan by short name differs from by path"; }
grep -q "$pus PUs" "$WORK/plan.short" || { cat "$WORK/plan.short" >&2; fail "plan: not the $pus-PU node of qemu-2s.xml"; }
echo "ok: plan --topology qemu-2s ($pus PUs)"

# Man pages through man(1), found by MANPATH alone; each verb's page holds
# every option its --help lists.
[ "$(run env MANPATH="$P/share/man" man -w bindlab-plan)" = "$P/share/man/man1/bindlab-plan.1" ] ||
    fail "man -w bindlab-plan"
[ "$(run env MANPATH="$P/share/man" man -w 5 bindlab-sweep-file)" = "$P/share/man/man5/bindlab-sweep-file.5" ] ||
    fail "man -w 5 bindlab-sweep-file"
verbs=$(run bindlab --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$verbs" ] || fail "bindlab --help lists no verbs"
for v in $verbs app; do
    if [ "$v" = app ]; then page=bindlab-app; help=(bindlab-app --help); else page=bindlab-$v; help=(bindlab "$v" --help); fi
    run env MANPATH="$P/share/man" MANWIDTH=200 man -P cat "$page" >"$WORK/man.txt" 2>/dev/null ||
        fail "man $page"
    { run "${help[@]}" | grep -oE -- '(^|[][ (|,])--?[a-zA-Z][a-zA-Z0-9-]*' |
        sed 's/^[][ (|,]//' | sort -u >"$WORK/opts"; } || true
    [ -s "$WORK/opts" ] || fail "$page: --help lists no option"
    while read -r o; do
        grep -qF -- "$o" "$WORK/man.txt" || fail "man $page lacks $o (in its --help)"
    done <"$WORK/opts"
done
echo "ok: man pages of $(echo $verbs) app"

# The Slurm script of an installed bindlab names the installed paths.
run bindlab slurm default --topology qemu-2s --oversubscribe -o job.sbatch --results "$WORK/elsewhere/res" \
    >"$WORK/slurm.out" 2>&1 || { cat "$WORK/slurm.out" >&2; fail "bindlab slurm default"; }
s="$WORK/elsewhere/job.sbatch"
grep -qF "$P/bin/bindlab" "$s" || fail "slurm script does not run $P/bin/bindlab"
grep -qF "$P/bin/bindlab-app" "$s" || fail "slurm script does not name $P/bin/bindlab-app"
grep -qF "$P/share/bindlab/sweeps/default.yaml" "$s" || fail "slurm script does not name the shipped sweep"
grep -qF "$BINDLAB_BUILD_DIR" "$s" && fail "slurm script names the build tree"
grep -qF "$WORK/first" "$s" && fail "slurm script names the first prefix"
echo "ok: slurm script with the installed paths"

# The Spack recipe and the EasyBuild easyconfig against this install tree
# (packaging/check-recipes.py: the sanity-check paths must exist here).
/usr/bin/python3 -B "$BINDLAB_SOURCE_DIR/packaging/check-recipes.py" "$P" || fail "packaging recipes"

# The installed bindlab's Slurm job on a real (private, one-node) Slurm
# cluster, submitted from the clean environment: the job runs the moved
# tree's bindlab and bindlab-app and records its run. Needs root (slurmd
# starts jobs) and the Slurm packages scripts/deps.sh installs.
for p in slurmctld slurmd slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        fail "Slurm package $p missing: run scripts/deps.sh (as root)"
done
CL="$WORK/cluster"
mkdir -p "$CL"
chmod 0711 "$WORK" # munged wants every directory above its socket open to all (x)
stop_cluster() {
    local rc=$?
    bash "$BINDLAB_SOURCE_DIR/tests/slurm/cluster.sh" stop "$CL" || true
    rm -rf "$WORK"
    exit "$rc"
}
trap stop_cluster EXIT
bash "$BINDLAB_SOURCE_DIR/tests/slurm/cluster.sh" start "$CL" >"$WORK/cluster.out" 2>&1 ||
    { cat "$WORK/cluster.out" >&2; fail "the test cluster did not start"; }
cat >"$WORK/elsewhere/tiny.yaml" <<'YAML'
name: installjob
kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 1}]
layouts:
  - {name: one-core, np: 1, map_by: core, bind_to: core, threads: 1, timeout: 60}
YAML
run env SLURM_CONF="$CL/slurm.conf" bindlab slurm tiny.yaml --results "$WORK/elsewhere/jobres" \
    -o job2.sbatch --time 5 --submit >"$WORK/job.out" 2>&1 ||
    { cat "$WORK/job.out" >&2; fail "bindlab slurm --submit from the install"; }
job=$(sed -n 's/^submitted: job \([0-9][0-9]*\)$/\1/p' "$WORK/job.out")
[ -n "$job" ] || { cat "$WORK/job.out" >&2; fail "no job id printed"; }
for _ in $(seq 1 300); do
    [ -z "$(SLURM_CONF="$CL/slurm.conf" squeue -h -j "$job" -o %i 2>/dev/null)" ] && break
    sleep 0.5
done
"$PY" - "$WORK/elsewhere/jobres/installjob.h5" <<'PYEOF' ||
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["summary"][()]
    print("job runs:", [(r["run_id"].decode(), r["status"].decode()) for r in rows])
    assert len(rows) == 1 and rows[0]["status"] == b"ok"
PYEOF
    { find "$WORK/elsewhere/jobres" -name '*.out' -exec cat {} + >&2; fail "the installed bindlab's Slurm job did not record its run"; }
grep -qF "$P/bin/bindlab" "$WORK/elsewhere/job2.sbatch" || fail "job script does not run the installed bindlab"
echo "ok: Slurm job of the installed bindlab ran on the test cluster"
