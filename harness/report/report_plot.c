/* `bindlab report FILE.h5 --plot DIR`: the page's charts as SVG files for
 * slides, each a file of its own (xmlns, its own style, white background,
 * a size in pixels), written atomically:
 *   KERNEL-rate.svg         the bar chart of a kernel's layouts
 *   KERNEL-iterations.svg   their iteration times
 *   matrix-KIND.svg         the file's matrices (`bindlab matrix`), and
 *   matrix-RUN-KIND.svg     a run's own (c2c)
 *   map-RUN.svg             one run's node map and pages per NUMA node
 *                           (map-RUN-nodeK.svg per node of a run on
 *                           several machines; map-RUN-groupG.svg per
 *                           group of alike nodes of a run over many)
 * A kernel measured in two units gets "-2" after its name for the second;
 * in a file of several machines each machine's charts are KERNEL-nodeK-... */
#include "report/report_html.h"

#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "matrix/matrix.h"
#include "report/report_nodemap.h"
#include "report/report_priv.h"
#include "sys_util.h"

/* A file name from a kernel or run id: letters, digits, '.', '-' and '_'
 * kept, everything else '_' (a run id may hold anything). */
static void safe_name(const char *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s && *s && i + 1 < len; s++, i++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        buf[i] = ok && !(i == 0 && c == '.') ? c : '_';
    }
    buf[i] = '\0';
}

static int write_text(const char *dir, const char *name, bl_strbuf *b,
                      size_t *nfiles, bl_err *err)
{
    char path[4096];
    char *text = bl_strbuf_take(b);
    int rc;
    if (!text)
        return bl_err_set(err, "%s/%s: out of memory", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rc = bl_atomic_write(path, text, strlen(text), err);
    free(text);
    if (rc == 0)
        (*nfiles)++;
    return rc;
}

static int charts(const char *dir, const bl_report *r,
                  const bl_report_detail *d, size_t *nfiles, bl_err *err)
{
    for (size_t g = 0; g < r->ngroups; g++) {
        const bl_report_group *gr = &r->groups[g];
        char k[128], name[200];
        int same = 0;
        bl_strbuf b = {0};
        for (size_t h = 0; h < g; h++)
            same += strcmp(r->groups[h].kernel, gr->kernel) == 0 &&
                    r->groups[h].node == gr->node;
        safe_name(gr->kernel, k, sizeof k);
        if (r->several_nodes && gr->node >= 0)
            snprintf(k + strlen(k), sizeof k - strlen(k), "-node%ld",
                     gr->node);
        if (same)
            snprintf(k + strlen(k), sizeof k - strlen(k), "-%d", same + 1);
        if (!gr->best)
            continue;   /* nothing usable: no chart */
        if (bl_report_svg_bars(&b, r, gr, 1) < 0)
            return bl_err_set(err, "out of memory drawing %s", k);
        snprintf(name, sizeof name, "%s-rate.svg", k);
        if (write_text(dir, name, &b, nfiles, err) < 0)
            return -1;
        if (bl_report_svg_iters(&b, r, d, gr, 1) < 0)
            return bl_err_set(err, "out of memory drawing %s", k);
        /* a kernel whose runs kept no timings has only its bar chart */
        if (b.s && strncmp(b.s, "<?xml", 5) == 0) {
            snprintf(name, sizeof name, "%s-iterations.svg", k);
            if (write_text(dir, name, &b, nfiles, err) < 0)
                return -1;
        } else {
            free(bl_strbuf_take(&b));
        }
    }
    return 0;
}

/* A run over many nodes: one map per drawn group of alike nodes, from
 * its first node's rows. */
static int group_maps(const char *dir, const char *id, const bl_report_run *x,
                      const bl_report_detail *d, const bl_nodemap *m,
                      size_t *nfiles, bl_err *err)
{
    const bl_report_nodes *o = x->fold;
    int rc = 0;
    for (size_t g = 0; g < o->ngroups && g < BL_REPORT_FOLD_MAPS && rc == 0;
         g++) {
        const bl_report_node_group *gr = &o->groups[g];
        bl_report_run y;
        bl_strbuf b = {0};
        char name[300];
        if (!d->topos[gr->first])
            continue;
        bl_report_run_of_group(x, g, &y);
        bl_nodemap_run_svg(&b, &m[d->topo_of[gr->first]], NULL, &y, NULL);
        snprintf(name, sizeof name, "map-%s-group%zu.svg", id, g + 1);
        rc = write_text(dir, name, &b, nfiles, err);
    }
    return rc;
}

static int maps(const char *dir, const bl_report_detail *d, size_t *nfiles,
                bl_err *err)
{
    bl_nodemap *m = calloc(d->nmachines + 1, sizeof *m);
    int rc = 0;
    if (!m)
        return bl_err_set(err, "out of memory");
    for (size_t k = 0; k < d->nmachines && rc == 0; k++)
        if (d->topos[k] && d->topo_of[k] == (int)k &&
            bl_nodemap_build(d->topos[k], &m[k]) < 0)
            rc = bl_err_set(err, "out of memory laying out a machine");
    for (size_t i = 0; i < d->nruns && rc == 0; i++) {
        const bl_report_run *x = &d->runs[i];
        char id[256], name[300];
        safe_name(x->s->run_id, id, sizeof id);
        if (x->fold) {
            rc = group_maps(dir, id, x, d, m, nfiles, err);
            continue;
        }
        for (size_t j = 0; x->nplacement && j < x->nnodes && rc == 0; j++) {
            int k = x->nodes[j];
            bl_strbuf b = {0};
            bl_report_run y;
            if (!d->topos[k])
                continue;
            if (bl_report_run_on_node(x, &d->machines[k], &y) < 0)
                return bl_err_set(err, "out of memory");
            bl_nodemap_run_svg(&b, &m[d->topo_of[k]], NULL, &y, NULL);
            bl_report_run_on_node_free(x, &y);
            if (x->nnodes > 1)
                snprintf(name, sizeof name, "map-%s-node%d.svg", id, k);
            else
                snprintf(name, sizeof name, "map-%s.svg", id);
            rc = write_text(dir, name, &b, nfiles, err);
        }
    }
    for (size_t k = 0; k < d->nmachines; k++)
        bl_nodemap_free(&m[k]);
    free(m);
    return rc;
}

static int matrices(const char *dir, const bl_report_detail *d,
                    size_t *nfiles, bl_err *err)
{
    char path[4096], k[128], id[256];
    for (size_t i = 0; i < d->nmatrices; i++) {
        safe_name(d->matrices[i].kind, k, sizeof k);
        snprintf(path, sizeof path, "%s/matrix-%s.svg", dir, k);
        if (bl_matrix_svg_write(path, &d->matrices[i], err) < 0)
            return -1;
        (*nfiles)++;
    }
    for (size_t r = 0; r < d->nruns; r++)
        for (size_t i = 0; i < d->runs[r].nmatrices; i++) {
            safe_name(d->runs[r].s->run_id, id, sizeof id);
            safe_name(d->runs[r].matrices[i].kind, k, sizeof k);
            snprintf(path, sizeof path, "%s/matrix-%s-%s.svg", dir, id, k);
            if (bl_matrix_svg_write(path, &d->runs[r].matrices[i], err) < 0)
                return -1;
            (*nfiles)++;
        }
    return 0;
}

int bl_report_write_plots(const char *dir, const char *input,
                          const bl_report *r, size_t *nfiles, bl_err *err)
{
    bl_report_detail d;
    int rc;
    *nfiles = 0;
    if (bl_mkdir_p(dir, err) < 0)
        return -1;
    if (bl_report_detail_read(input, r, &d, err) < 0)
        return -1;
    rc = charts(dir, r, &d, nfiles, err);
    if (rc == 0)
        rc = maps(dir, &d, nfiles, err);
    if (rc == 0)
        rc = matrices(dir, &d, nfiles, err);
    bl_report_detail_free(&d);
    return rc;
}
