#!/usr/bin/env bash
# Boots an emulated multi-socket NUMA node (QEMU, software emulation, Debian's
# own kernel, a busybox initramfs, this machine's root shared read-only over
# 9p) and runs COMMAND as root in the project root inside it. Prints the
# command's output and returns its exit status. See docs/numa-node.md.
#
#   scripts/numa-node.sh [--shape NAME] [--share DIR] [--cache DIR] -- COMMAND...
#   scripts/numa-node.sh --list-shapes
#
# Exit status: COMMAND's own; 125 only when this host lacks a prerequisite
# (a package, checked before QEMU starts: "numa-node: missing on this host:");
# 1 when the node fails to boot, with the cause in one line "numa-node: boot
# failed: ..." (not enough free memory, the kernel download, QEMU or the
# guest dying, the boot timeout, the guest's own set-up).
#   BINDLAB_NUMA_TIMEOUT    seconds for boot and command (default 1500)
#   BINDLAB_NUMA_ACCEL      QEMU -accel (default tcg,thread=single)
#   BINDLAB_NUMA_HEADROOM   MiB of free memory wanted beyond the guest's (768)
#   BINDLAB_NUMA_APPEND     more kernel command line (tests break a boot with it)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shape=${BINDLAB_NUMA_SHAPE:-snc2}
cache=${BINDLAB_NUMA_CACHE:-$root/build/numa-node}
share=""
timeout_s=${BINDLAB_NUMA_TIMEOUT:-1500}
# One host thread for all vCPUs: multi-threaded TCG with 16 vCPUs on a busy
# 2-core host once lost a guest timer and hung (RCU stall, soft lockups).
accel=${BINDLAB_NUMA_ACCEL:-tcg,thread=single}

missing_prerequisite() {
    echo "numa-node: missing on this host: $*" >&2
    exit 125
}
boot_failed() {
    echo "numa-node: boot failed: $*" >&2
    exit 1
}
usage() {
    echo "numa-node: $*" >&2
    echo "usage: scripts/numa-node.sh [--shape NAME] [--share DIR] [--cache DIR] -- COMMAND..." >&2
    exit 2
}

# The shapes: QEMU -smp, memory per NUMA node, and which CPUs each NUMA node
# holds (QEMU numbers CPUs socket by socket, core by core, thread by
# thread), and the distance table. A node with no CPUs is memory only.
shape_args() {
    case "$1" in
    snc2) # 2 sockets x 2 NUMA nodes, 2 cores per NUMA node, 2 threads per core
        smp="16,sockets=2,cores=4,threads=2"
        node_cpus=("0-3" "4-7" "8-11" "12-15")
        node_mem=(512M 512M 512M 512M)
        dist=("0 1 12" "0 2 32" "0 3 32" "1 2 32" "1 3 32" "2 3 12")
        ;;
    2s) # 2 sockets, one NUMA node each, 2 cores per socket, 2 threads per core
        smp="8,sockets=2,cores=2,threads=2"
        node_cpus=("0-3" "4-7")
        node_mem=(1G 1G)
        dist=("0 1 32")
        ;;
    2s-memonly) # 2s plus a memory-only NUMA node (like CXL or HBM in flat mode)
        smp="8,sockets=2,cores=2,threads=2"
        node_cpus=("0-3" "4-7" "")
        node_mem=(768M 768M 512M)
        dist=("0 1 32" "0 2 20" "1 2 26")
        ;;
    *) return 1 ;;
    esac
}
shapes="snc2 2s 2s-memonly"

while [ $# -gt 0 ]; do
    case "$1" in
    --shape) [ $# -ge 2 ] || usage "--shape needs a name ($shapes)"; shape=$2; shift 2 ;;
    --share) [ $# -ge 2 ] || usage "--share needs a directory"; share=$2; shift 2 ;;
    --cache) [ $# -ge 2 ] || usage "--cache needs a directory"; cache=$2; shift 2 ;;
    --list-shapes) echo "$shapes"; exit 0 ;;
    --) shift; break ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || usage "no COMMAND to run inside the node"
shape_args "$shape" || usage "unknown shape '$shape' (known: $shapes)"

# --- what the host needs ----------------------------------------------------
need_packages=(qemu-system-x86 busybox-static cpio)
for p in "${need_packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        # shellcheck source=deps.sh
        source "$root/scripts/deps.sh"
        bl_install_deps >&2 || missing_prerequisite "package $p is missing (scripts/deps.sh installs it as root)"
        break
    fi
done
command -v qemu-system-x86_64 >/dev/null || missing_prerequisite "qemu-system-x86_64 not found (install qemu-system-x86)"
[ -x /bin/busybox ] || missing_prerequisite "/bin/busybox not found (install busybox-static)"
command -v cpio >/dev/null || missing_prerequisite "cpio not found (install cpio)"

to_mib() { case "$1" in *G) echo $((${1%G} * 1024)) ;; *M) echo "${1%M}" ;; esac; }
mem_mib=0
for m in "${node_mem[@]}"; do mem_mib=$((mem_mib + $(to_mib "$m"))); done
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
# QEMU itself and TCG's translation cache need a few hundred MiB on top.
headroom=${BINDLAB_NUMA_HEADROOM:-768}
if [ "$avail_mib" -lt $((mem_mib + headroom)) ]; then
    boot_failed "shape $shape needs $((mem_mib + headroom)) MiB of free memory, $avail_mib MiB available"
fi

# --- kernel and initramfs, cached ------------------------------------------
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# Debian's current kernel package (the one linux-image-amd64 points at).
kernel_pkg() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
fetch_kernel() {
    local pkg dir
    pkg=$(kernel_pkg)
    [ -n "$pkg" ] || boot_failed "apt-cache knows no linux-image-amd64 (run apt-get update)"
    dir="$cache/kernel/$pkg"
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir" && mkdir -p "$dir/deb"
        echo "numa-node: fetching $pkg" >&2
        (cd "$dir/deb" && apt-get download "$pkg" >/dev/null 2>"$dir/download.log") ||
            boot_failed "apt-get download $pkg failed: $(tail -n1 "$dir/download.log")"
        dpkg -x "$dir"/deb/*.deb "$dir/x" || boot_failed "dpkg -x of $pkg failed"
        rm -rf "$dir/deb"
        touch "$dir/.done"
    fi
    kdir="$dir/x"
}

# Modules for virtio + 9p, in load order (each after what it depends on).
modules=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
    netfs fscache 9pnet 9pnet_virtio 9p)

build_initramfs() {
    local out=$1 tree mod f kver
    tree=$(mktemp -d "$cache/initramfs.XXXXXX")
    mkdir -p "$tree"/{bin,proc,sys,dev,host,mods}
    cp /bin/busybox "$tree/bin/busybox"
    ln -s busybox "$tree/bin/sh"
    kver=$(basename "$(ls -d "$kdir"/lib/modules/*)")
    for mod in "${modules[@]}"; do
        f=$(find "$kdir/lib/modules/$kver/kernel" -name "$mod.ko*" | head -n1)
        [ -n "$f" ] || boot_failed "kernel module $mod not found in $kver"
        case "$f" in
        *.xz) xz -dc "$f" >"$tree/mods/$mod.ko" ;;
        *.zst) zstd -qdc "$f" >"$tree/mods/$mod.ko" ;;
        *) cp "$f" "$tree/mods/$mod.ko" ;;
        esac
    done
    printf '%s\n' "${modules[@]}" >"$tree/mods/order"
    cp "$root/scripts/numa/init" "$tree/init"
    chmod +x "$tree/init"
    (cd "$tree" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
    mv "$out.tmp" "$out"
    rm -rf "$tree"
}

# A test run starts its boots together: one fetches and unpacks the kernel
# and builds the initramfs while the others wait (the lock goes with the
# process when a step fails), then they share the cache.
exec 7>"$cache/.fetch-lock"
flock 7
fetch_kernel
kernel=$(ls "$kdir"/boot/vmlinuz-* | head -n1)
initrd="$cache/initramfs.cpio.gz"
if [ ! -f "$initrd" ] || [ "$root/scripts/numa/init" -nt "$initrd" ] ||
    [ "$kernel" -nt "$initrd" ] || [ "$0" -nt "$initrd" ]; then
    build_initramfs "$initrd"
fi
exec 7>&-

# --- the job: a script the guest's init runs in the chroot -----------------
if [ -z "$share" ]; then
    share="$cache/runs/last"
    rm -rf "$share"
fi
mkdir -p "$share"
share=$(cd "$share" && pwd)
ctl=$(mktemp -d "$cache/ctl.XXXXXX")
trap 'rm -rf "$ctl"' EXIT
{
    echo "#!/bin/bash"
    echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    echo "export BINDLAB_NUMA_SHAPE=$(printf '%q' "$shape") BINDLAB_NUMA_SHARE=$(printf '%q' "$share")"
    # A guest that cannot reach the project is a broken boot, not the command's failure.
    echo "cd $(printf '%q' "$root") || { echo 'cannot cd to the project inside the guest' >/run/bindlab-ctl/boot-failed; exit 1; }"
    printf 'exec'
    printf ' %q' "$@"
    printf '\n'
} >"$ctl/job.sh"
printf '%s\n' "$share" >"$ctl/share-path"
printf '%s\n' "$root" >"$ctl/project-path"
# The build tree holding the cache (and the guest build beside it) again at
# its own path when it is outside the project, e.g. under /tmp.
buildtree=$(dirname "$cache")
case $buildtree/ in
"$root"/*) buildtree= ;;
*) printf '%s\n' "$buildtree" >"$ctl/build-path" ;;
esac

# --- QEMU ----------------------------------------------------------------
qemu=(qemu-system-x86_64 -accel "$accel" -cpu max,vendor=GenuineIntel
    -m "${mem_mib}M" -smp "$smp" -nographic -no-reboot -nodefaults
    -serial "file:$ctl/console.log" -monitor none
    -kernel "$kernel" -initrd "$initrd"
    -append "console=ttyS0 loglevel=5 panic=-1 bindlab_shape=$shape ${BINDLAB_NUMA_APPEND:-}"
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=$ctl,mount_tag=ctl,security_model=none"
    -virtfs "local,path=$root,mount_tag=project,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=${buildtree:-$root},mount_tag=buildtree,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=$share,mount_tag=share,security_model=none,multidevs=remap")
for i in "${!node_mem[@]}"; do
    qemu+=(-object "memory-backend-ram,size=${node_mem[$i]},id=m$i")
    if [ -n "${node_cpus[$i]}" ]; then
        qemu+=(-numa "node,nodeid=$i,cpus=${node_cpus[$i]},memdev=m$i")
    else
        qemu+=(-numa "node,nodeid=$i,memdev=m$i")
    fi
done
for d in "${dist[@]}"; do
    read -r s t v <<<"$d"
    qemu+=(-numa "dist,src=$s,dst=$t,val=$v")
done

start=$(date +%s)
qrc=0
timeout "$timeout_s" "${qemu[@]}" </dev/null >"$ctl/qemu.log" 2>&1 || qrc=$?
[ -f "$ctl/stdout" ] && cat "$ctl/stdout"
[ -f "$ctl/stderr" ] && cat "$ctl/stderr" >&2
show_logs() {
    echo "--- qemu:" >&2
    tail -n 20 "$ctl/qemu.log" >&2 || true
    echo "--- guest console:" >&2
    tail -n 30 "$ctl/console.log" >&2 || true
}
# The guest's init or job could not set up (a 9p mount, the cd).
if [ -f "$ctl/boot-failed" ]; then
    show_logs
    boot_failed "inside the guest: $(cat "$ctl/boot-failed") (console above)"
fi
if [ ! -f "$ctl/rc" ]; then
    show_logs
    # Booted and started the command: a failure of the run, not of the boot.
    if [ -f "$ctl/boot-seconds" ]; then
        [ "$qrc" = 124 ] && echo "numa-node: the command did not end within ${timeout_s}s (BINDLAB_NUMA_TIMEOUT); guest console above" >&2
        [ "$qrc" != 124 ] && echo "numa-node: the guest stopped while the command ran (qemu exit $qrc; console above)" >&2
        exit 1
    fi
    [ "$qrc" = 124 ] && boot_failed "the node did not boot within ${timeout_s}s (BINDLAB_NUMA_TIMEOUT)"
    boot_failed "the guest stopped before the command started (qemu exit $qrc; console above)"
fi
cp "$ctl/console.log" "$share/console.log" 2>/dev/null || true
echo "numa-node: shape $shape, $(($(date +%s) - start)) s from boot to power-off (boot $(cat "$ctl/boot-seconds" 2>/dev/null || echo ?) s)" >&2
exit "$(cat "$ctl/rc")"
