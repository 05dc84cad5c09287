# bash completion for bindlab: verbs, each verb's options (from its option
# table, so they stay in step), sweep files (*.yaml here and the shipped
# ones by short name) and topologies (*.xml here and the shipped short names).
# Installed as PREFIX/share/bash-completion/completions/bindlab; or source it.

# Words of `bindlab ...` output, cached per shell (the binary does not change
# under a running shell often enough to matter).
declare -gA _bindlab_cache=()

_bindlab_ask() {  # KEY COMMAND... -> the cached output of COMMAND
    local key=$1
    shift
    if [[ -z ${_bindlab_cache[$key]+set} ]]; then
        _bindlab_cache[$key]=$("$@" 2>/dev/null)
    fi
    printf '%s\n' "${_bindlab_cache[$key]}"
}

_bindlab_verbs() {
    _bindlab_ask verbs "$1" --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

# Options come from the verb's own option table (`bindlab VERB
# --list-options`: its spellings, then a tab and the rest), the table that
# parses them and that tests/integration/test_cli_options.sh checks against
# --help and the man pages.
_bindlab_options() {  # BINDLAB VERB
    {
        _bindlab_ask "opts-$2" "$1" "$2" --list-options | cut -f1 | tr ' ' '\n'
        echo --help
    } | grep -v '^$' | sort -u
}

_bindlab_datadir() {
    _bindlab_ask data "$1" --version | awk '$1 == "data:" { print $2 }'
}

_bindlab_shipped() {  # BINDLAB SUBDIR EXT -> short names
    local dir f
    dir=$(_bindlab_datadir "$1")
    [[ -d $dir/$2 ]] || return 0
    for f in "$dir/$2"/*"$3"; do
        [[ -e $f ]] && f=${f##*/} && printf '%s\n' "${f%"$3"}"
    done
}

_bindlab() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    local bindlab=${COMP_WORDS[0]} verb="" i
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} != -* ]] && verb=${COMP_WORDS[i]} && break
    done
    COMPREPLY=()

    if [[ -z $verb ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_bindlab_verbs "$bindlab") --help --version" -- "$cur")
        return 0
    fi
    case $prev in
        --topology)
            mapfile -t COMPREPLY < <(compgen -W "$(_bindlab_shipped "$bindlab" topologies .xml)" -- "$cur"
                                     compgen -f -X '!*.xml' -- "$cur"
                                     compgen -d -- "$cur")
            return 0 ;;
        --launcher)
            mapfile -t COMPREPLY < <(compgen -W "mpirun openmpi ompi4 ompi5 mpich impi srun" -- "$cur"
                                     compgen -f -- "$cur")
            return 0 ;;
        --node-topologies)
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0 ;;
        -o | --out | --results | --picture | --app | --app-libomp | --libiomp5 | --mpirun | --merged)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_bindlab_options "$bindlab" "$verb")" -- "$cur")
        return 0
    fi
    case $verb in
        plan)
            mapfile -t COMPREPLY < <(compgen -f -X '!*.y*ml' -- "$cur"
                                     compgen -d -- "$cur") ;;
        sweep | slurm)
            mapfile -t COMPREPLY < <(compgen -W "$(_bindlab_shipped "$bindlab" sweeps .yaml)" -- "$cur"
                                     compgen -f -X '!*.y*ml' -- "$cur"
                                     compgen -d -- "$cur") ;;
        *)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    esac
    return 0
}
complete -F _bindlab bindlab
