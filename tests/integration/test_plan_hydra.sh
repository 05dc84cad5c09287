#!/usr/bin/env bash
# bindlab plan for MPICH (Hydra) and Intel MPI, from scripts/mpis.sh.
#  MPICH: Hydra itself places the ranks (it has no dry mode: /bin/true
#   ranks, HYDRA_TOPO_DEBUG=1, HWLOC_XMLFILE, the preload). Checked on the
#   shipped EPYC and Xeon topologies against (a) a direct Hydra launch of
#   the Hydra spelling written by hand from docs/launchers.md, read by
#   `bindlab bindings`, and (b) Open MPI 4's own plan of the same layout,
#   which the translation table says Hydra matches.
#  Intel MPI: modelled by bindlab (Intel MPI ignores HWLOC_XMLFILE). The
#   plan must say so; the model is checked against (c) Open MPI 4's plan of
#   the same layouts on the same topologies, and (d) the real Intel MPI
#   pinning table on this machine, wrap-around included.
#  Layouts a launcher cannot express: exit 2 with the reason.
# Open MPI 4 (mpirun in PATH) is the second method of (b) and (c).
source "$(dirname "$0")/common.sh"
set +e
: "${BINDLAB:?run through ctest}"
SRC=$BINDLAB_SOURCE_DIR
MPI_DIR=${BINDLAB_MPI_DIR:-$SRC/build-mpi}
# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --version 2>/dev/null | head -1 | grep -q '(Open MPI) 4\.' ||
    { echo "SKIP: the mpirun in PATH is not Open MPI 4 (the reference plans)"; exit 77; }
OMPI4=$(command -v mpirun)
preload=$BINDLAB_BUILD_DIR/libbindlab_preload.so
[ -f "$preload" ] || fail "no $preload (target bindlab-affinity-preload)"
export BINDLAB_PRELOAD=$preload
# Both or none (no pass with one left out).
bl_require_mpis "$MPI_DIR" mpich impi || { echo "SKIP: (the MPIs above)"; exit 77; }
have=(mpich impi)
TOPOS="AMD-19h-Zen3-2xEpyc-7763.xml AMD-EPYC-7763-2s-NPS4-SMT.xml Intel-Skylake-2xXeon6140.xml Intel-SapphireRapids-8480-2s-SNC4-HT.xml"

# ranks TOPO ARGS...: "rank pus" per rank of `bindlab plan ... --format tsv`
ranks() {
    local topo=$1
    shift
    "$BINDLAB" plan --topology "$SRC/configs/topologies/$topo" --threads 1 \
        --format tsv "$@" </dev/null >"$WORK/plan.tsv" 2>"$WORK/plan.err" || return $?
    awk -F'\t' 'NR > 1 && $2 == 0 { print $1, $3 }' "$WORK/plan.tsv"
}

checked=0
for name in "${have[@]}"; do
    prefix=$MPI_DIR/$name
    eval "$(bl_mpi_env "$name" "$prefix")"
    exe=$prefix/bin/mpiexec
    for topo in $TOPOS; do
        xml=$SRC/configs/topologies/$topo
        npus=$(hwloc-calc --if xml --input "$xml" -N pu all)
        # np, Open MPI layout (map bind), Intel MPI accepts it (1/0), Hydra
        # spelling (hand-written from the table in docs/launchers.md)
        while read -r np map bind impi_ok hydra; do
            ref=$(ranks "$topo" --launcher ompi4 --mpirun "$OMPI4" -np "$np" --map-by "$map" --bind-to "$bind") ||
                { cat "$WORK/plan.err"; fail "$topo $map $bind: Open MPI 4 plan failed"; }
            got=$(ranks "$topo" --launcher "$exe" -np "$np" --map-by "$map" --bind-to "$bind")
            rc=$?
            if [ "$name" = impi ] && [ "$impi_ok" = 0 ]; then
                [ "$rc" = 2 ] || fail "impi $topo $map $bind: planned, but Intel MPI cannot express it"
                grep -qF "Intel MPI 2021" "$WORK/plan.err" || fail "impi refusal: $(cat "$WORK/plan.err")"
                continue
            fi
            [ "$rc" = 0 ] || { cat "$WORK/plan.err"; fail "$name $topo $map $bind: plan failed"; }
            if [ "$name" = impi ]; then
                grep -qF "ranks: Intel MPI 2021" "$WORK/plan.err" && grep -qF "modelled by bindlab" "$WORK/plan.err" ||
                    fail "impi: the plan does not say it is modelled: $(cat "$WORK/plan.err")"
            else
                grep -q "modelled" "$WORK/plan.err" && fail "mpich: a Hydra plan called modelled"
                # (a) a direct Hydra launch of the hand-written spelling;
                # launched again (twice at most, said) when mpiexec died of
                # SIGPIPE, as it now and then does once the true ranks are
                # gone (bindlab plan does the same: test_plan_launcher_sigpipe)
                for attempt in 1 2 3; do
                    # shellcheck disable=SC2086 # the spelling is words
                    env HWLOC_XMLFILE="$xml" HWLOC_THISSYSTEM=1 LD_PRELOAD="$preload" \
                        BINDLAB_PRELOAD_CPUS=0-$((npus - 1)) HYDRA_TOPO_DEBUG=1 \
                        "$exe" -np "$np" $hydra true </dev/null >"$WORK/launch.out" 2>&1
                    lrc=$?
                    [ "$lrc" = 141 ] && [ "$attempt" -lt 3 ] || break
                    echo "note: mpich $topo: mpiexec died of SIGPIPE, launched again"
                done
                [ "$lrc" = 0 ] || { cat "$WORK/launch.out"; fail "mpich $topo: launch failed (exit $lrc)"; }
                if [ "$bind" = none ]; then
                    # Hydra prints nothing for -bind-to none: every rank the node
                    [ -s "$WORK/launch.out" ] && { cat "$WORK/launch.out"; fail "mpich: output for -bind-to none"; }
                    launch=$(for ((r = 0; r < np; r++)); do echo "$r 0-$((npus - 1))"; done)
                else
                    "$BINDLAB" bindings "$WORK/launch.out" --topology "$xml" >"$WORK/launch.txt" 2>&1 ||
                        { cat "$WORK/launch.txt"; fail "mpich $topo: bindings could not read the launch"; }
                    launch=$(awk '{ print $2, $6 }' "$WORK/launch.txt")
                fi
                [ "$got" = "$launch" ] ||
                    fail "mpich $topo $map $bind: plan [$got] differs from Hydra's launch [$launch]"
            fi
            # (b)/(c) the same as Open MPI 4's mapper
            [ "$got" = "$ref" ] ||
                fail "$name $topo -np $np --map-by $map --bind-to $bind: plan [$got] differs from Open MPI 4's [$ref]"
            echo "ok: $name $topo -np $np $map $bind ($(echo "$got" | head -1))"
            checked=$((checked + 1))
        done <<'EOF'
4 core core 1 -bind-to core -map-by core
3 slot:PE=2 core 1 -bind-to core:2 -map-by core:2
4 numa numa 1 -bind-to numa -map-by numa
2 package package 1 -bind-to socket -map-by socket
4 l3cache l3cache 1 -bind-to l3cache -map-by l3cache
4 package core 0 -bind-to core -map-by socket
4 package:PE=2 core 0 -bind-to core:2 -map-by socket
3 core none 1 -bind-to none
EOF
    done
    # what the launcher cannot express: exit 2 with the reason
    ranks "$(echo "$TOPOS" | cut -d' ' -f1)" --launcher "$exe" -np 2 --map-by ppr:1:package >/dev/null
    rc=$?
    [ "$rc" = 2 ] || fail "$name: ppr:1:package planned (exit $rc)"
    grep -qF "has no ppr over package" "$WORK/plan.err" || fail "$name: refusal: $(cat "$WORK/plan.err")"
done

# (d) Intel MPI's real pinning on this machine against the model.
if [ -x "$MPI_DIR/impi/bin/mpiexec" ]; then
    eval "$(bl_mpi_env impi "$MPI_DIR/impi")"
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' >"$WORK/init.c"
    "$MPI_DIR/impi/bin/mpicc" "$WORK/init.c" -o "$WORK/init" || fail "impi: mpicc failed"
    # the cores this process may use (its affinity within its cgroup)
    ncores=$(hwloc-calc -N core "$(hwloc-bind --get)")
    # impi_here NP MAP BIND [PREFIX...]: the plan inside this process's
    # allocation (--allocation) against Intel MPI's pinning, both run
    # under PREFIX (e.g. taskset -c 0)
    impi_here() {
        local np=$1 map=$2 bind=$3 model vars real
        shift 3
        "$@" "$BINDLAB" plan --launcher impi --allocation -np "$np" --map-by "$map" \
            --bind-to "$bind" --format tsv </dev/null >"$WORK/plan.tsv" 2>"$WORK/plan.err" ||
            { cat "$WORK/plan.err"; fail "impi here: $map $bind plan failed"; }
        model=$(awk -F'\t' 'NR > 1 && $2 == 0 { print $1, $3 }' "$WORK/plan.tsv")
        # the variables the plan names (the sweep's spelling of the layout)
        vars=$(grep -o 'I_MPI_[A-Z_]*=[^ ,]*' "$WORK/plan.err" | sed 's/:$//' | tr '\n' ' ')
        [ -n "$vars" ] || fail "impi here: no variables in the plan's note: $(cat "$WORK/plan.err")"
        # shellcheck disable=SC2086 # NAME=VALUE words
        "$@" env $vars I_MPI_DEBUG=4 mpiexec -np "$np" "$WORK/init" </dev/null >"$WORK/impi.out" 2>&1 ||
            { cat "$WORK/impi.out"; fail "impi here: launch failed"; }
        "$BINDLAB" bindings "$WORK/impi.out" >"$WORK/impi.txt" 2>&1 ||
            { cat "$WORK/impi.out"; fail "impi here: bindings could not read the table"; }
        real=$(awk '{ print $2, $6 }' "$WORK/impi.txt")
        [ "$model" = "$real" ] ||
            fail "impi here: $* -np $np $map $bind ($vars): model [$model] but Intel MPI pinned [$real]"
        echo "ok: Intel MPI on this machine $* -np $np $map $bind ($vars): $(echo "$real" | tr '\n' ';')"
        checked=$((checked + 1))
    }
    # inside an allocation of one CPU (the first this process may use):
    # Intel MPI pins every rank there, and the plan must say the same
    first=$(hwloc-calc --physical-output --intersect pu "$(hwloc-bind --get)" | cut -d, -f1)
    impi_here 2 core core taskset -c "$first"
    grep -qF "does not fit the allowed CPUs $first " "$WORK/plan.err" ||
        fail "impi here: 2 ranks on CPU $first, not said not to fit: $(cat "$WORK/plan.err")"
    while read -r map bind; do
        for np in 1 2 3; do
            impi_here "$np" "$map" "$bind"
        done
    done <<EOF
core core
slot:PE=$((ncores > 1 ? 2 : 1)) core
package package
numa numa
l3cache l3cache
core none
EOF
fi
[ "$checked" -gt 0 ] || fail "nothing checked"
echo "ok: $checked plans checked"
