#!/usr/bin/env bash
# bindlab slurm without a cluster: the scripts it writes (bash -n, #SBATCH
# lines, the merge job beside an array), hostile values from the sweep file
# and the command line kept inert, and the refusals (exit 2, nothing
# written). No Slurm needed: sinfo absent or unreachable is only a note.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
unset SLURM_CONF # never the test cluster of test_slurm_cluster.sh
cd "$WORK"

# A sweep whose name tries to run code, or to be a path: refused where it
# is written (the name becomes file and directory names), nothing written.
for bad in "ev'il\$(touch MARK)\`touch MARK\`;touch MARK" "../../victim" "a/b"; do
    printf 'name: "%s"\nkernels: [triad]\nlayouts: [{np: 1}]\n' "$bad" >"$WORK/badname.yaml"
    set +e
    "$BINDLAB" slurm badname.yaml >out.txt 2>err.txt
    rc=$?
    set -e
    [ "$rc" = 2 ] || { cat out.txt err.txt; fail "name '$bad': exit $rc, expected 2"; }
    grep -qF "badname.yaml:1:7: name '$bad': accepted: 1 to 63 letters" err.txt ||
        { cat err.txt; fail "name '$bad': no FILE:LINE:COL refusal"; }
    [ -e slurm ] && fail "name '$bad': wrote scripts"
    [ -e MARK ] && fail "name '$bad' ran code"
done
echo "ok: names that are code or paths refused"

# Hostile values from the command line stay inert in the script.
cat >"$WORK/evil.yaml" <<'YAML'
name: evil
kernels: [{name: triad, size: 8MiB, iters: 2}]
layouts:
  - {np: 1}
  - {np: 2, map_by: core, bind_to: core}
YAML
"$BINDLAB" slurm evil.yaml --array --module 'mpi/$(touch MARK)' --time 10 >out.txt 2>err.txt
cat out.txt err.txt
script="slurm/evil.sbatch"
merge="slurm/evil.merge.sbatch"
[ -f "$script" ] && [ -f "$merge" ] || fail "default script paths not written (ls: $(ls slurm))"
bash -n "$script" || fail "array script: bash -n"
bash -n "$merge" || fail "merge script: bash -n"
expect_line "$script" "#SBATCH --array=1-2"
expect_line "$script" "#SBATCH --ntasks-per-node=2"
expect_line "$script" "#SBATCH --exclusive"
expect_line "$script" "#SBATCH --time=10"
expect_line "$script" "name=evil"
expect_line "$script" "module load 'mpi/\$(touch MARK)' || exit 1"
expect_line "$merge" "shards=2"
[ -d results/slurm ] || fail "results/slurm (for #SBATCH --output) not created"
grep -q '^submit: jid=\$(sbatch --parsable ' out.txt || fail "no submit hint"
# The assignments evaluate to the plain values and run nothing.
vals=$(grep -E '^(name|sweep|results)=' "$script"; echo 'printf "%s\n" "$name"')
[ "$(bash -c "$vals")" = "evil" ] || fail "name does not read back"
[ -e MARK ] && fail "a quoted value ran"
echo "ok: array + merge scripts, hostile module value inert"

# Refusals: exit 2 and nothing written.
refuse() { # refuse WHAT ARGS...: exit 2, message has WHAT, no new script
    local what=$1 rc
    shift
    set +e
    "$BINDLAB" slurm "$@" -o refused.sbatch >r.out 2>&1
    rc=$?
    set -e
    [ "$rc" = 2 ] || { cat r.out; fail "$*: exit $rc, expected 2"; }
    grep -qF -- "$what" r.out || { cat r.out; fail "$*: no '$what' in the message"; }
    [ -e refused.sbatch ] && fail "$*: wrote a script"
    return 0
}
refuse "--partition: 'x
#SBATCH --uid=0' cannot go into an #SBATCH line" evil.yaml --partition $'x\n#SBATCH --uid=0'
refuse "--account: 'a b' cannot go into" evil.yaml --account 'a b'
refuse "--time: 'soon' is not a Slurm time" evil.yaml --time soon
refuse "--array=3: the sweep has 2 runs" evil.yaml --array=3
refuse "--results (it is part of #SBATCH --output)" evil.yaml --results "$WORK/my results"
refuse "layout r0001 (two-cores triad np2 map=core bind=core places=cores proc_bind=close t=1 init=parallel): np 2 needs 2 slots, but this node has 1" "$BINDLAB_FIXTURES/slurm/small.yaml" --topology "pack:1 core:1 pu:1"
echo "ok: refusals"

# A job of 10,000 nodes x 8 ranks x 16 threads: one script of the usual
# size, its #SBATCH lines from the layout.
cat >"$WORK/big.yaml" <<'YAML'
name: big
kernels: [{name: triad, size: 4MiB, iters: 2, warmup: 0}]
layouts: [{name: full, np: 80000, nodes: 10000, map_by: "ppr:8:node:PE=16", bind_to: core, threads: 16}]
YAML
"$BINDLAB" slurm big.yaml --nodes 10000 \
    --topology "$BINDLAB_SOURCE_DIR/configs/topologies/AMD-19h-Zen3-2xEpyc-7763.xml" \
    -o big.sbatch >out.txt 2>err.txt || { cat out.txt err.txt; fail "10,000 nodes: slurm failed"; }
grep -q "^wrote big.sbatch: 1 run, 10000 nodes x 8 tasks x 16 CPUs" out.txt ||
    { cat out.txt; fail "10,000 nodes: not 1 run of 10000 nodes x 8 tasks x 16 CPUs"; }
for l in "#SBATCH --nodes=10000" "#SBATCH --ntasks-per-node=8" "#SBATCH --cpus-per-task=16"; do
    expect_line big.sbatch "$l"
done
bash -n big.sbatch || fail "10,000 nodes: not a shell script"
[ "$(wc -l <big.sbatch)" -lt 60 ] || fail "10,000 nodes: a script of $(wc -l <big.sbatch) lines"
echo "ok: a job of 10,000 nodes"
