/* One sweep at a time per results directory: `bindlab sweep` holds an flock
 * on RESULTS/NAME.d/.lock while it runs (exclusive; shared for a --shard,
 * plus an exclusive .lock.shard-I-of-K, so the shards of a Slurm array run
 * side by side). The kernel drops an flock when its last holder dies, so a
 * lock left by a dead process is no lock. The supervisor of a run in flight
 * holds the lock too (launch.h): a sweep whose harness was killed keeps its
 * directory locked until its last run is dead, and a second sweep waits for
 * that instead of overlapping it. */
#ifndef BL_SWEEP_LOCK_H
#define BL_SWEEP_LOCK_H

#include <stdio.h>

#include "err.h"

typedef struct bl_sweep_lock {
    int fd[2];  /* .lock and the shard's file; -1 when not held */
} bl_sweep_lock;

/* Takes the lock of dir, held open as dirfd (sweep_dir.h). When a live process holds it, returns -3 with err
 * naming its PID. When it is held only by what a dead sweep left (its run
 * being killed), says so on progress and waits up to wait_s seconds.
 * Returns 0, -3 when busy, -1 with err when the lock file cannot be used. */
int bl_sweep_lock_take(bl_sweep_lock *l, int dirfd, const char *dir,
                       int shard,
                       int nshards, double wait_s, FILE *progress,
                       bl_err *err);

void bl_sweep_lock_release(bl_sweep_lock *l);

#endif
