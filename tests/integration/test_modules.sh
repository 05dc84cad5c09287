#!/usr/bin/env bash
# The generated modulefiles, loaded by the real module systems: Debian's
# Lmod (Lua modulefile) and Environment Modules 5 (Tcl modulefile), each on
# an installed prefix that was moved after install. Loaded: `bindlab` on
# PATH is the prefix's, `man -w bindlab` finds the prefix's page,
# BINDLAB_ROOT is the prefix; unloaded: all three gone, PATH and MANPATH as
# before. Debian's lmod and environment-modules packages conflict, so
# scripts/deps.sh installs lmod (and tcl), and Environment Modules'
# modulecmd.tcl comes from its own .deb, fetched with `apt-get download`
# and unpacked under the build tree (or from the installed package).
source "$(dirname "$0")/common.sh"

LMOD_INIT=/usr/share/lmod/lmod/init/bash
[ -r "$LMOD_INIT" ] || fail "Lmod is missing ($LMOD_INIT): run scripts/deps.sh (as root) to install lmod"
command -v man >/dev/null || fail "man is missing"

# Environment Modules: its modulecmd.tcl (tclsh runs it), found before any
# check runs, so that a skip never follows checks that passed.
command -v tclsh >/dev/null || fail "tclsh is missing: run scripts/deps.sh (as root) to install tcl"
mc=""
for f in /usr/lib/x86_64-linux-gnu/modulecmd.tcl /usr/lib/modulecmd.tcl; do
    [ -r "$f" ] && mc=$f && break
done
if [ -z "$mc" ]; then
    cache="$BINDLAB_BUILD_DIR/tools/environment-modules"
    if ! ls "$cache"/root/usr/lib/*/modulecmd.tcl >/dev/null 2>&1; then
        mkdir -p "$cache"
        (cd "$cache" && rm -f ./*.deb && apt-get download environment-modules >download.log 2>&1 &&
            dpkg-deb -x environment-modules_*.deb root) || {
            cat "$cache/download.log" >&2 || true
            echo "SKIP: Environment Modules cannot be had: Debian's environment-modules conflicts with lmod and 'apt-get download environment-modules' failed (offline?)"
            exit 77
        }
    fi
    mc=$(ls "$cache"/root/usr/lib/*/modulecmd.tcl | head -n 1)
fi
echo "Environment Modules: $mc"

cmake --install "$BINDLAB_BUILD_DIR" --prefix "$WORK/first" >"$WORK/install.log" ||
    { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }
mkdir -p "$WORK/site" "$WORK/home"
mv "$WORK/first" "$WORK/site/bindlab"
P=$(cd "$WORK/site/bindlab" && pwd -P)
lua_dir="$P/share/lmod/modulefiles"
tcl_dir="$P/share/modulefiles"
ls "$lua_dir"/bindlab/*.lua >/dev/null || fail "no Lua modulefile installed"
ls "$tcl_dir"/bindlab/* >/dev/null || fail "no Tcl modulefile installed"

# check_cycle MODULE_FUNCTION_SETUP: in a clean bash, load, look, unload,
# look again; prints the observations, one "key value" per line.
cycle() {  # SETUP_SNIPPET MODULEPATH_DIR [MANPATH]
    env -i HOME="$WORK/home" PATH=/usr/bin:/bin LANG=C ${3:+MANPATH="$3"} \
        bash --noprofile --norc -c '
'"$1"'
before_path=$PATH before_man=${MANPATH-unset}
module use "$1" || exit 11
module load bindlab || exit 12
echo "which $(command -v bindlab)"
echo "man $(man -w bindlab)"
echo "root ${BINDLAB_ROOT:-}"
echo "system page $(man -w man >/dev/null && echo found || echo lost)"
echo "version $(bindlab --version | head -n 1)"
module unload bindlab || exit 13
echo "after-which $(command -v bindlab || echo none)"
echo "after-root ${BINDLAB_ROOT:-unset}"
[ "$PATH" = "$before_path" ] && echo "path restored" || echo "path now $PATH"
[ "${MANPATH-unset}" = "$before_man" ] && echo "manpath restored" || echo "manpath now ${MANPATH-unset}"
' cycle "$2"
}

check() {  # NAME OUTPUT_FILE
    local f=$2
    cat "$f"
    expect_line "$f" "which $P/bin/bindlab"
    expect_line "$f" "man $P/share/man/man1/bindlab.1"
    expect_line "$f" "root $P"
    expect_line "$f" "system page found"
    grep -q '^version bindlab [0-9]' "$f" || fail "$1: bindlab --version did not run"
    expect_line "$f" "after-which none"
    expect_line "$f" "after-root unset"
    expect_line "$f" "path restored"
    expect_line "$f" "manpath restored"
    echo "ok: $1 loads and unloads bindlab"
}

# MANPATH unset (the usual case) and set: both come back as they were, and
# man's own page stays found while bindlab is loaded.
[ -n "$(man -w man 2>/dev/null)" ] || fail "man -w man finds nothing even before any module"
for mp in "" /usr/share/man; do
    cycle "source $LMOD_INIT" "$lua_dir" "$mp" >"$WORK/lmod.out" 2>"$WORK/lmod.err" ||
        { cat "$WORK/lmod.out" "$WORK/lmod.err" >&2; fail "Lmod: module cycle failed"; }
    check "Lmod (MANPATH ${mp:-unset})" "$WORK/lmod.out"
done

# Environment Modules, the same cycles.
for mp in "" /usr/share/man; do
    cycle "module() { eval \"\$(tclsh '$mc' bash \"\$@\")\"; }" "$tcl_dir" "$mp" >"$WORK/em.out" 2>"$WORK/em.err" ||
        { cat "$WORK/em.out" "$WORK/em.err" >&2; fail "Environment Modules: module cycle failed"; }
    check "Environment Modules (MANPATH ${mp:-unset})" "$WORK/em.out"
done
