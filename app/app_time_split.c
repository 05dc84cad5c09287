/* bl_time_split_gather: every rank's phases travel to rank 0 as raw
 * bl_phase records (fixed size) and become /run/time_split rows there. */
#include "app_time_split.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 16

int bl_time_split_gather(MPI_Comm comm, const bl_kernel *k,
                         bl_kernel_ctx *ctx, bl_h5_run *r, bl_err *err)
{
    bl_phase mine[MAX_PHASES], *all = NULL;
    int rank, nranks, n = 0, *counts = NULL, *displs = NULL, total = 0;
    int ok = 1, rc = 0;
    if (!k->time_split)
        return 0; /* the same kernel on every rank: none of them calls MPI */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    n = (int)k->time_split(ctx, mine, MAX_PHASES);
    if (n > MAX_PHASES)
        n = MAX_PHASES;
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
        ok = counts && displs;
    }
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0 && ok) {
        for (int q = 0; q < nranks; q++) {
            displs[q] = total * (int)sizeof *all;
            total += counts[q];
            counts[q] *= (int)sizeof *all;
        }
        all = calloc((size_t)total + 1, sizeof *all);
        r->time_split = calloc((size_t)total + 1, sizeof *r->time_split);
        ok = all && r->time_split;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gatherv(mine, n * (int)sizeof *mine, MPI_BYTE, all, counts,
                    displs, MPI_BYTE, 0, comm);
    if (rank == 0 && ok) {
        int row = 0;
        for (int q = 0; q < nranks; q++)
            for (int i = 0; i < counts[q] / (int)sizeof *all; i++, row++) {
                bl_h5_time_split *t = &r->time_split[row];
                t->rank = q;
                t->phase = strdup(all[row].name);
                t->seconds = all[row].seconds;
                t->total_s = all[row].total;
                if (!t->phase)
                    ok = 0;
            }
        r->ntime_split = (size_t)row;
    }
    if (rank == 0 && !ok)
        rc = bl_err_set(err, "recording the time split on rank 0: out of "
                        "memory");
    free(all);
    free(counts);
    free(displs);
    return rc;
}
