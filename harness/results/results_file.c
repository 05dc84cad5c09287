/* The harness's HDF5 files (results_file.h): its record of a run written
 * into the run's group beside the app's /run, the /summary row, per-run
 * sweep files, merge, and the /summary reader. */
#include "results/results_file.h"

#include "atomic_file.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bl_h5_run_path(const char *run_id, char *buf, size_t len)
{
    snprintf(buf, len, "runs/%s", run_id);
}

/* ---- the harness's record of a run ------------------------------------- */

int bl_h5_write_harness(hid_t file, const char *group, const bl_h5_harness *h,
                        bl_err *err)
{
    hid_t g = bl_h5_group_open_or_create(file, group);
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create '%s'", group);
    rc |= bl_h5_attrs_write(g, &bl_h5_harness_attrs, h);
    if (H5Lexists(g, "binding_report", H5P_DEFAULT) <= 0)
        rc |= bl_h5_string_write(g, "binding_report", h->binding_report);
    if (rc == 0 && H5Lexists(g, "checks", H5P_DEFAULT) <= 0)
        rc |= bl_h5_table_write(g, &bl_h5_check_def, h->checks, h->nchecks,
                                err);
    if (rc == 0 && h->nneighbours && H5Lexists(g, "neighbours",
                                               H5P_DEFAULT) <= 0)
        rc |= bl_h5_table_write(g, &bl_h5_neighbour_def, h->neighbours,
                                h->nneighbours, err);
    if (rc == 0 && h->nretries && H5Lexists(g, "retries", H5P_DEFAULT) <= 0)
        rc |= bl_h5_table_write(g, &bl_h5_retry_def, h->retries,
                                h->nretries, err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write the harness record of "
                           "'%s'", group) : 0;
}

int bl_h5_read_harness(hid_t file, const char *group, bl_h5_harness *h,
                       bl_err *err)
{
    hid_t g;
    int rc;
    memset(h, 0, sizeof *h);
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no run group '%s'", group);
    g = H5Gopen2(file, group, H5P_DEFAULT);
    bl_h5_attrs_read(g, &bl_h5_harness_attrs, h);
    h->binding_report = bl_h5_string_read(g, "binding_report");
    rc = bl_h5_table_read(g, &bl_h5_check_def, (void **)&h->checks,
                          &h->nchecks, err);
    if (rc == 0 && H5Lexists(g, "neighbours", H5P_DEFAULT) > 0)
        rc = bl_h5_table_read(g, &bl_h5_neighbour_def,
                              (void **)&h->neighbours, &h->nneighbours, err);
    if (rc == 0 && H5Lexists(g, "retries", H5P_DEFAULT) > 0)
        rc = bl_h5_table_read(g, &bl_h5_retry_def, (void **)&h->retries,
                              &h->nretries, err);
    H5Gclose(g);
    return rc;
}

void bl_h5_harness_free(bl_h5_harness *h)
{
    bl_h5_attrs_free(&bl_h5_harness_attrs, h);
    free(h->binding_report);
    bl_h5_table_free(&bl_h5_check_def, h->checks, h->nchecks);
    bl_h5_table_free(&bl_h5_neighbour_def, h->neighbours, h->nneighbours);
    bl_h5_table_free(&bl_h5_retry_def, h->retries, h->nretries);
    memset(h, 0, sizeof *h);
}

/* ---- the /summary row ---------------------------------------------------- */

/* One value on its way from an attribute member to a summary column. */
typedef struct cell {
    char *s;
    long long i;
    double d;
} cell;

static cell cell_of(const bl_h5_attr *a, const void *rec)
{
    const char *p = (const char *)rec + a->offset;
    cell c = {NULL, 0, 0};
    switch (a->type) {
    case BL_A_INT: c.i = *(const int *)p; break;
    case BL_A_LLONG: c.i = *(const long long *)p; break;
    case BL_A_F64: c.d = *(const double *)p; break;
    case BL_A_STR: c.s = *(char *const *)p; break;
    }
    if (a->type == BL_A_INT || a->type == BL_A_LLONG)
        c.d = (double)c.i;
    return c;
}

static void cell_put(const bl_h5_field *f, void *row, cell c)
{
    static char empty[] = "";
    char *p = (char *)row + f->offset;
    switch (f->type) {
    case BL_H5_I8: *(int8_t *)p = (int8_t)c.i; break;
    case BL_H5_I32: *(int32_t *)p = (int32_t)c.i; break;
    case BL_H5_I64: *(int64_t *)p = c.i; break;
    case BL_H5_F64: *(double *)p = c.d; break;
    case BL_H5_STR: *(char **)p = c.s ? c.s : empty; break;
    }
}

/* Each column takes the member of the same name: from the harness's record,
 * else from the app's result, which without an app reads as that
 * attribute's default (local_page_fraction -1: unknown), else from the
 * app's run (isa; NULL without an app). A new summary
 * column that names a field of either record needs no code here. */
void bl_h5_summary_row(const bl_h5_run *app, const bl_h5_harness *h,
                       bl_h5_summary *row)
{
    const bl_h5_table_def *def = &bl_h5_summary_def;
    memset(row, 0, sizeof *row);
    for (size_t i = 0; i < def->nfields; i++) {
        const bl_h5_field *f = &def->fields[i];
        const bl_h5_attr *a;
        cell c = {NULL, 0, 0};
        if ((a = bl_h5_attrs_find(&bl_h5_harness_attrs, f->name)))
            c = cell_of(a, h);
        else if ((a = bl_h5_attrs_find(&bl_h5_result_attrs, f->name))) {
            if (app)
                c = cell_of(a, &app->result);
            else
                c.i = (long long)(c.d = a->dflt);
        } else if (app && (a = bl_h5_attrs_find(&bl_h5_run_attrs, f->name)))
            c = cell_of(a, app);
        cell_put(f, row, c);
    }
    /* The threads the app saw beat the ones the harness asked for. */
    if (app && app->threads > 0)
        row->threads = app->threads;
}

/* ---- sweep files ---------------------------------------------------------- */

void bl_h5_run_nodes(const bl_h5_run *r, size_t nmachines, char *buf,
                     size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (nmachines == 0)
        return;
    if (!r || r->nrank_rows == 0) {
        snprintf(buf, len, "0");
        return;
    }
    /* distinct indexes in increasing order, marked once each: a run of
     * 80,000 ranks on 10,000 nodes costs its rows, not rows x nodes */
    unsigned char *seen = calloc(nmachines + 1, 1);
    if (!seen)
        return;
    for (size_t i = 0; i < r->nrank_rows; i++) {
        long v = r->rank_rows[i].node;
        if (v >= 0 && (size_t)v < nmachines)
            seen[v] = 1;
    }
    for (size_t k = 0; k < nmachines; k++)
        if (seen[k])
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                     "%s%zu", used ? "," : "", k);
    free(seen);
    if (used >= len && len > 0)
        buf[len - 1] = '\0';
}

int bl_h5_write_sweep_run(int dirfd, const char *path, const char *command,
                          const bl_h5_machine *machines, size_t nmachines,
                          const bl_h5_run *app, const bl_h5_harness *h,
                          bl_err *err)
{
    char group[512], *nodes = NULL;
    bl_h5_harness rec = *h;
    bl_h5_summary row;
    hid_t file;
    int rc;

    if (!machines)
        nmachines = 0;
    if (!rec.nodes || !rec.nodes[0]) {
        /* every index with its comma: up to 20 digits + 1 each */
        size_t len = 21 * nmachines + 2;
        if (!(nodes = malloc(len)))
            return bl_err_set(err, "%s: out of memory", path);
        bl_h5_run_nodes(app, nmachines, nodes, len);
        rec.nodes = nodes;
    }
    bl_h5_run_path(h->run_id, group, sizeof group);
    if ((file = bl_h5_mem_create(path, err)) < 0) {
        free(nodes);
        return -1;
    }
    rc = bl_h5_write_root(file, "sweep", command, err);
    if (rc == 0)
        rc = bl_h5_write_nodes(file, machines, nmachines, err);
    if (rc == 0 && app)
        rc = bl_h5_write_run(file, group, app, err);
    if (rc == 0)
        rc = bl_h5_write_harness(file, group, &rec, err);
    bl_h5_summary_row(app, &rec, &row);
    if (rc == 0)
        rc = bl_h5_table_write(file, &bl_h5_summary_def, &row, 1, err);
    rc = bl_h5_mem_commit_in(file, dirfd, path, rc, err);
    free(nodes);
    return rc;
}

int bl_h5_read_summary(const char *path, bl_h5_summary **rows, size_t *n,
                       bl_err *err)
{
    hid_t file = bl_h5_open_read_deep(path, err);
    int rc;
    if (file < 0)
        return -1;
    if (H5Lexists(file, "summary", H5P_DEFAULT) <= 0) {
        H5Fclose(file);
        return bl_err_set(err, "%s: no /summary table (a bindlab-app run "
                          "file? use a sweep file, results/NAME.h5)", path);
    }
    rc = bl_h5_table_read(file, &bl_h5_summary_def, (void **)rows, n, err);
    H5Fclose(file);
    return rc < 0 ? bl_err_prefix(err, "%s", path) : 0;
}
