/* The GPUs each rank could see, recorded in its rank row: read from sysfs
 * and its visible-device variables (common/gpu_visible.h), no GPU
 * runtime. */
#ifndef BL_APP_GPUS_H
#define BL_APP_GPUS_H

#include <mpi.h>

#include "h5/h5schema.h"

/* Collective: each rank's visible GPUs and the far ones among them (not
 * local to its CPUs) into rank 0's run->rank_rows (gpus, gpus_far). A
 * rank that cannot read them records nothing (NULL). */
void bl_app_gpus_gather(MPI_Comm comm, bl_h5_run *run);

#endif
