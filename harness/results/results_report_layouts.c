/* The layouts of a report group (results_report.h): its usable runs put
 * together by label, each with the min, median and max of their rates.
 * Used by the charts of `report --html` and by `bindlab compare`. */
#include "results/results_report.h"

#include <stdlib.h>
#include <string.h>

static const char *str(const char *s)
{
    return s ? s : "";
}

static int cmp_label_rate(const void *a, const void *b)
{
    const bl_h5_summary *x = *(const bl_h5_summary *const *)a;
    const bl_h5_summary *y = *(const bl_h5_summary *const *)b;
    int c = strcmp(str(x->label), str(y->label));
    if (c)
        return c;
    if (x->rate != y->rate)
        return x->rate < y->rate ? -1 : 1;
    return strcmp(str(x->run_id), str(y->run_id));
}

static int cmp_median_desc(const void *a, const void *b)
{
    const bl_report_layout *x = a, *y = b;
    if (x->median != y->median)
        return x->median > y->median ? -1 : 1;
    return strcmp(str(x->label), str(y->label));
}

long bl_report_layouts(const bl_report *r, const bl_report_group *g,
                       bl_report_layout **out)
{
    const bl_h5_summary **v = malloc((r->nrows + 1) * sizeof *v);
    bl_report_layout *l = calloc(r->nrows + 1, sizeof *l);
    size_t n = 0, nl = 0;

    *out = NULL;
    if (!v || !l) {
        free(v);
        free(l);
        return -1;
    }
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_h5_summary *s = r->rows[i].s;
        /* a file of several machines: each group is one machine's */
        if (r->rows[i].usable && strcmp(str(s->kernel), str(g->kernel)) == 0 &&
            strcmp(str(s->rate_unit), str(g->rate_unit)) == 0 &&
            (!r->several_nodes || bl_report_node(s) == g->node))
            v[n++] = s;
    }
    qsort(v, n, sizeof *v, cmp_label_rate);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        const bl_h5_summary *first = v[i];
        while (j < n && strcmp(str(v[j]->label), str(v[i]->label)) == 0) {
            if (strcmp(str(v[j]->run_id), str(first->run_id)) < 0)
                first = v[j];
            j++;
        }
        /* v[i..j) is sorted by rate: the median is the middle one, or the
         * mean of the two middle ones */
        l[nl].label = str(v[i]->label);
        l[nl].first = first;
        l[nl].n = j - i;
        l[nl].min = v[i]->rate;
        l[nl].max = v[j - 1]->rate;
        l[nl].median = (v[i + (j - i - 1) / 2]->rate + v[i + (j - i) / 2]->rate) / 2;
        nl++;
        i = j;
    }
    free(v);
    qsort(l, nl, sizeof *l, cmp_median_desc);
    *out = l;
    return (long)nl;
}
