#!/usr/bin/env bash
# Output paths that must not be replaced, for the verbs that write files
# of their own: `bindlab slurm -o` (the batch scripts) and `bindlab plan
# --picture`. A directory, a device (as root, rename would turn it into a
# file), or a link to a device is refused with one line and exit 2, and is
# left exactly as it was; a regular file is replaced. The expectations are
# the file types as stat sees them, not bindlab's own words.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}" "${BINDLAB_SOURCE_DIR:?run through ctest}"
unset SLURM_CONF # never the test cluster of test_slurm_cluster.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$WORK"
# The --picture half: a plan asks Open MPI's mapper, without Open MPI there
# is no plan to draw. Asked before any check (no skip after a pass).
first=$(mpirun --version 2>&1 | head -n 1 || true)
case $first in
*"(Open MPI) "*) ;;
*) echo "SKIP: the --picture half needs Open MPI's mpirun (have: '${first:-none}')"
   exit 77 ;;
esac

# A character device of our own, like /dev/null (1,3), when this process
# may make one (root with CAP_MKNOD); else only links to /dev/null are
# tried, which every user can make.
DEV=""
if [ "$(id -u)" = 0 ] && mknod "$WORK/dev.sbatch" c 1 3 2>/dev/null; then
    DEV=yes
    mknod "$WORK/dev.png" c 1 3
fi
ln -s /dev/null "$WORK/null.sbatch"
ln -s /dev/null "$WORK/null.png"

# refused NAME WORDS CMD...: CMD exits 2 with one error line holding WORDS.
refused() {
    local name=$1 words=$2 rc=0
    shift 2
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = 2 ] || { cat out.txt err.txt; fail "$name: exit $rc, expected 2"; }
    # (Not counted: slurm's note when there is no sinfo to ask, plan's
    # pointer to --help.)
    [ "$(grep -cv -e '^bindlab slurm: note: ' -e '^(see ' err.txt)" = 1 ] || { cat err.txt; fail "$name: not one line"; }
    grep -qF -- "$words" err.txt || { cat err.txt; fail "$name: no '$words' in the message"; }
    return 0
}

# still_device PATH: a character device 1,3 (the null device's numbers).
still_device() {
    [ -c "$1" ] && [ ! -L "$1" ] || fail "$1: no longer a character device ($(stat -c %F "$1"))"
    [ "$(stat -c %t,%T "$1")" = 1,3 ] || fail "$1: device numbers changed"
}

# Nothing but the named entries in the work directory: no temporaries left.
only_these() {
    local want have
    want=$(printf '%s\n' "$@" | sort)
    have=$(ls -A "$WORK" | grep -vxF -e out.txt -e err.txt | sort)
    [ "$have" = "$want" ] || fail "files left behind: $(echo $have) (expected: $(echo $want))"
}

# --- bindlab slurm -o ------------------------------------------------------
cat >sweep.yaml <<'YAML'
name: refusals
kernels: [{name: triad, size: 8MiB, iters: 2}]
layouts:
  - {np: 1}
  - {np: 2, map_by: core, bind_to: core}
YAML
# A node of its own, so the layouts fit whatever this machine has.
NODE="pack:1 core:2 pu:1"
slurm=("$BINDLAB" slurm sweep.yaml --topology "$NODE" --results "$WORK/results")

mkdir dir.sbatch
refused "slurm -o DIR" "dir.sbatch: is a directory" "${slurm[@]}" -o dir.sbatch
[ -d dir.sbatch ] && [ -z "$(ls -A dir.sbatch)" ] || fail "slurm -o DIR: the directory changed"
refused "slurm -o DIR/" "names a directory" "${slurm[@]}" -o dir.sbatch/
refused "slurm -o LINK-TO-/dev/null" "a symbolic link to a character device" \
    "${slurm[@]}" -o null.sbatch
[ "$(readlink null.sbatch)" = /dev/null ] || fail "slurm: the link was replaced"
still_device /dev/null
if [ -n "$DEV" ]; then
    refused "slurm -o DEVICE" "is a character device" "${slurm[@]}" -o dev.sbatch
    still_device dev.sbatch
fi
# An array's merge script goes beside it: a directory there refuses both,
# before the first is written.
mkdir arr.merge.sbatch
refused "slurm --array, merge path a directory" "arr.merge.sbatch: is a directory" \
    "${slurm[@]}" --array -o arr.sbatch
[ -e arr.sbatch ] && fail "slurm --array: the array script was written before the refusal"
rmdir arr.merge.sbatch
only_these dir.sbatch null.sbatch null.png results ${DEV:+dev.sbatch dev.png} sweep.yaml
echo "ok: slurm -o refuses a directory${DEV:+, a device} and a link to a device; nothing left behind"

# A regular file is replaced, with mode 0755 whatever the umask.
echo old >regular.sbatch
(umask 077 && "${slurm[@]}" -o regular.sbatch >out.txt 2>err.txt) ||
    { cat out.txt err.txt; fail "slurm -o REGULAR-FILE failed"; }
[ -f regular.sbatch ] && [ ! -L regular.sbatch ] || fail "regular.sbatch: not a regular file"
head -n 1 regular.sbatch | grep -q '^#!' || fail "regular.sbatch: not replaced by a script"
[ "$(stat -c %a regular.sbatch)" = 755 ] || fail "regular.sbatch: mode $(stat -c %a regular.sbatch), expected 755"
echo "ok: slurm -o replaces a regular file, mode 755 under umask 077"

# --- bindlab plan --picture ------------------------------------------------
plan=("$BINDLAB" plan --topology "$NODE" -np 2 --map-by core)

# The name is checked before anything is drawn, so lstopo is not needed.
refused "plan --picture /dev/null" "must end in .png, .svg or .pdf" "${plan[@]}" --picture /dev/null
still_device /dev/null
mkdir dir.png
refused "plan --picture DIR" "dir.png: is a directory" "${plan[@]}" --picture dir.png
[ -d dir.png ] && [ -z "$(ls -A dir.png)" ] || fail "plan --picture DIR: the directory changed"
refused "plan --picture LINK-TO-/dev/null" "a symbolic link to a character device" \
    "${plan[@]}" --picture null.png
[ "$(readlink null.png)" = /dev/null ] || fail "plan: the link was replaced"
still_device /dev/null
if [ -n "$DEV" ]; then
    refused "plan --picture DEVICE" "is a character device" "${plan[@]}" --picture dev.png
    still_device dev.png
fi
only_these dir.sbatch dir.png null.sbatch null.png regular.sbatch results \
    ${DEV:+dev.sbatch dev.png} sweep.yaml
echo "ok: plan --picture refuses a directory${DEV:+, a device} and a link to a device"
