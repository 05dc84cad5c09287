/* The results directory of a sweep is its own: nothing is created or
 * opened for writing through a symbolic link there. A link at RESULTS/
 * NAME.d, or inside it (a record, a log, a lock, the app's directory),
 * would send the sweep's writes to wherever it points. */
#ifndef BL_SWEEP_DIR_H
#define BL_SWEEP_DIR_H

#include "err.h"

/* 0 when dir is a directory (not a link to one) and neither it nor its
 * app/ subdirectory holds a symbolic link; else -1 with err naming the
 * link and where it points. */
int bl_sweep_dir_check(const char *dir, bl_err *err);

/* open(2) of a file the sweep writes in its directory, never through a
 * link (O_NOFOLLOW): the descriptor, or -1 with err naming the file (and
 * saying it is a link when it is one). */
int bl_sweep_dir_open(const char *path, int flags, const char *what,
                      bl_err *err);

#endif
