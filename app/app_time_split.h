/* The kernel's per-rank time split of its last iteration, gathered to rank
 * 0 as the run's /run/time_split rows. */
#ifndef BL_APP_TIME_SPLIT_H
#define BL_APP_TIME_SPLIT_H

#include <mpi.h>

#include "h5/h5schema.h"
#include "kernel.h"

/* Collective. Asks k->time_split on every rank (nothing when the kernel
 * has none: r keeps 0 rows) and fills r->time_split on rank 0. 0, or -1
 * with err on rank 0 when it could not allocate. */
int bl_time_split_gather(MPI_Comm comm, const bl_kernel *k,
                         bl_kernel_ctx *ctx, bl_h5_run *r, bl_err *err);

#endif
