#!/usr/bin/env bash
# bindlab plan under Open MPI 5 (PRRTE, from scripts/mpis.sh) on the shipped
# EPYC and Xeon topologies, against a real Open MPI 5 launch of the same
# layouts on the same topology: `mpirun --report-bindings true` with
# HWLOC_XMLFILE and the affinity-recording preload (the ranks start; the
# plan uses --do-not-launch --display map, PRRTE's job map: nothing starts).
# Each rank's PUs in the plan must equal what
# PRRTE reported binding at launch, read by `bindlab bindings`.
# Needs build-mpi/ompi5 (scripts/mpis.sh installs it; BINDLAB_MPI_DIR
# overrides); exit 77 only when it cannot install.
source "$(dirname "$0")/common.sh"
: "${BINDLAB:?run through ctest}"
SRC=$BINDLAB_SOURCE_DIR
# shellcheck source=scripts/mpis.sh
source "$SRC/scripts/mpis.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bl_require_mpi ompi5 || exit 77
prefix=$BL_MPI_PREFIX
preload=$BINDLAB_BUILD_DIR/libbindlab_preload.so
[ -f "$preload" ] || fail "no $preload (target bindlab-affinity-preload)"
export PATH=$prefix/bin:$PATH BINDLAB_PRELOAD=$preload
mpirun --version | head -1 | grep -q '(Open MPI) 5\.' || fail "PATH's mpirun is not Open MPI 5"

checked=0
for topo in AMD-19h-Zen3-2xEpyc-7763.xml Intel-Skylake-2xXeon6140.xml \
            AMD-19h-Zen4-2xEpyc-9654.xml Intel-SapphireRapids-8480-2s-SNC4-HT.xml; do
    xml=$SRC/configs/topologies/$topo
    npus=$(hwloc-calc --if xml --input "$xml" -N pu all)
    while read -r np map bind; do
        "$BINDLAB" plan --topology "$xml" -np "$np" --map-by "$map" \
            --bind-to "$bind" --threads 1 --format tsv </dev/null >"$WORK/plan.tsv" 2>"$WORK/plan.err" ||
            { cat "$WORK/plan.err"; fail "$topo $np $map $bind: plan failed"; }
        awk -F'\t' 'NR > 1 && $2 == 0 { print $1, $3 }' "$WORK/plan.tsv" >"$WORK/plan.ranks"
        # the same layout launched for real (PRRTE spelling: package)
        HWLOC_XMLFILE=$xml HWLOC_THISSYSTEM=1 LD_PRELOAD=$preload \
            BINDLAB_PRELOAD_CPUS=0-$((npus - 1)) \
            mpirun -np "$np" --map-by "$map" --bind-to "$bind" --report-bindings true \
            </dev/null >"$WORK/launch.out" 2>&1 || { cat "$WORK/launch.out"; fail "$topo: launch failed"; }
        "$BINDLAB" bindings "$WORK/launch.out" --topology "$xml" >"$WORK/launch.txt" ||
            fail "$topo: bindings could not read the launch"
        awk '{ print $2, $6 }' "$WORK/launch.txt" >"$WORK/launch.ranks"
        [ "$(wc -l <"$WORK/launch.ranks")" = "$np" ] ||
            { cat "$WORK/launch.out"; fail "$topo $map $bind: $np ranks expected in the launch report"; }
        if ! diff "$WORK/launch.ranks" "$WORK/plan.ranks" >"$WORK/diff"; then
            cat "$WORK/diff"
            fail "$topo -np $np --map-by $map --bind-to $bind: plan differs from the launch"
        fi
        echo "ok: $topo -np $np --map-by $map --bind-to $bind ($(head -1 "$WORK/plan.ranks"))"
        checked=$((checked + 1))
    done <<'EOF'
4 ppr:2:package:PE=4 core
4 package core
2 package package
4 numa numa
4 l3cache l3cache
3 core core
4 ppr:2:package:PE=2 hwthread
4 hwthread hwthread
EOF
done
[ "$checked" = 32 ] || fail "checked $checked layouts, expected 32"
