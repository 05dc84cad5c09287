#!/usr/bin/env bash
# A node that fails to boot is a failure, never a skip: scripts/numa-node.sh
# exits 1 (not 125, kept for a host prerequisite missing before QEMU starts)
# and names the cause, for each way a boot breaks: too little free memory,
# the kernel download offline, QEMU that cannot start, a guest whose
# set-up fails, a boot that times out, a guest kernel that dies; and the
# boot test and a judge fed by such a boot fail, saying why. QEMU is faked where it never needs to run; the
# dying guest is the real kernel with an init that does not exist (a few
# seconds). Uses the kernel a boot left in the cache (fixture numa_2s).
source "$BINDLAB_SOURCE_DIR/tests/integration/common.sh"
source "$BINDLAB_SOURCE_DIR/tests/numa/numa_common.sh"
node=$src/scripts/numa-node.sh
# Without QEMU and the rest, numa-node.sh stops before any of this (125).
if [ -f "$(numa_runs 2s)/UNAVAILABLE" ]; then
    echo "SKIP: $(cat "$(numa_runs 2s)/UNAVAILABLE")"
    exit 77
fi
fake=$WORK/bin
mkdir -p "$fake"

# broken CAUSE ENV... -- ARGS...: numa-node.sh under ENV fails with exit 1
# and "numa-node: boot failed: CAUSE".
broken() {
    local cause=$1 rc=0
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$node" --shape 2s --share "$WORK/share" "$@" -- true >"$WORK/out" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { cat "$WORK/out" >&2; fail "$cause: numa-node.sh exited $rc, expected 1 (a failed boot)"; }
    grep -q "^numa-node: boot failed: $cause" "$WORK/out" ||
        { cat "$WORK/out" >&2; fail "no 'numa-node: boot failed: $cause' in the output"; }
    echo "ok: $(grep '^numa-node: boot failed' "$WORK/out")"
}

broken "shape 2s needs [0-9]* MiB of free memory" BINDLAB_NUMA_HEADROOM=100000000 -- --cache "$cache"

# An offline mirror: apt-get download fails, everything else is Debian's.
cat >"$fake/apt-get" <<'SH'
#!/bin/sh
[ "$1" = download ] && { echo "E: Failed to fetch http://deb.debian.org/x.deb  Temporary failure resolving 'deb.debian.org'" >&2; exit 100; }
exec /usr/bin/apt-get "$@"
SH
chmod +x "$fake/apt-get"
broken "apt-get download linux-image-.* failed: E: Failed to fetch" PATH="$fake:$PATH" -- --cache "$WORK/empty-cache"
rm "$fake/apt-get"

cat >"$fake/qemu-system-x86_64" <<'SH'
#!/bin/sh
echo "qemu-system-x86_64: -kernel: could not load kernel" >&2
exit 1
SH
chmod +x "$fake/qemu-system-x86_64"
broken "the guest stopped before the command started (qemu exit 1" PATH="$fake:$PATH" -- --cache "$cache"

# A guest whose own set-up failed (here, the job's cd into the project)
# reports it in the ctl share: QEMU faked to write that report as the guest
# would, then power off.
cat >"$fake/qemu-system-x86_64" <<'SH'
#!/bin/sh
for a; do
    case $a in local,path=*,mount_tag=ctl,*) ctl=${a#local,path=}; ctl=${ctl%%,*} ;; esac
done
echo "cannot cd to the project inside the guest" >"$ctl/boot-failed"
SH
broken "inside the guest: cannot cd to the project inside the guest" PATH="$fake:$PATH" -- --cache "$cache"

# A QEMU that never boots: the timeout ends it.
printf '#!/bin/sh\nexec sleep 1000\n' >"$fake/qemu-system-x86_64"
broken "the node did not boot within 2s" PATH="$fake:$PATH" BINDLAB_NUMA_TIMEOUT=2 -- --cache "$cache"
rm "$fake/qemu-system-x86_64"

# The real guest kernel, dying at once: no init, it panics and QEMU ends.
broken "the guest stopped before the command started (qemu exit 0" \
    BINDLAB_NUMA_APPEND="rdinit=/bindlab-no-such-init maxcpus=1" -- --cache "$cache"

# The boot test fails on such a boot and names the cause; a judge of its
# checks then fails too (never skips). Own runs folder: the real one's
# results are being judged now.
export BINDLAB_NUMA_RUNS=$WORK/runs
rc=0
BINDLAB_NUMA_HEADROOM=100000000 bash "$src/tests/numa/boot_shape.sh" 2s check >"$WORK/out" 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "^FAIL: the 2s node's run failed (exit 1): numa-node: boot failed: shape 2s needs" "$WORK/out"; then
    cat "$WORK/out" >&2
    fail "boot_shape.sh on a broken boot exited $rc, expected 1 naming the cause"
fi
echo "ok: $(grep '^FAIL' "$WORK/out")"
rc=0
bash "$src/tests/numa/test_numa_check.sh" >"$WORK/out" 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "^FAIL: guest check check has no result from the 2s node: numa.boot.2s failed" "$WORK/out"; then
    cat "$WORK/out" >&2
    fail "test_numa_check.sh after a broken boot exited $rc, expected 1"
fi
echo "ok: the judge after it: $(grep '^FAIL' "$WORK/out")"
