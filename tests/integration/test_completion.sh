#!/usr/bin/env bash
# Bash completion (completion/bindlab.bash): bash -n, then the completion
# function called as bash would call it (COMP_WORDS, COMP_CWORD) for a few
# prefixes: verbs, options of a verb, shipped topology and sweep short names
# (expected from the files in configs/, a second source), local files.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}" "${BINDLAB_SOURCE_DIR:?run through ctest}"
SCRIPT="$BINDLAB_SOURCE_DIR/completion/bindlab.bash"

bash -n "$SCRIPT" || fail "bash -n $SCRIPT"
# shellcheck source=../../completion/bindlab.bash
source "$SCRIPT"
complete -p bindlab | grep -q -- '-F _bindlab' || fail "no 'complete -F _bindlab bindlab'"

# complete WORD...: the candidates for the last word, sorted, one per line.
complete_words() {
    COMP_WORDS=("$BINDLAB" "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _bindlab
    printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# expect "WORDS" "EXPECTED LINES"
expect() {
    local got
    got=$(complete_words $1)
    [ "$got" = "$2" ] || fail "completing '$1': expected [$2], got [$got]"
    echo "ok: '$1' -> $(echo $got)"
}

cd "$WORK"
expect "sw" "sweep"
expect "pl" "plan"
expect "--v" "--version"
all=$(complete_words "")
for v in sweep plan slurm report merge bindings; do
    grep -qx "$v" <<<"$all" || fail "completing '': verb $v missing from [$all]"
done
echo "ok: '' -> every verb"
# --launcher: the families launcher_choice.c accepts (docs/sweep-files.md)
expect "sweep --launcher mp" "mpich
mpirun"
expect "plan --launcher om" "ompi4
ompi5"
expect "plan --top" "--topology"
expect "sweep --dry" "--dry-run"
expect "slurm --par" "--partition"
expect "report --he" "--help"

# Shipped names, from the files themselves.
qemu=$(cd "$BINDLAB_SOURCE_DIR/configs/topologies" && ls qemu*.xml | sed 's/\.xml$//' | sort)
[ -n "$qemu" ] || fail "no configs/topologies/qemu*.xml to complete"
expect "plan --topology qemu" "$qemu"
expect "slurm x.yaml --topology qemu" "$qemu"
expect "sweep def" "default"
work=$(cd "$BINDLAB_SOURCE_DIR/configs/sweeps" && ls work*.yaml | sed 's/\.yaml$//' | sort)
expect "sweep work" "$work"

# Local files: a sweep file here, and the topology files here.
touch mine.yaml other.txt node-a.xml
expect "sweep mi" "mine.yaml"
expect "sweep --results r mi" "mine.yaml"
expect "plan --topology node" "node-a.xml"
expect "merge -o out.h5 oth" "other.txt"
