/* Reading what the report's pictures need from each run of a sweep file
 * (report_runs.h). */
#include "report/report_runs.h"

#include <stdlib.h>
#include <string.h>

#include "results/results_file.h"
#include "topo.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

/* The topology of machine m from its recorded XML, or NULL when there is
 * none or hwloc cannot read it (an old file, a hand-made fixture). */
static hwloc_topology_t load_topology(const bl_h5_machine *m)
{
    hwloc_topology_t t;
    bl_err e;
    return bl_topo_load_xml(m->topology_xml, &t, &e) == 0 ? t : NULL;
}

/* The file's machines: /nodes/<k> (or /machine in a file written before
 * /nodes), each distinct topology loaded once (10,000 alike nodes: one
 * hwloc load, not 10,000). */
static int read_machines(hid_t f, bl_report_detail *d, bl_err *err)
{
    bl_err e;
    if (bl_h5_read_nodes_shared(f, &d->machines, &d->nmachines, &d->topo_of,
                                &e) < 0) {
        d->machines = NULL;   /* drawn without maps, as a file of none */
        d->nmachines = 0;
        return 0;
    }
    if (!(d->topos = calloc(d->nmachines + 1, sizeof *d->topos)))
        return bl_err_set(err, "out of memory reading the machines");
    for (size_t k = 0; k < d->nmachines; k++)
        d->topos[k] = d->topo_of[k] == (int)k
                          ? load_topology(&d->machines[k])
                          : d->topos[d->topo_of[k]];
    d->nmachine_groups = bl_report_machines_fold(d->machines, d->topo_of,
                                                 d->nmachines,
                                                 &d->machine_group);
    if (d->nmachines && !d->nmachine_groups)
        return bl_err_set(err, "out of memory reading the machines");
    return 0;
}

/* The run's nodes from its summary's "0,2" (a file written before /nodes
 * says nothing: its one machine). Indexes the file does not have are
 * left out. */
static void run_nodes(bl_report_run *x, size_t nmachines)
{
    const char *p = x->s->nodes ? x->s->nodes : "";
    x->nnodes = 0;
    while (*p && x->nnodes < BL_REPORT_MAX_NODES) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v >= 0 && (size_t)v < nmachines)
            x->nodes[x->nnodes++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    if (x->nnodes == 0 && nmachines > 0 && !(x->s->nodes && x->s->nodes[0]))
        x->nodes[x->nnodes++] = 0;
    x->machine = x->nnodes ? x->nodes[0] : -1;
}

/* Every matrix under loc/matrices (kinds as bl_h5_matrix_kinds lists
 * them); one that does not read is left out. */
static void read_matrices(hid_t loc, bl_h5_matrix **out, size_t *n)
{
    char kinds[256], *save = NULL, *k;
    bl_err e;
    *out = NULL;
    *n = 0;
    bl_h5_matrix_kinds(loc, kinds, sizeof kinds);
    if (!kinds[0] || !(*out = calloc(8, sizeof **out)))
        return;
    for (k = strtok_r(kinds, ",", &save); k && *n < 8;
         k = strtok_r(NULL, ",", &save))
        if (bl_h5_matrix_read(loc, k, &(*out)[*n], &e) == 0)
            (*n)++;
        else
            bl_h5_matrix_free(&(*out)[*n]);
}

static void free_matrices(bl_h5_matrix *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bl_h5_matrix_free(&m[i]);
    free(m);
}

/* Per timed iteration the slowest rank's time from the run's timings
 * dataset [iterations][ranks]; nothing when it has none. */
static void read_iterations(hid_t g, bl_report_run *x)
{
    hsize_t dims[2] = {0, 0};
    hid_t d, space;
    double *t;
    if (H5Lexists(g, "timings", H5P_DEFAULT) <= 0 ||
        (d = H5Dopen2(g, "timings", H5P_DEFAULT)) < 0)
        return;
    space = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(space) == 2)
        H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    /* a damaged file may claim any size: refuse what cannot be real (and
     * whose product would wrap) rather than read past a buffer */
    if (dims[0] == 0 || dims[1] == 0 || dims[0] > (1u << 24) ||
        dims[1] > (1u << 20) || dims[0] * dims[1] > ((hsize_t)1 << 28) ||
        !(t = malloc(dims[0] * dims[1] * sizeof *t))) {
        H5Dclose(d);
        return;
    }
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t) >= 0 &&
        (x->iter_s = malloc(dims[0] * sizeof *x->iter_s))) {
        for (hsize_t it = 0; it < dims[0]; it++) {
            double m = 0;
            for (hsize_t k = 0; k < dims[1]; k++)
                m = t[it * dims[1] + k] > m ? t[it * dims[1] + k] : m;
            x->iter_s[x->niter++] = m;
        }
    }
    free(t);
    H5Dclose(d);
}

void bl_report_read_retries(hid_t g, bl_h5_retry **t, size_t *n)
{
    bl_err e;
    void *rows = NULL;
    *t = NULL;
    *n = 0;
    if (H5Lexists(g, "retries", H5P_DEFAULT) > 0 &&
        bl_h5_table_read(g, &bl_h5_retry_def, &rows, n, &e) == 0)
        *t = rows;
    else
        *n = 0;
}

/* The nodes the run's summary names ("0,1,2": commas + 1). */
static size_t run_node_count(const bl_report_run *x)
{
    const char *p = x->s->nodes;
    size_t n = p && *p ? 1 : 0;
    while (p && (p = strchr(p, ',')))
        n++, p++;
    return n;
}

/* Reads only what the pictures need of run group `name` (placement,
 * memory, timings), not its counters, environment and attributes: a
 * 1,000-run file is read in a fraction of the time bl_h5_read_run takes.
 * A run that left no app record (failed before writing, invalid) has
 * none of them: nothing is kept, and that is no error. */
static void read_run(hid_t f, const char *name, const bl_report_detail *d,
                     bl_report_run *x)
{
    bl_err e;
    hid_t g;
    void *rows;
    if (H5Lexists(f, name, H5P_DEFAULT) <= 0 ||
        (g = H5Gopen2(f, name, H5P_DEFAULT)) < 0)
        return;
    if (run_node_count(x) > BL_REPORT_FOLD_NODES) {
        /* the nodes folded, streaming: 1.3 M thread rows never held */
        if ((x->fold = malloc(sizeof *x->fold)) &&
            bl_report_nodes_read(g, d->machine_group, d->nmachines, x->fold,
                                 &e) < 0) {
            free(x->fold);
            x->fold = NULL;
        }
    } else {
        if (bl_h5_table_read(g, &bl_h5_placement_def, &rows, &x->nplacement,
                             &e) == 0)
            x->placement = rows;
        else
            x->nplacement = 0;
        if (bl_h5_table_read(g, &bl_h5_memory_def, &rows, &x->nmemory,
                             &e) == 0)
            x->memory = rows;
        else
            x->nmemory = 0;
    }
    read_iterations(g, x);
    read_matrices(g, &x->matrices, &x->nmatrices);
    if (x->s->attempts > 1)
        bl_report_read_retries(g, &x->retries, &x->nretries);
    H5Gclose(g);
}

int bl_report_detail_read(const char *path, const bl_report *r,
                          bl_report_detail *d, bl_err *err)
{
    hid_t f;
    int rc;
    memset(d, 0, sizeof *d);
    if ((f = bl_h5_open_read(path, err)) < 0)
        return -1;
    rc = bl_report_detail_read_file(f, r, d, err);
    H5Fclose(f);
    if (rc < 0)
        return bl_err_set(err, "%s: out of memory reading its runs", path);
    return 0;
}

int bl_report_detail_read_file(hid_t f, const bl_report *r,
                               bl_report_detail *d, bl_err *err)
{
    memset(d, 0, sizeof *d);
    d->runs = calloc(r->nrows + 1, sizeof *d->runs);
    if (!d->runs || read_machines(f, d, err) < 0) {
        bl_report_detail_free(d);
        return bl_err_set(err, "out of memory reading the runs");
    }
    d->nruns = r->nrows;
    for (size_t i = 0; i < r->nrows; i++) {
        bl_report_run *x = &d->runs[i];
        char group[600];
        x->s = r->rows[i].s;
        run_nodes(x, d->nmachines);
        bl_h5_run_path(str(x->s->run_id), group, sizeof group);
        read_run(f, group, d, x);
    }
    read_matrices(f, &d->matrices, &d->nmatrices);
    return 0;
}

void bl_report_detail_free(bl_report_detail *d)
{
    for (size_t i = 0; i < d->nruns; i++) {
        bl_h5_table_free(&bl_h5_placement_def, d->runs[i].placement,
                         d->runs[i].nplacement);
        bl_h5_table_free(&bl_h5_memory_def, d->runs[i].memory,
                         d->runs[i].nmemory);
        free(d->runs[i].iter_s);
        free_matrices(d->runs[i].matrices, d->runs[i].nmatrices);
        bl_h5_table_free(&bl_h5_retry_def, d->runs[i].retries,
                         d->runs[i].nretries);
        if (d->runs[i].fold)
            bl_report_nodes_free(d->runs[i].fold);
        free(d->runs[i].fold);
    }
    free_matrices(d->matrices, d->nmatrices);
    for (size_t k = 0; d->topos && k < d->nmachines; k++)
        if (d->topos[k] && d->topo_of[k] == (int)k)
            hwloc_topology_destroy(d->topos[k]);
    if (d->machines)
        bl_h5_nodes_free(d->machines, d->nmachines);
    free(d->runs);
    free(d->topos);
    free(d->topo_of);
    free(d->machine_group);
    memset(d, 0, sizeof *d);
}

size_t bl_report_layout_iters(const bl_report *r, const bl_report_detail *d,
                              const bl_report_group *g, const char *label,
                              double **out, size_t *nruns)
{
    size_t n = 0, total = 0;
    double *v;
    *out = NULL;
    *nruns = 0;
    for (size_t i = 0; i < d->nruns; i++)
        total += d->runs[i].niter;
    if (!(v = malloc((total + 1) * sizeof *v)))
        return 0;
    for (size_t i = 0; i < d->nruns; i++) {
        const bl_report_run *x = &d->runs[i];
        if (!r->rows[i].usable || x->niter == 0 ||
            strcmp(str(x->s->kernel), str(g->kernel)) != 0 ||
            strcmp(str(x->s->label), label) != 0 ||
            (r->several_nodes && bl_report_node(x->s) != g->node))
            continue;
        memcpy(v + n, x->iter_s, x->niter * sizeof *v);
        n += x->niter;
        (*nruns)++;
    }
    *out = v;
    return n;
}

int bl_report_run_on_node(const bl_report_run *x, const bl_h5_machine *m,
                          bl_report_run *y)
{
    *y = *x;
    if (x->nnodes <= 1)
        return 0;
    y->placement = malloc((x->nplacement + 1) * sizeof *y->placement);
    y->memory = malloc((x->nmemory + 1) * sizeof *y->memory);
    if (!y->placement || !y->memory) {
        free(y->placement);
        free(y->memory);
        return -1;
    }
    y->nplacement = y->nmemory = 0;
    for (size_t i = 0; i < x->nplacement; i++)
        if (strcmp(str(x->placement[i].host), str(m->hostname)) == 0)
            y->placement[y->nplacement++] = x->placement[i];
    for (size_t i = 0; i < x->nmemory; i++)
        for (size_t k = 0; k < y->nplacement; k++)
            if (y->placement[k].rank == x->memory[i].rank) {
                y->memory[y->nmemory++] = x->memory[i];
                break;
            }
    return 0;
}

void bl_report_run_on_node_free(const bl_report_run *x, bl_report_run *y)
{
    if (y->placement != x->placement) {
        free(y->placement);
        free(y->memory);
    }
}

void bl_report_run_of_group(const bl_report_run *x, size_t g,
                            bl_report_run *y)
{
    const bl_report_node_group *gr = &x->fold->groups[g];
    *y = *x;
    y->placement = gr->placement;
    y->nplacement = gr->nplacement;
    y->memory = gr->memory;
    y->nmemory = gr->nmemory;
    y->nnodes = 1;
}
