/* The TSV of a plan of several nodes, streamed node by node (plan_tsv.h):
 * only one node's text per share is ever held. */
#include "plan/plan_tsv.h"

#include <stdlib.h>
#include <string.h>

#include "plan/plan_devices.h"
#include "plan/plan_output.h"

/* One share's rows as bl_plan_write_tsv writes them, header and rank
 * column cut off: row j's text (its '\n' included) starts at tail[j]. */
typedef struct share_rows {
    char *text;
    char **tail;
    size_t n;
} share_rows;

static void share_rows_free(share_rows *s)
{
    free(s->text);
    free(s->tail);
    memset(s, 0, sizeof *s);
}

/* Writes part's TSV to f: bl_plan_write_tsv's lines, each row followed by
 * its rank's device cells when gpus (as bl_plan_write_tsv_nodes's). */
static int write_part(FILE *f, hwloc_topology_t topo, const bl_plan *part,
                      const bl_plan_tsv_gpus *gpus, bl_err *err)
{
    bl_plan_devices d = {0};
    bl_plan_rank_devices rd = {0};
    char *text = NULL, *line, *save = NULL, cell[1024];
    size_t len = 0;
    FILE *m;
    long row = -1;
    int rc;

    if (!gpus)
        return bl_plan_write_tsv(f, topo, part);
    if (!(m = open_memstream(&text, &len)))
        return bl_err_set(err, "out of memory for a node's rows");
    rc = bl_plan_write_tsv(m, topo, part);
    rc = fclose(m) != 0 ? -1 : rc;
    if (rc == 0 && (bl_plan_devices_find(topo, &d, err) < 0 ||
                    bl_plan_rank_devices_make(topo, part, &d, gpus->bind,
                                              gpus->per_rank, &rd, err) < 0))
        rc = -1;
    for (line = rc == 0 ? strtok_r(text, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save), row++) {
        fputs(line, f);
        int r = row < 0 ? -1 : part->nthreads ? part->threads[row].rank
                                              : (int)row;
        for (int c = 0; r >= 0 && c < 3; c++) {
            bl_plan_rank_devices_text(&d, &rd, r, c == 2 ? BL_DEVICE_NIC
                                                         : BL_DEVICE_GPU,
                                      c == 0, cell, sizeof cell);
            fprintf(f, "\t%s", cell);
        }
        fputc('\n', f);
    }
    bl_plan_rank_devices_free(&rd);
    bl_plan_devices_free(&d);
    free(text);
    return rc;
}

static int share_rows_make(hwloc_topology_t topo, const bl_plan *p,
                           const bl_plan_nodes *ix, int k,
                           const bl_plan_tsv_gpus *gpus, share_rows *s,
                           bl_err *err)
{
    bl_plan part;
    size_t len = 0;
    FILE *f;
    int rc;

    memset(s, 0, sizeof *s);
    if (bl_plan_nodes_part(p, ix, k, &part) < 0)
        return bl_err_set(err, "out of memory for node %d's rows", k + 1);
    if (!(f = open_memstream(&s->text, &len))) {
        bl_plan_free(&part);
        return bl_err_set(err, "out of memory for node %d's rows", k + 1);
    }
    rc = write_part(f, topo, &part, gpus, err);
    rc = fclose(f) != 0 ? -1 : rc;
    s->tail = rc == 0 ? calloc(part.nthreads + 1, sizeof *s->tail) : NULL;
    bl_plan_free(&part);
    if (!s->tail) {
        share_rows_free(s);
        return bl_err_set(err, "out of memory for node %d's rows", k + 1);
    }
    /* line 0 is the header; each row after it starts with its rank */
    for (char *line = strchr(s->text, '\n'); line && line[1];
         line = strchr(line + 1, '\n')) {
        char *tab = strchr(line + 1, '\t');
        if (tab)
            s->tail[s->n++] = tab + 1;
    }
    return 0;
}

/* Node k's rows from its share's text, with k's own rank numbers. */
static int put_node(FILE *f, const bl_plan *p, const bl_plan_nodes *ix,
                    int k, const share_rows *s, const char *run_id)
{
    size_t j = 0;
    for (int i = ix->first[k]; i < ix->first[k + 1]; i++) {
        int r = ix->rank[i];
        for (size_t t = ix->row[r]; t < ix->row[r + 1] && j < s->n; t++) {
            const char *tail = s->tail[j++];
            const char *end = strchr(tail, '\n');
            if (run_id)
                fprintf(f, "%s\t", run_id);
            fprintf(f, "%d\t%d\t%.*s", k + 1, bl_plan_rank_number(p, r),
                    (int)(end - tail + 1), tail);
        }
    }
    return ferror(f) ? -1 : 0;
}

int bl_plan_write_tsv_nodes(FILE *f, hwloc_topology_t topo,
                            const hwloc_topology_t *node_topo,
                            const bl_plan *p, const bl_plan_nodes *ix,
                            const char *run_id, const bl_plan_tsv_gpus *gpus,
                            bl_err *err)
{
    share_rows *rows = calloc((size_t)ix->nnodes, sizeof *rows);
    int rc = rows ? 0 : bl_err_set(err, "out of memory for %d nodes",
                                   ix->nnodes);

    for (int k = 0; rc == 0 && k < ix->nnodes; k++) {
        int s = ix->share[k];
        if (s == k)
            rc = share_rows_make(node_topo ? node_topo[k] : topo, p, ix, k,
                                 gpus, &rows[k], err);
        if (rc == 0 && put_node(f, p, ix, k, &rows[s], run_id) < 0)
            rc = bl_err_set(err, "writing node %d's rows failed", k + 1);
        /* the share's text is needed no further than its last node */
        if (ix->last[s] == k)
            share_rows_free(&rows[s]);
    }
    for (int k = 0; rows && k < ix->nnodes; k++)
        share_rows_free(&rows[k]);
    free(rows);
    return rc;
}
