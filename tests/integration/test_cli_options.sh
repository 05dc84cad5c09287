#!/usr/bin/env bash
# Every verb's options, from its option table (`bindlab VERB --list-options`,
# harness/cli/cli_options.h), against what users read and type:
#   - each valued option is taken as --opt=V exactly as --opt V (same exit
#     status, stdout and stderr, never "unknown option"), and a flag given a
#     value or a valued option given none is refused the same way by every verb;
#   - the options --help lists are the table's, no more and no fewer (the
#     man pages are written from --help: each table option is in its page);
#   - bash completion offers exactly the table's spellings.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}" "${BINDLAB_SOURCE_DIR:?run through ctest}"
set +e +o pipefail
cd "$WORK" || fail "cd $WORK"

verbs=$("$BINDLAB" --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$verbs" ] || fail "bindlab --help lists no verbs"

# The words after the option that make each verb stop right after reading
# its command line, before it runs anything: a missing sweep file, no input,
# or (plan) a refused --format.
stopper() {
    case $1 in
        sweep | slurm) echo "$WORK/nosuch.yaml" ;;
        plan) echo "--format bogus" ;;
        *) ;;
    esac
}

# A plausible value for an option (a wrong one is refused the same way in
# both spellings, which is all that is compared).
value_of() {
    case $1 in
        --launcher) echo mpirun ;;
        --sort) echo rate ;;
        --format) echo text ;;
        --repetition-order) echo interleaved ;;
        --shard) echo 1/2 ;;
        --noisy) echo cpu ;;
        --huge-pages) echo off ;;
        --width) echo 100 ;;
        --map-by | --bind-to) echo core ;;
        --topology) echo "$WORK/nosuch.xml" ;; # refused before check runs
        *) echo 2 ;;
    esac
}

# run NAME ARGS...: bindlab ARGS, its status and output in $WORK/NAME.
run() {
    local name=$1
    shift
    "$BINDLAB" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    echo "# exit $?" >>"$WORK/$name.out"
}

# The example users hit: the results directory given with '='. (The
# default's 2-core layouts are refused inside one allowed CPU: skipped.)
"$BINDLAB" sweep --dry-run --skip-invalid --results="$WORK/res" default >"$WORK/dry.out" 2>&1 ||
    fail "sweep --dry-run --results=DIR: $(cat "$WORK/dry.out")"
grep -qF -- "--out $WORK/res/default.d/" "$WORK/dry.out" ||
    fail "sweep --results=DIR: the runs do not go to DIR: $(head -3 "$WORK/dry.out")"
# and a value forgotten at the end, said the same way as by every verb.
"$BINDLAB" sweep --dry-run default --timeout >"$WORK/dry.out" 2>&1
[ $? = 2 ] && grep -qxF "bindlab sweep: --timeout needs a value" "$WORK/dry.out" ||
    fail "sweep ... --timeout (no value): $(cat "$WORK/dry.out")"
echo "ok: sweep --results=DIR, sweep --timeout (no value)"


checked=0
for v in $verbs; do
    "$BINDLAB" "$v" --list-options >"$WORK/$v.table" 2>"$WORK/$v.table.err" ||
        fail "$v --list-options: $(cat "$WORK/$v.table.err")"
    # shellcheck disable=SC2046 # the stopper is words
    while IFS=$'\t' read -r names kind _ _; do
        for o in $names; do
            val=$(value_of "$o")
            case $kind in
                value)
                    run joined "$v" "$o=$val" $(stopper "$v")
                    run apart "$v" "$o" "$val" $(stopper "$v") ;;
                pair)
                    run joined "$v" "$o=$val" "$val" $(stopper "$v")
                    run apart "$v" "$o" "$val" "$val" $(stopper "$v") ;;
                optional)
                    run joined "$v" "$o=$val" $(stopper "$v")
                    cp "$WORK/joined.out" "$WORK/apart.out"
                    cp "$WORK/joined.err" "$WORK/apart.err" ;;
                flag)
                    run joined "$v" "$o=x" $(stopper "$v")
                    grep -qF -- "$o takes no value (got '$o=x')" "$WORK/joined.err" &&
                        grep -qx "# exit 2" "$WORK/joined.out" ||
                        fail "$v $o=x: not refused as a flag given a value: $(cat "$WORK/joined.err")"
                    continue ;;
                *) fail "$v --list-options: $o has kind '$kind'" ;;
            esac
            if grep -qE "unknown (option|argument)|needs a value|takes no value" "$WORK/joined.err"; then
                fail "bindlab $v $o=$val: $(cat "$WORK/joined.err")"
            fi
            cmp -s "$WORK/joined.out" "$WORK/apart.out" && cmp -s "$WORK/joined.err" "$WORK/apart.err" ||
                fail "bindlab $v: '$o=$val' and '$o $val' differ: $(cat "$WORK/joined.err") | $(cat "$WORK/apart.err")"
            checked=$((checked + 1))
            # a valued option given nothing: the same message from every verb
            if [ "$kind" = value ]; then
                run missing "$v" "$o"
                grep -qF -- "bindlab $v: $o needs a value" "$WORK/missing.err" &&
                    grep -qx "# exit 2" "$WORK/missing.out" ||
                    fail "bindlab $v $o (no value): $(cat "$WORK/missing.err")"
            fi
        done
    done <"$WORK/$v.table"
done
[ "$checked" -gt 40 ] || fail "only $checked options checked"
echo "ok: $checked options read as --opt=V and --opt V alike, by $(echo $verbs)"

# --help lists the table's options (by one of their spellings at least),
# and no option the table lacks; the same words as the old completion read.
help_options() {  # VERB
    "$BINDLAB" "$1" --help |
        awk '/^usage:/ { for (i = 2; i <= NF; i++) if ($i ~ /^-/) print $i } { print }' |
        grep -oE -- '(^ *|  |, |\[|\|)--?[a-zA-Z][a-zA-Z0-9-]*' | sed -E 's/^( +|, |\[|\|)//' |
        sort -u
}
# Options of other programs that a verb's help names where an option of its
# own would stand (mpirun's, MLC's, bindlab-app's), as VERB:OPTION.
foreign="bindings:--do-not-launch matrix:--bandwidth matrix:--mem-policy"
for v in $verbs; do
    help_options "$v" >"$WORK/$v.help"
    cut -f1 "$WORK/$v.table" | tr ' ' '\n' | sort -u >"$WORK/$v.spellings"
    while read -r o; do
        case " $foreign " in *" $v:$o "*) continue ;; esac
        grep -qxF -- "$o" "$WORK/$v.spellings" ||
            fail "$v --help lists $o, which its option table lacks"
    done <"$WORK/$v.help"
    page=$BINDLAB_BUILD_DIR/man/man1/bindlab-$v.1
    while IFS=$'\t' read -r names _; do
        found=0
        for o in $names; do
            "$BINDLAB" "$v" --help | grep -qE -- "(^|[][ (|,])$o([][ =,|).:]|\$)" && found=1
        done
        [ "$found" = 1 ] || fail "$v: its --help does not name '$names' (in its option table)"
        if [ -f "$page" ]; then
            found=0
            for o in $names; do
                sed 's/\\-/-/g' "$page" | grep -qF -- "$o" && found=1
            done
            [ "$found" = 1 ] || fail "$page does not name '$names' (in the option table)"
        fi
    done <"$WORK/$v.table"
done
echo "ok: --help (and the man pages) list the table's options"

# Completion offers the table's spellings and --help, nothing else.
# shellcheck source=../../completion/bindlab.bash
source "$BINDLAB_SOURCE_DIR/completion/bindlab.bash"
for v in $verbs; do
    COMP_WORDS=("$BINDLAB" "$v" "-")
    COMP_CWORD=2
    COMPREPLY=()
    _bindlab
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u)
    want=$({ cat "$WORK/$v.spellings"; echo --help; } | sort -u)
    [ "$got" = "$want" ] || fail "completing '$v -': expected [$(echo $want)], got [$(echo $got)]"
done
echo "ok: completion offers each verb's table"
