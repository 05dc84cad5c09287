#!/usr/bin/env bash
# The price of durable run files: every bindlab file is written to a
# temporary, fsync'ed, renamed, and its directory fsync'ed
# (common/atomic_file.c). This times `bindlab merge -o OUT.h5 RECORD.h5`
# (one real per-run record in, one sweep file of the same size out) with the
# fsyncs, with the file's but not the directory's, and without any (LD_PRELOAD
# shims, built here, turn them into no-ops, as eatmydata does), interleaved
# so that drift hits all alike, and prints the medians, their differences
# (the fsyncs' cost per file) and the ratio.
# usage: bench/atomic_write.sh [ROUNDS] [DIR]   (default 31 rounds; DIR is
#        where the files are written, default a new directory in results/,
#        which is where sweep files live)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-31}
bindlab=${BINDLAB:-build/bindlab}
[ -x "$bindlab" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
command -v cc >/dev/null || { echo "needs a C compiler (cc) for the shim" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p results
work=$(mktemp -d "${2:-results}/atomic-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fsync(2) and fdatasync(2) that do nothing (what eatmydata does).
cat >"$work/nosync.c" <<'C'
int fsync(int fd) { (void)fd; return 0; }
int fdatasync(int fd) { (void)fd; return 0; }
C
cc -shared -fPIC -O2 -o "$work/nosync.so" "$work/nosync.c"
# fsync of directories only turned off: what the file's own fsync costs.
cat >"$work/nodirsync.c" <<'C'
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
int fsync(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    return (int)syscall(SYS_fsync, fd);
}
C
cc -shared -fPIC -O2 -o "$work/nodirsync.so" "$work/nodirsync.c"

# One real run's record: a one-run sweep of a small triad.
cat >"$work/one.yaml" <<'YAML'
name: one
kernels: [{name: triad, size: 8MiB, iters: 2, warmup: 0}]
defaults: {omp_places: cores, omp_proc_bind: close, threads: 1}
sweep: {np: [1]}
YAML
"$bindlab" sweep --results "$work/res" "$work/one.yaml" >/dev/null
record=$(ls "$work"/res/one.d/*.h5 | head -1)

ns() { date +%s%N; }
for r in $(seq 1 "$rounds"); do
    for mode in sync filesync nosync; do
        case $mode in
        sync) pre="" ;;
        filesync) pre="$work/nodirsync.so" ;;
        nosync) pre="$work/nosync.so" ;;
        esac
        t0=$(ns)
        LD_PRELOAD=$pre "$bindlab" merge -o "$work/out-$mode.h5" "$record" >/dev/null
        t1=$(ns)
        echo "$mode $(( (t1 - t0) / 1000 ))"
    done
done >"$work/times"
fs=$(stat -f -c %T "$work")
bytes=$(stat -c %s "$work/out-sync.h5")
awk -v fs="$fs" -v bytes="$bytes" -v rounds="$rounds" '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == "sync" { s[++ns] = $2 } $1 == "nosync" { u[++nu] = $2 }
    $1 == "filesync" { f[++nf] = $2 }
    END {
        ms = median(s, ns) / 1000; mu = median(u, nu) / 1000; mf = median(f, nf) / 1000
        printf "bindlab merge -o of one run record (%d bytes) on %s, %d interleaved rounds:\n", bytes, fs, rounds
        printf "  file + directory fsync  median %.2f ms (min %.2f, max %.2f)\n", ms, s[1] / 1000, s[ns] / 1000
        printf "  file fsync only         median %.2f ms (min %.2f, max %.2f)\n", mf, f[1] / 1000, f[nf] / 1000
        printf "  no fsync                median %.2f ms (min %.2f, max %.2f)\n", mu, u[1] / 1000, u[nu] / 1000
        printf "  fsync cost per file %.2f ms (directory fsync %.2f ms); ratio to no fsync %.2f\n", ms - mu, ms - mf, ms / mu
    }' "$work/times"
