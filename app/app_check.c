#include "app_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A finding as it travels to rank 0: plain bytes (the id is a pointer to a
 * static string, meaningless in another process). */
typedef struct wire_finding {
    char host[64];
    char id[48];
    int severity;
    char text[BL_PCHECK_FINDING_TEXT];
} wire_finding;

void bl_app_check_local(hwloc_const_bitmap_t rank_cpus,
                        bl_pcheck_findings *f)
{
    bl_pcheck_state s;
    bl_err err = {0};
    memset(f, 0, sizeof *f);
    if (bl_pcheck_gather(&s, NULL, &err) < 0) {
        f->item[0].id = "check-unreadable";
        f->item[0].severity = BL_PCHECK_NOTE;
        /* the message is cut to fit the finding: the note is what matters */
        int len = (int)sizeof f->item[0].text - 40;
        snprintf(f->item[0].text, sizeof f->item[0].text,
                 "the placement could not be read: %.*s", len, err.msg);
        f->n = 1;
    } else {
        if (rank_cpus && !hwloc_bitmap_iszero(rank_cpus))
            hwloc_bitmap_copy(s.cpus, rank_cpus);
        bl_pcheck_eval(&s, f);
    }
    bl_pcheck_state_free(&s);
}

static int to_rows(const wire_finding *w, const int *counts, int nranks,
                   bl_h5_finding **rows, size_t *nrows, bl_err *err)
{
    size_t n = 0, k = 0;
    for (int r = 0; r < nranks; r++)
        n += (size_t)counts[r];
    bl_h5_finding *out = calloc(n + 1, sizeof *out);
    if (!out)
        return bl_err_set(err, "--check: out of memory for the findings");
    for (int r = 0; r < nranks; r++)
        for (int i = 0; i < counts[r]; i++, k++) {
            out[k].rank = r;
            out[k].host = strdup(w[k].host);
            out[k].id = strdup(w[k].id);
            out[k].severity = strdup(w[k].severity == BL_PCHECK_WARNING
                                         ? "warning"
                                         : "note");
            out[k].text = strdup(w[k].text);
            if (!out[k].host || !out[k].id || !out[k].severity ||
                !out[k].text) {
                *rows = out;
                *nrows = k + 1;
                return bl_err_set(err, "--check: out of memory");
            }
            fprintf(stderr, "bindlab-app: --check: rank %d (%s): %s %s: %s\n",
                    r, w[k].host, out[k].severity, w[k].id, w[k].text);
        }
    *rows = out;
    *nrows = n;
    return 0;
}

int bl_app_check_gather(MPI_Comm comm, const bl_pcheck_findings *mine,
                        bl_h5_finding **rows, size_t *nrows, bl_err *err)
{
    int rank, nranks, n = mine->n, ok = 1, rc = 0;
    wire_finding local[BL_PCHECK_MAX_FINDINGS];
    wire_finding *all = NULL;
    int *counts = NULL, *bytes = NULL, *displs = NULL;
    char host[64] = "";

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    *rows = NULL;
    *nrows = 0;
    gethostname(host, sizeof host - 1);
    memset(local, 0, sizeof local);
    for (int i = 0; i < n; i++) {
        snprintf(local[i].host, sizeof local[i].host, "%s", host);
        snprintf(local[i].id, sizeof local[i].id, "%s", mine->item[i].id);
        local[i].severity = (int)mine->item[i].severity;
        snprintf(local[i].text, sizeof local[i].text, "%s",
                 mine->item[i].text);
    }
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        bytes = calloc((size_t)nranks, sizeof *bytes);
        displs = calloc((size_t)nranks, sizeof *displs);
        ok = counts && bytes && displs;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (ok && rank == 0) {
        size_t total = 0;
        for (int r = 0; r < nranks; r++) {
            displs[r] = (int)(total * sizeof *all);
            bytes[r] = counts[r] * (int)sizeof *all;
            total += (size_t)counts[r];
        }
        ok = (all = calloc(total + 1, sizeof *all)) != NULL;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gatherv(local, n * (int)sizeof *local, MPI_BYTE, all, bytes,
                    displs, MPI_BYTE, 0, comm);
    if (rank == 0)
        rc = ok ? to_rows(all, counts, nranks, rows, nrows, err)
                : bl_err_set(err, "--check: out of memory on rank 0");
    free(all);
    free(counts);
    free(bytes);
    free(displs);
    return rc;
}
