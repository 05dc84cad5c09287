/* The results directory of a sweep is its own: nothing is created or
 * opened for writing through a symbolic link there. A link at RESULTS/
 * NAME.d, or inside it (a record, a log, a lock, the app's directory),
 * would send the sweep's writes to wherever it points. The directory is
 * opened once, without following a link, and what the sweep writes there
 * is created relative to that descriptor (openat, renameat, unlinkat), so
 * NAME.d swapped for a link after the start cannot redirect it either. */
#ifndef BL_SWEEP_DIR_H
#define BL_SWEEP_DIR_H

#include "err.h"

/* Opens dir (a directory, not a link to one) as *dirfd and its app/
 * (created when absent) as *appfd; neither may hold a symbolic link. 0, or
 * -1 with err naming the link and where it points (both fds then -1). */
int bl_sweep_dir_hold(const char *dir, int *dirfd, int *appfd, bl_err *err);

void bl_sweep_dir_release(int *dirfd, int *appfd);

/* 0 when the name dir still is the directory held as dirfd; else -1 with
 * err naming what took its place (a link: where it points). */
int bl_sweep_dir_still(const char *dir, int dirfd, bl_err *err);

/* openat(2) in the directory held as dirfd of path's last component, never
 * through a link (O_NOFOLLOW); path names it in messages. The descriptor,
 * or -1 with err (saying it is a link when it is one). */
int bl_sweep_dir_open(int dirfd, const char *path, int flags,
                      const char *what, bl_err *err);

#endif
