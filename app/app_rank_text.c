#include "app_rank_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bl_rank_text_gather(MPI_Comm comm, const char *mine, bl_h5_rank *rows,
                         size_t nrows, size_t member)
{
    int rank, nranks;
    char text[BL_RANK_TEXT_MAX] = "";
    char *all = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    snprintf(text, sizeof text, "%s", mine);
    int ok = 1;
    if (rank == 0)
        ok = (all = calloc((size_t)nranks, sizeof text)) != NULL;
    /* Without rank 0's buffer nobody sends: the texts are what is lost. */
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gather(text, (int)sizeof text, MPI_CHAR, all, (int)sizeof text,
                   MPI_CHAR, 0, comm);
    for (size_t i = 0; all && rows && i < nrows; i++)
        if (rows[i].rank >= 0 && rows[i].rank < nranks)
            *(char **)((char *)&rows[i] + member) =
                strdup(all + (size_t)rows[i].rank * sizeof text);
    free(all);
}
