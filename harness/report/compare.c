/* Loading the machines of `bindlab compare` (compare.h): a sweep file's
 * /machine (or one /nodes/<k> of a merged file), its report and its
 * layouts, each described relative to its machine. */
#include "report/compare.h"

#include <stdlib.h>
#include <string.h>

#include "results/results_file.h"

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

static bl_frac frac(long p, long q)
{
    bl_frac f = {p, q > 0 ? q : 1};
    long g = gcd(f.p, f.q);
    if (g > 1) {
        f.p /= g;
        f.q /= g;
    }
    return f;
}

size_t bl_cmp_count_machines(const char *path)
{
    bl_err e;
    hid_t f = bl_h5_open_read(path, &e);
    size_t n;
    if (f < 0)
        return 0;
    n = bl_h5_count_nodes(f);
    H5Fclose(f);
    return n;
}

/* Keeps the rows whose first node is `node`, freeing the others. */
static void keep_node_rows(bl_cmp_machine *c, size_t node)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const char *nodes = c->rows[i].nodes;
        char *end;
        unsigned long k = nodes ? strtoul(nodes, &end, 10) : 0;
        bl_h5_summary *one;
        if (nodes && end != nodes && k == node) {
            c->rows[kept++] = c->rows[i];
        } else if ((one = malloc(sizeof *one))) {
            *one = c->rows[i]; /* its strings freed with it */
            bl_h5_table_free(&bl_h5_summary_def, one, 1);
        }
    }
    c->nrows = kept;
}

static int load(const char *path, long node, bl_cmp_machine *c, bl_err *err)
{
    bl_err e;
    hid_t f;
    int have_m, rc;
    size_t total = 0;

    memset(c, 0, sizeof *c);
    c->path = path;
    c->node = node;
    if ((f = bl_h5_open_read_deep(path, err)) < 0)
        return -1;
    have_m = node < 0 ? H5Lexists(f, "machine", H5P_DEFAULT) > 0 &&
                            bl_h5_read_machine(f, &c->m, &e) == 0
                      : bl_h5_read_node(f, (size_t)node, &c->m, &e) == 0;
    H5Fclose(f);
    if (!have_m)
        return bl_err_set(err, "%s: no /machine (no run of it has a result): "
                          "nothing to compare", path);
    c->source = malloc(strlen(path) + 32);
    if (!c->source) {
        bl_h5_machine_free(&c->m);
        return bl_err_set(err, "%s: out of memory", path);
    }
    if (node < 0)
        strcpy(c->source, path);
    else
        sprintf(c->source, "%s /nodes/%ld", path, node);
    rc = bl_h5_read_summary(path, &c->rows, &c->nrows, err);
    if (rc == 0 && node >= 0)
        keep_node_rows(c, (size_t)node);
    if (rc < 0 ||
        bl_report_build(c->rows, c->nrows, NULL, BL_REPORT_SORT_RATE,
                        &c->report, err) < 0) {
        bl_h5_machine_free(&c->m);
        bl_h5_table_free(&bl_h5_summary_def, c->rows, c->nrows);
        free(c->source);
        memset(c, 0, sizeof *c);
        return -1;
    }
    c->group_layouts = calloc(c->report.ngroups + 1, sizeof *c->group_layouts);
    c->layouts = calloc(c->nrows + 1, sizeof *c->layouts);
    if (!c->group_layouts || !c->layouts) {
        bl_cmp_free(c);
        return bl_err_set(err, "%s: out of memory", path);
    }
    for (size_t g = 0; g < c->report.ngroups; g++) {
        const bl_report_group *gr = &c->report.groups[g];
        long n = bl_report_layouts(&c->report, gr, &c->group_layouts[g]);
        if (n < 0) {
            bl_cmp_free(c);
            return bl_err_set(err, "%s: out of memory", path);
        }
        for (long i = 0; i < n; i++) {
            const bl_report_layout *l = &c->group_layouts[g][i];
            const bl_h5_summary *s = l->first;
            bl_cmp_layout *x = &c->layouts[total++];
            x->l = l;
            x->unit = gr->rate_unit;
            x->per_package = frac(s->np, c->m.packages);
            x->per_numa = frac(s->np, c->m.numa_nodes);
            x->per_l3 = frac(s->np, c->m.l3_domains);
            x->thread_share = frac((long)s->np * s->threads, c->m.cores);
        }
    }
    c->nlayouts = total;
    return 0;
}

int bl_cmp_load(const char *path, bl_cmp_machine *c, bl_err *err)
{
    return load(path, -1, c, err);
}

int bl_cmp_load_node(const char *path, size_t node, bl_cmp_machine *c,
                     bl_err *err)
{
    return load(path, (long)node, c, err);
}

void bl_cmp_free(bl_cmp_machine *c)
{
    if (c->group_layouts)
        for (size_t g = 0; g < c->report.ngroups; g++)
            free(c->group_layouts[g]);
    free(c->group_layouts);
    free(c->layouts);
    if (c->rows) {
        bl_report_free(&c->report);
        bl_h5_table_free(&bl_h5_summary_def, c->rows, c->nrows);
        bl_h5_machine_free(&c->m);
    }
    free(c->source);
    memset(c, 0, sizeof *c);
}
