/* The GPUs each rank could see (app_gpus.h). */
#include "app_gpus.h"

#include <stddef.h>

#include "app_rank_text.h"
#include "gpu_visible.h"

void bl_app_gpus_gather(MPI_Comm comm, bl_h5_run *run)
{
    char seen[BL_RANK_TEXT_MAX], far[BL_RANK_TEXT_MAX];
    hwloc_bitmap_t cpus = bl_gpu_own_cpus();
    bl_err err;
    int rank;

    MPI_Comm_rank(comm, &rank);
    if (bl_gpu_seen_text(cpus, seen, sizeof seen, far, sizeof far, &err) < 0)
        seen[0] = far[0] = '\0';
    hwloc_bitmap_free(cpus);
    bl_rank_text_gather(comm, seen, rank == 0 ? run->rank_rows : NULL,
                        run->nrank_rows, offsetof(bl_h5_rank, gpus));
    bl_rank_text_gather(comm, far, rank == 0 ? run->rank_rows : NULL,
                        run->nrank_rows, offsetof(bl_h5_rank, gpus_far));
}
