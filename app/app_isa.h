/* The app's choice of the kernels' ISA level (kernels/isa.h) and its
 * record: --isa beats BINDLAB_ISA; without either, the best level the
 * CPU runs. */
#ifndef BL_APP_ISA_H
#define BL_APP_ISA_H

#include <mpi.h>

#include "app_cli.h"
#include "err.h"
#include "h5/h5schema.h"

/* This rank's choice, before any kernel is set up: -1 with a line naming
 * where the level was asked (--isa or BINDLAB_ISA) when it is refused. */
int bl_app_isa_choose(const bl_app_opts *o, bl_err *err);

/* What was asked: --isa's value, else BINDLAB_ISA's, else "best". */
const char *bl_app_isa_asked(const bl_app_opts *o);

/* Collective: every rank's level into rank 0's rank rows (rows NULL on
 * the other ranks), and on rank 0 run->isa (the levels of all rows,
 * lowest first, comma-separated) and run->isa_asked. -1 out of memory
 * (rank 0). */
int bl_app_isa_gather(MPI_Comm comm, const bl_app_opts *o, bl_h5_run *run);

#endif
