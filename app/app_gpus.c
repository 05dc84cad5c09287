/* The GPUs each rank could see, and those shared while others idle
 * (app_gpus.h). */
#include "app_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_shared.h"
#include "gpu_visible.h"

typedef struct shared_ctx {
    bl_h5_run *run;
    size_t cap;
} shared_ctx;

/* Rank 0: the host rank r's row names ("" when it has none). */
static const char *host_of(const bl_h5_run *run, int r)
{
    for (size_t q = 0; q < run->nrank_rows; q++)
        if (run->rank_rows[q].rank == r && run->rank_rows[q].host)
            return run->rank_rows[q].host;
    return "";
}

/* A gpu-shared finding appended to the run's findings (and said on
 * stderr, as --check's are); dropped when out of memory. */
static void add_shared(void *p, int rank, const char *text)
{
    shared_ctx *c = p;
    bl_h5_run *run = c->run;
    const char *host = host_of(run, rank);
    if (bl_h5_run_add_finding(run, &c->cap, rank, host, "gpu-shared",
                              "warning", text) < 0)
        return;
    fprintf(stderr, "bindlab-app: rank %d (%s): warning gpu-shared: %s\n",
            rank, host, text);
}

/* Rank 0: the rows' gpus and gpus_far, then the shared GPUs judged. */
static void record(const bl_gpu_seen *all, int nranks, const int *node_of,
                   bl_h5_run *run)
{
    for (size_t q = 0; q < run->nrank_rows; q++) {
        int r = run->rank_rows[q].rank;
        if (r < 0 || r >= nranks)
            continue;
        run->rank_rows[q].gpus = strdup(all[r].seen);
        run->rank_rows[q].gpus_far = strdup(all[r].far);
    }
    bl_gpu_rank_view *v = calloc((size_t)nranks, sizeof *v);
    if (!v)
        return;
    for (int r = 0; r < nranks; r++)
        v[r] = (bl_gpu_rank_view){r, node_of ? node_of[r] : 0,
                                  all[r].given, all[r].seen, all[r].node};
    shared_ctx c = {run, run->nfindings};
    bl_gpu_shared_judge(v, nranks, add_shared, &c);
    free(v);
}

void bl_app_gpus_gather(MPI_Comm comm, const int *node_of, bl_h5_run *run)
{
    bl_gpu_seen mine, *all = NULL;
    hwloc_bitmap_t cpus = bl_gpu_own_cpus();
    bl_err err;
    int rank, nranks, ok = 1;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    if (bl_gpu_seen_read(cpus, &mine, &err) < 0)
        memset(&mine, 0, sizeof mine);
    hwloc_bitmap_free(cpus);
    if (rank == 0)
        ok = (all = calloc((size_t)nranks, sizeof *all)) != NULL;
    /* Without rank 0's buffer nobody sends: the GPUs are what is lost. */
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                   MPI_BYTE, 0, comm);
    if (rank == 0 && all)
        record(all, nranks, node_of, run);
    free(all);
}
