/* The merged file of a sweep, kept up to date as runs end
 * (sweep_merge.c). Shared by sweep.c; not a public interface. */
#ifndef BL_SWEEP_MERGE_H
#define BL_SWEEP_MERGE_H

#include "sweep/sweep_item.h"

/* Appends to the merged file the records of DIR it lacks (looked up by run
 * id; creates the merged file when missing). */
int bl_sweep_merge(bl_sweep_ctx *c, bl_err *err);
/* Appends the record of one run to the merged file (bl_h5_append): time
 * proportional to the run, not to the sweep. */
int bl_sweep_append(bl_sweep_ctx *c, const bl_sweep_item *it, bl_err *err);
/* At the end of a sweep: the merged file's twin removed (the next append
 * copies it anew), so that the results hold one copy of the runs. */
void bl_sweep_merge_done(bl_sweep_ctx *c);

#endif
