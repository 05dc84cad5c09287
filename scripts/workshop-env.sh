# Sourced at the start of every workshop exercise (docs/workshop/): puts
# bindlab and bindlab-app in PATH and sets WS, the folder the exercises
# write to. Run it from anywhere:  source scripts/workshop-env.sh
#   BINDLAB_BUILD_DIR  the build to use (default: build/ of this checkout;
#                      a bindlab already in PATH, e.g. a module, is kept
#                      when there is no build/)
#   WS                 where the exercises write (default: ws/ of this checkout)
bl_ws_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bl_ws_build=${BINDLAB_BUILD_DIR:-$bl_ws_root/build}
if [ -x "$bl_ws_build/bindlab" ]; then
    case ":$PATH:" in
    *":$bl_ws_build:"*) ;;
    *) PATH=$bl_ws_build:$PATH ;;
    esac
    export PATH
elif ! command -v bindlab >/dev/null; then
    echo "workshop: no bindlab in $bl_ws_build nor in PATH: run scripts/main.sh first (README)" >&2
fi
export WS=${WS:-$bl_ws_root/ws}
mkdir -p "$WS"
# Open MPI refuses to start as root unless told it may (containers, VMs).
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cd "$bl_ws_root" || true
echo "workshop: bindlab $(command -v bindlab || echo missing), outputs in WS=$WS"
unset bl_ws_root bl_ws_build
