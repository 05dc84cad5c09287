#!/bin/sh
# Writes bindlab's man pages from the programs' own --help text, so that
# the pages cannot drift from the options: bindlab(1) from `bindlab --help`,
# bindlab-VERB(1) from `bindlab VERB --help` for every verb bindlab lists,
# bindlab-app(1) from `bindlab-app --help`; bindlab-sweep-file(5) is written
# by hand (SRCDIR/bindlab-sweep-file.5) and copied.
# usage: gen-man.sh BINDLAB BINDLAB_APP OUTDIR VERSION SRCDIR
set -eu
bindlab=$1 app=$2 out=$3 version=$4 src=$5
mkdir -p "$out/man1" "$out/man5"

# Help text -> roff: escapes backslashes and leading dots/quotes; a line
# "usage: ..." opens SYNOPSIS, a short unindented line ending in ':' after a
# blank line opens a section of that name; the rest stays as --help lays it
# out (.nf), with every "-" a real minus (\-) so that options copy right.
to_roff() {  # NAME SECTION SUMMARY SEE_ALSO < help
    printf '.TH %s %s "" "bindlab %s" "bindlab manual"\n' \
        "$(echo "$1" | tr 'a-z' 'A-Z')" "$2" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$1" "$3"
    awk '
        { gsub(/\\/, "\\e"); gsub(/-/, "\\-") }
        /^[.\x27]/ { $0 = "\\&" $0 }
        NR == 1 && /^[Uu]sage:/ {
            print ".SH SYNOPSIS"; print ".nf"; sub(/^[Uu]sage: */, ""); print; prev_syn = 1; next }
        NR == 1 { print ".SH DESCRIPTION"; print ".nf" }
        blank && length($0) < 40 && /^[A-Za-z][A-Za-z ()\/\\-]*:$/ {
            print ".fi"; h = toupper(substr($0, 1, length($0) - 1))
            gsub(/\\-/, "-", h); print ".SH " h; print ".nf"; blank = 0; next }
        { blank = ($0 == "") }
        prev_syn && !/^ / && $0 != "" {
            print ".fi"; print ".SH DESCRIPTION"; print ".nf"; prev_syn = 0 }
        /^$/ && prev_syn { print ".fi"; print ".SH DESCRIPTION"; print ".nf"; prev_syn = 0; next }
        { print }
        END { print ".fi" }'
    [ -z "${5:-}" ] || cat "$5"
    printf '.SH SEE ALSO\n%s\n' "$4"
}

verbs=$("$bindlab" --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
see="bindlab(1), bindlab-app(1), bindlab-sweep-file(5)"
for v in $verbs; do see="$see, bindlab-$v(1)"; done

"$bindlab" --help | to_roff bindlab 1 \
    "sweep MPI x OpenMP layouts and check where ranks and threads ran" "$see" \
    "$src/bindlab-files.roff" >"$out/man1/bindlab.1"
for v in $verbs; do
    summary=$("$bindlab" --help | awk -v v="$v" '$1 == v { $1 = ""; sub(/^ +/, ""); print; exit }')
    "$bindlab" "$v" --help | to_roff "bindlab-$v" 1 "$summary" "$see" \
        >"$out/man1/bindlab-$v.1"
done
"$app" --help | to_roff bindlab-app 1 \
    "MPI+OpenMP mini-app that records where its ranks, threads and pages ran" \
    "$see" >"$out/man1/bindlab-app.1"
sed "s/@VERSION@/$version/" "$src/bindlab-sweep-file.5" >"$out/man5/bindlab-sweep-file.5"
