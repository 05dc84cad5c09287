/* The GPUs each rank could see, recorded in its rank row: read from sysfs
 * and its visible-device variables (common/gpu_visible.h), no GPU
 * runtime. */
#ifndef BL_APP_GPUS_H
#define BL_APP_GPUS_H

#include <mpi.h>

#include "h5/h5schema.h"

/* Collective: each rank's visible GPUs and the far ones among them (not
 * local to its CPUs) into rank 0's run->rank_rows (gpus, gpus_far); a
 * rank that cannot read them records "". Then, on rank 0, a gpu-shared
 * warning appended to run->findings for each GPU given to two ranks of a
 * node (node_of[rank]; NULL: one node) while another of its GPUs is given
 * to none (common/gpu_shared.h). */
void bl_app_gpus_gather(MPI_Comm comm, const int *node_of, bl_h5_run *run);

#endif
