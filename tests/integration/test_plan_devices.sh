#!/bin/bash
# bindlab plan with GPUs and network cards, on real nodes from hwloc's own
# test set (tests/fixtures/topologies/devices/): the GPUs each rank is given
# under every --gpu-bind form, worked by hand from the nodes' PCI trees, and
# every device's NUMA node checked against hwloc-calc --local-memory (near
# devices share the rank's NUMA node; a rank given a GPU of another NUMA
# node is warned about, and no other). Ranks are placed by Open MPI's
# mapper (plan_common.sh).
. "$(dirname "$0")/plan_common.sh"
need_openmpi
command -v hwloc-calc >/dev/null || { echo "SKIP: no hwloc-calc"; exit 77; }

D=tests/fixtures/topologies/devices
DGX2=$D/nvidiaDGX2.xml
P8=$D/power8gpudistances.xml
X24=$D/24em64t-2n6c2t-pci.xml
N96=$D/96em64t-4n4d3ca2co-pci.xml

# tsv NAME TOPOLOGY ARGS...: the plan's TSV in $T/NAME.tsv, warnings in
# $T/NAME.err; exit 0 required.
tsv() {
    local name=$1 topo=$2 rc; shift 2
    "$BINDLAB" plan --topology "$topo" "$@" --format tsv >"$T/$name.tsv" \
        2>"$T/$name.err"; rc=$?
    [ "$rc" = 0 ] || fail "$name: exit $rc: $(cat "$T/$name.err")"
    [ "$(head -n 1 "$T/$name.tsv")" = "$(printf 'rank\tthread\tpus\tcore\tl3\tnuma\tpackage\tgpus\tnear_gpus\tnear_nics')" ] ||
        fail "$name: header $(head -n 1 "$T/$name.tsv")"
}

# gpus_of NAME: "rank=gpus" per rank, one line
gpus_of() {
    awk -F'\t' 'NR > 1 { printf "%s%s=%s", n++ ? " " : "", $1, $8 }' "$T/$1.tsv"
}

# hwloc_numa TOPOLOGY BUSID: the device's NUMA node (logical), by hwloc
hwloc_numa() {
    hwloc-calc --input "$1" --local-memory "pci=$2" ||
        fail "hwloc-calc --local-memory pci=$2 on $1"
}

# check_against_hwloc NAME TOPOLOGY: every given and near device of every
# row is on the rank's NUMA node by hwloc-calc, except given GPUs of the
# ranks the remote warning names (which must be exactly the others), and
# near devices of ranks that have none of that kind on their NUMA node.
check_against_hwloc() {
    local name=$1 topo=$2 rank numa given near_g near_n bus remote="" want
    while IFS=$'\t' read -r rank _ _ _ _ numa _ given near_g near_n; do
        for bus in ${given//,/ }; do
            [ "$bus" = - ] && continue
            [ "$(hwloc_numa "$topo" "$bus")" = "$numa" ] ||
                remote="$remote${remote:+,}$rank"
        done
        for bus in ${near_g//,/ } ${near_n//,/ }; do
            [ "$bus" = - ] && continue
            if [ "$(hwloc_numa "$topo" "$bus")" != "$numa" ] &&
               ! grep -q "no .* is attached near" "$T/$name.err"; then
                fail "$name: rank $rank (NUMA $numa) near $bus, on NUMA $(hwloc_numa "$topo" "$bus") by hwloc, and no warning"
            fi
        done
    done < <(tail -n +2 "$T/$name.tsv")
    remote=$(echo "$remote" | tr , '\n' | sort -un | paste -sd, -)
    if [ -n "$remote" ]; then
        want=$(sed -n 's/.*warning: ranks\{0,1\} \([0-9,-]*\) given a GPU on another NUMA node.*/\1/p' "$T/$name.err")
        # the warning lists ranks as "1,3" or ranges "0-3"
        [ "$(echo "$want" | awk -F, '{for(i=1;i<=NF;i++){split($i,r,"-");if(r[2]=="")r[2]=r[1];for(j=r[1];j<=r[2];j++)printf "%s%d",o++?",":"",j}}')" = "$remote" ] ||
            fail "$name: hwloc says ranks $remote get remote GPUs, the warning says '$want': $(cat "$T/$name.err")"
    elif grep -q "given a GPU on another" "$T/$name.err"; then
        fail "$name: remote GPU warning, but hwloc puts every given GPU on its rank's NUMA node: $(cat "$T/$name.err")"
    fi
}

# DGX-2, one rank per package in turn, 4 GPUs each: each package's ranks
# take its 8 GPUs by turns (rank 2 is package 0's second rank).
tsv dgx2-closest "$DGX2" -np 4 --map-by package --gpus-per-rank 4
[ "$(gpus_of dgx2-closest)" = "0=0000:34:00.0,0000:36:00.0,0000:39:00.0,0000:3b:00.0 1=0000:b7:00.0,0000:b9:00.0,0000:bc:00.0,0000:be:00.0 2=0000:57:00.0,0000:59:00.0,0000:5c:00.0,0000:5e:00.0 3=0000:e0:00.0,0000:e2:00.0,0000:e5:00.0,0000:e7:00.0" ] ||
    fail "dgx2-closest: $(gpus_of dgx2-closest)"
check_against_hwloc dgx2-closest "$DGX2"
grep -q "GPU" "$T/dgx2-closest.err" && fail "dgx2-closest: GPU warning: $(cat "$T/dgx2-closest.err")"

# POWER8, ranks alternating packages: closest keeps each on its package's
# two GPUs; round-robin (local_rank % ngpus) sends ranks 1 and 2 across;
# none gives nothing (every rank sees every GPU).
tsv p8-closest "$P8" -np 4 --map-by package --gpu-bind closest
[ "$(gpus_of p8-closest)" = "0=0002:01:00.0 1=000a:01:00.0 2=0003:01:00.0 3=000b:01:00.0" ] ||
    fail "p8-closest: $(gpus_of p8-closest)"
check_against_hwloc p8-closest "$P8"
tsv p8-rr "$P8" -np 4 --map-by package --gpu-bind round-robin
[ "$(gpus_of p8-rr)" = "0=0002:01:00.0 1=0003:01:00.0 2=000a:01:00.0 3=000b:01:00.0" ] ||
    fail "p8-rr: $(gpus_of p8-rr)"
check_against_hwloc p8-rr "$P8"
grep -q "warning: ranks 1-2 given a GPU on another NUMA node" "$T/p8-rr.err" ||
    fail "p8-rr: no warning for ranks 1-2: $(cat "$T/p8-rr.err")"
tsv p8-none "$P8" -np 4 --map-by package --gpu-bind none
[ "$(gpus_of p8-none)" = "0=- 1=- 2=- 3=-" ] || fail "p8-none: $(gpus_of p8-none)"

# Two-socket Xeon: one GPU on package 0, two on package 1, every NIC on
# package 0. Closest: ranks 0-1 share package 0's GPU (no GPU is idle);
# ranks 2-3 have no NIC near and are told so.
tsv x24-closest "$X24" -np 4 --map-by ppr:2:package:PE=3 --gpus-per-rank 1
[ "$(gpus_of x24-closest)" = "0=0000:06:00.0 1=0000:06:00.0 2=0000:11:00.0 3=0000:14:00.0" ] ||
    fail "x24-closest: $(gpus_of x24-closest)"
check_against_hwloc x24-closest "$X24"
grep -q "warning: ranks 2-3: no network card is attached near" "$T/x24-closest.err" ||
    fail "x24-closest: no NIC warning: $(cat "$T/x24-closest.err")"
grep -q "is given to" "$T/x24-closest.err" &&
    fail "x24-closest: shared-GPU warning with no idle GPU"
# Round-robin with 2 GPUs per rank over 3 GPUs: shared while none idle.
tsv x24-rr2 "$X24" -np 2 --map-by ppr:1:package:PE=6 --gpus-per-rank 2 \
    --gpu-bind round-robin
[ "$(gpus_of x24-rr2)" = "0=0000:06:00.0,0000:11:00.0 1=0000:06:00.0,0000:14:00.0" ] ||
    fail "x24-rr2: $(gpus_of x24-rr2)"
check_against_hwloc x24-rr2 "$X24"
# Closest with 2 per rank on package 0 (1 local GPU): a remote second one.
tsv x24-c1 "$X24" -np 1 --map-by ppr:1:package:PE=6 --gpus-per-rank 2
[ "$(gpus_of x24-c1)" = "0=0000:06:00.0,0000:11:00.0" ] || fail "x24-c1: $(gpus_of x24-c1)"
check_against_hwloc x24-c1 "$X24"

# 4 NUMA nodes, 2 Ethernet ports each, no GPU: near NICs by hwloc.
tsv n96 "$N96" -np 8 --map-by ppr:2:numa:PE=2
check_against_hwloc n96 "$N96"
[ "$(awk -F'\t' 'NR > 1 && $10 == "-"' "$T/n96.tsv")" = "" ] || fail "n96: a rank without near NIC"
grep -q "GPU" "$T/n96.err" && fail "n96: GPU warning without GPUs"

# The text shows each device with the ranks near it and given it.
"$BINDLAB" plan --topology "$P8" -np 4 --map-by package --gpus-per-rank 1 \
    >"$T/p8.txt" 2>&1 || fail "p8 text: $(cat "$T/p8.txt")"
grep -qE '^  gpu 2 +000a:01:00.0  10de  cuda2,opencl0d2,nvml2 +numa 1 package 1  near ranks 1,3  given to 1$' "$T/p8.txt" ||
    fail "p8 text: no line for GPU 000a: $(cat "$T/p8.txt")"

# A sweep file's gpu_bind keys: each layout dealt its own way.
printf 'kernels: [triad]\ndefaults: {np: 4, map_by: package}\nsweep:\n  gpu_bind: [none, closest, round-robin]\n' >"$T/g.yaml"
"$BINDLAB" plan "$T/g.yaml" --topology "$P8" --format tsv >"$T/g.tsv" 2>"$T/g.err" ||
    fail "sweep plan: $(cat "$T/g.err")"
got=$(awk -F'\t' 'NR > 1 { printf "%s%s.%s=%s", n++ ? " " : "", $1, $2, $9 }' "$T/g.tsv")
[ "$got" = "r0000.0=- r0000.1=- r0000.2=- r0000.3=- r0001.0=0002:01:00.0 r0001.1=000a:01:00.0 r0001.2=0003:01:00.0 r0001.3=000b:01:00.0 r0002.0=0002:01:00.0 r0002.1=0003:01:00.0 r0002.2=000a:01:00.0 r0002.3=000b:01:00.0" ] ||
    fail "sweep plan: $got"

# Two nodes: the same device columns after the node column, each node's
# ranks dealt its own GPUs by their rank on that node (round-robin: rank 4
# is node 2's local rank 0, so GPU 0 again).
"$BINDLAB" plan --topology "$P8" --nodes 2 -np 8 --map-by ppr:2:package \
    --gpu-bind round-robin --format tsv >"$T/n2.tsv" 2>"$T/n2.err" ||
    fail "two nodes: $(cat "$T/n2.err")"
[ "$(head -n 1 "$T/n2.tsv")" = "$(printf 'node\trank\tthread\tpus\tcore\tl3\tnuma\tpackage\tgpus\tnear_gpus\tnear_nics')" ] ||
    fail "two nodes: header $(head -n 1 "$T/n2.tsv")"
got=$(awk -F'\t' 'NR > 1 { printf "%s%s.%s=%s", n++ ? " " : "", $1, $2, $9 }' "$T/n2.tsv")
[ "$got" = "1.0=0002:01:00.0 1.1=0003:01:00.0 1.2=000a:01:00.0 1.3=000b:01:00.0 2.4=0002:01:00.0 2.5=0003:01:00.0 2.6=000a:01:00.0 2.7=000b:01:00.0" ] ||
    fail "two nodes: $got"
[ "$(awk -F'\t' 'NR > 1 && $8 == 1 { print $10 }' "$T/n2.tsv" | sort -u)" = "000a:01:00.0,000b:01:00.0" ] ||
    fail "two nodes: package 1's near GPUs: $(cat "$T/n2.tsv")"

# This machine (no --topology): its devices as sysfs lists them, by the
# PCI classes docs/devices.md counts (GPU: 0302, 0380, 1200, NVIDIA's
# 0300; NIC: 02xx, 0c06). None in sysfs: no device section either.
want=
for d in /sys/bus/pci/devices/*; do
    [ -r "$d/class" ] || continue
    class=$(cat "$d/class") vendor=$(cat "$d/vendor" 2>/dev/null)
    case $class in
        0x0302*|0x0380*|0x1200*) want+="gpu ${d##*/}"$'\n' ;;
        0x0300*) [ "$vendor" = 0x10de ] && want+="gpu ${d##*/}"$'\n' ;;
        0x02*|0x0c06*) want+="nic ${d##*/}"$'\n' ;;
    esac
done
want=$(printf '%s' "$want" | sort)
"$BINDLAB" plan -np 1 >"$T/here.txt" 2>"$T/here.err" ||
    fail "this machine: $(cat "$T/here.err")"
got=$(awk '/^devices / { on = 1; next } on && /^$/ { on = 0 }
           on && ($1 == "gpu" || $1 == "nic") { print $1, $3 }' "$T/here.txt" | sort)
[ "$got" = "$want" ] ||
    fail "this machine: sysfs has devices [$want], the plan shows [$got]: $(cat "$T/here.txt")"
[ -n "$want" ] || ! grep -q '^devices ' "$T/here.txt" ||
    fail "this machine: no device in sysfs, but a device section: $(cat "$T/here.txt")"

one_line_exit2 bad-gpu-bind "closest, round-robin, none" --topology "$P8" \
    -np 2 --gpu-bind nearest
one_line_exit2 bad-gpus-per-rank "1 to 1024" --topology "$P8" -np 2 \
    --gpus-per-rank 0
echo "PASS"
