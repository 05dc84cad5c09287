/* Ranking of a sweep's /summary rows: order, best run and bind_to none
 * baseline per kernel+unit, ratios. Writing the table is report_write.c. */
#include "results_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "abstats.h"

int bl_report_sort_parse(const char *s, bl_report_sort *sort, bl_err *err)
{
    static const char *const names[] = {"rate", "label", "run"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *sort = (bl_report_sort)i;
            return 0;
        }
    return bl_err_set(err, "--sort: '%s' is not a sort key; accepted: rate, "
                      "label, run", s);
}

static const char *str(const char *s)
{
    return s ? s : "";
}

int bl_report_usable(const bl_h5_summary *s)
{
    return strcmp(str(s->status), "ok") == 0 && s->verified == 1 &&
           isfinite(s->rate) && s->rate > 0;
}

/* bind_to as the user wrote it: "none", maybe with a qualifier
 * ("none:overload-allowed"). */
static int is_unbound(const bl_h5_summary *s)
{
    const char *b = str(s->bind_to);
    return strncasecmp(b, "none", 4) == 0 && (b[4] == '\0' || b[4] == ':');
}

long bl_report_node(const bl_h5_summary *s)
{
    char *end;
    long k;
    if (!s->nodes || !s->nodes[0])
        return -1;
    k = strtol(s->nodes, &end, 10);
    return end == s->nodes || k < 0 ? -1 : k;
}

static int same_group(const bl_h5_summary *a, const bl_h5_summary *b)
{
    return strcmp(str(a->kernel), str(b->kernel)) == 0 &&
           strcmp(str(a->rate_unit), str(b->rate_unit)) == 0 &&
           bl_report_node(a) == bl_report_node(b);
}

/* Rows in run-id order, so that "first" means the earliest run whatever
 * order the file has them in. */
static int cmp_run_id(const void *a, const void *b)
{
    const bl_h5_summary *x = *(const bl_h5_summary *const *)a;
    const bl_h5_summary *y = *(const bl_h5_summary *const *)b;
    return strcmp(str(x->run_id), str(y->run_id));
}

/* The baseline of usable row s: a usable bind_to none run of the same
 * kernel+unit, with the same np and threads if there is one, else the
 * first; byid is sorted by run id. */
static const bl_h5_summary *find_baseline(const bl_h5_summary *s,
                                          const bl_h5_summary *const *byid,
                                          size_t n)
{
    const bl_h5_summary *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const bl_h5_summary *c = byid[i];
        if (!bl_report_usable(c) || !is_unbound(c) || !same_group(s, c))
            continue;
        if (c->np == s->np && c->threads == s->threads)
            return c;
        if (!first)
            first = c;
    }
    return first;
}

typedef struct keyed {
    bl_report_row row;
    size_t kernel_order;   /* kernels in order of their first run */
    size_t group_order;    /* kernel+unit groups likewise */
} keyed;

static bl_report_sort g_sort; /* qsort has no context argument */

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    const bl_h5_summary *s = x->row.s, *t = y->row.s;
    int c;
    if (g_sort == BL_REPORT_SORT_LABEL &&
        (c = strcmp(str(s->label), str(t->label))) != 0)
        return c;
    if (g_sort == BL_REPORT_SORT_RATE) {
        if (x->kernel_order != y->kernel_order)
            return x->kernel_order < y->kernel_order ? -1 : 1;
        if (x->row.usable != y->row.usable)
            return x->row.usable ? -1 : 1;
        if (x->row.usable && x->group_order != y->group_order)
            return x->group_order < y->group_order ? -1 : 1;
        if (x->row.usable && s->rate != t->rate)
            return s->rate > t->rate ? -1 : 1;
    }
    return strcmp(str(s->run_id), str(t->run_id));
}

/* Index of the group of (kernel, unit, machine), added when new. */
static size_t group_of(bl_report *r, const char *kernel, const char *unit,
                       long node)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (strcmp(r->groups[g].kernel, kernel) == 0 &&
            strcmp(r->groups[g].rate_unit, unit) == 0 &&
            r->groups[g].node == node)
            return g;
    r->groups[r->ngroups].kernel = kernel;
    r->groups[r->ngroups].rate_unit = unit;
    r->groups[r->ngroups].node = node;
    return r->ngroups++;
}

static size_t kernel_order(const bl_h5_summary *const *byid, size_t n,
                           const char *kernel)
{
    size_t order = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(str(byid[j]->kernel), str(byid[i]->kernel)))
            j++;
        if (j < i)
            continue; /* kernel seen before */
        if (strcmp(str(byid[i]->kernel), kernel) == 0)
            return order;
        order++;
    }
    return order;
}

static int no_such_kernel(const bl_h5_summary *rows, size_t n,
                          const char *kernel, bl_err *err)
{
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list - 1; i++) {
        size_t j = 0;
        while (j < i && strcmp(str(rows[j].kernel), str(rows[i].kernel)))
            j++;
        if (j == i)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                    len ? ", " : "", str(rows[i].kernel));
    }
    return bl_err_set(err, "--kernel: no runs of kernel '%s'; this file has "
                      "%s", kernel, n ? list : "no runs");
}

/* Fills rows (usable, best, ratios) and groups from the filtered runs.
 * Groups come from the usable runs; an unusable run counts in the first
 * group of its kernel, or in a (kernel, "") group when none of its
 * kernel's runs is usable. */
static void rank_rows(bl_report *r, keyed *k, const bl_h5_summary *const *byid,
                      size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const bl_h5_summary *s = byid[i];
        bl_report_group *g;
        k[i].row.s = s;
        k[i].row.usable = bl_report_usable(s);
        k[i].row.ratio_best = k[i].row.ratio_baseline = NAN;
        k[i].kernel_order = kernel_order(byid, n, str(s->kernel));
        if (!k[i].row.usable)
            continue;
        k[i].group_order = group_of(r, str(s->kernel), str(s->rate_unit),
                                    bl_report_node(s));
        g = &r->groups[k[i].group_order];
        g->nruns++;
        if (!g->best || s->rate > g->best->rate)
            g->best = s;
    }
    for (size_t i = 0; i < n; i++) {
        size_t g = 0;
        if (k[i].row.usable)
            continue;
        long node = bl_report_node(k[i].row.s);
        /* the first group of its kernel on its machine (any machine
         * when it has none: it never ran) */
        while (g < r->ngroups &&
               (strcmp(r->groups[g].kernel, str(k[i].row.s->kernel)) != 0 ||
                (node >= 0 && r->groups[g].node != node)))
            g++;
        if (g == r->ngroups)
            g = group_of(r, str(k[i].row.s->kernel), "", node);
        r->groups[g].nruns++;
        r->groups[g].nunusable++;
    }
    for (size_t i = 0; i < n; i++) {
        bl_report_group *g = &r->groups[k[i].group_order];
        if (!k[i].row.usable)
            continue;
        k[i].row.best = g->best;
        k[i].row.ratio_best = k[i].row.s->rate / g->best->rate;
        k[i].row.baseline = find_baseline(k[i].row.s, byid, n);
        if (k[i].row.baseline)
            k[i].row.ratio_baseline =
                k[i].row.s->rate / k[i].row.baseline->rate;
    }
    for (size_t g = 0; g < r->ngroups; g++)
        if (r->groups[g].best)
            r->groups[g].baseline =
                find_baseline(r->groups[g].best, byid, n);
}

/* One layout of one kernel+unit group while ties are worked out. */
typedef struct tie_layout {
    const char *label;
    size_t group;
    double *rates;
    size_t n;
    double median, lo, hi;
    int tie_group, tied;
} tie_layout;

static int cmp_tie_layout(const void *a, const void *b)
{
    const tie_layout *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->median != y->median)
        return x->median > y->median ? -1 : 1;
    return strcmp(x->label, y->label);
}

static int overlaps(const tie_layout *a, const tie_layout *b)
{
    return a->n >= 2 && b->n >= 2 && a->lo <= b->hi && b->lo <= a->hi;
}

/* Groups the layouts of each kernel+unit into ties (bl_report_row's
 * tie_group in results_report.h). -1 when out of memory. */
static int find_ties(bl_report *r, keyed *k, size_t n)
{
    tie_layout *t = calloc(n ? n : 1, sizeof *t);
    double *pool = calloc(n ? n : 1, sizeof *pool);
    size_t nt = 0, used = 0;
    if (!t || !pool) {
        free(t);
        free(pool);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {   /* the layouts, rates kept apart */
        const char *label = str(k[i].row.s->label);
        size_t j = 0;
        if (!k[i].row.usable)
            continue;
        while (j < nt && (t[j].group != k[i].group_order ||
                          strcmp(t[j].label, label) != 0))
            j++;
        if (j == nt) {
            t[nt].label = label;
            t[nt].group = k[i].group_order;
            nt++;
        }
    }
    for (size_t j = 0; j < nt; j++) {  /* one block of pool per layout */
        t[j].rates = pool + used;
        for (size_t i = 0; i < n; i++)
            if (k[i].row.usable && k[i].group_order == t[j].group &&
                strcmp(str(k[i].row.s->label), t[j].label) == 0)
                t[j].rates[t[j].n++] = k[i].row.s->rate;
        used += t[j].n;
        t[j].median = bl_stats_median(t[j].rates, t[j].n);
        if (bl_stats_median_ci(t[j].rates, t[j].n, 0.95, &t[j].lo, &t[j].hi,
                               NULL) < 0)
            t[j].lo = t[j].hi = NAN;
    }
    qsort(t, nt, sizeof *t, cmp_tie_layout);
    for (size_t j = 0, leader = 0; j < nt; j++) {
        if (j == 0 || t[j].group != t[j - 1].group) {
            leader = j;
            t[j].tie_group = 1;
        } else if (overlaps(&t[leader], &t[j])) {
            t[j].tie_group = t[leader].tie_group;
            t[j].tied = t[leader].tied = 1;
        } else {
            t[j].tie_group = t[leader].tie_group + 1;
            leader = j;
        }
        r->groups[t[j].group].nlayouts++;
        r->groups[t[j].group].ntied_best += t[j].tie_group == 1;
    }
    for (size_t i = 0; i < n; i++) {
        bl_report_row *row = &k[i].row;
        row->ci_lo = row->ci_hi = row->layout_median = NAN;
        if (!row->usable)
            continue;
        for (size_t j = 0; j < nt; j++)
            if (t[j].group == k[i].group_order &&
                strcmp(t[j].label, str(row->s->label)) == 0) {
                row->tie_group = t[j].tie_group;
                row->tied = t[j].tied;
                row->layout_runs = t[j].n;
                row->layout_median = t[j].median;
                row->ci_lo = t[j].lo;
                row->ci_hi = t[j].hi;
                break;
            }
    }
    free(t);
    free(pool);
    return 0;
}

/* Closing lines follow the kernels' run order (stable insertion sort). */
static void order_groups(bl_report *r, const bl_h5_summary *const *byid,
                         size_t n)
{
    for (size_t i = 1; i < r->ngroups; i++) {
        bl_report_group g = r->groups[i];
        size_t order = kernel_order(byid, n, g.kernel), j = i;
        while (j > 0 && kernel_order(byid, n, r->groups[j - 1].kernel) > order) {
            r->groups[j] = r->groups[j - 1];
            j--;
        }
        r->groups[j] = g;
    }
}

int bl_report_build(const bl_h5_summary *rows, size_t n, const char *kernel,
                    bl_report_sort sort, bl_report *r, bl_err *err)
{
    const bl_h5_summary **byid = calloc(n ? n : 1, sizeof *byid);
    keyed *k = calloc(n ? n : 1, sizeof *k);
    size_t m = 0;

    memset(r, 0, sizeof *r);
    r->rows = calloc(n ? n : 1, sizeof *r->rows);
    r->groups = calloc(n ? n : 1, sizeof *r->groups);
    if (!byid || !k || !r->rows || !r->groups) {
        free(byid);
        free(k);
        bl_report_free(r);
        return bl_err_set(err, "out of memory for a report of %zu runs", n);
    }
    for (size_t i = 0; i < n; i++)
        if (!kernel || strcmp(str(rows[i].kernel), kernel) == 0)
            byid[m++] = &rows[i];
    if (kernel && m == 0) {
        free(byid);
        free(k);
        bl_report_free(r);
        return no_such_kernel(rows, n, kernel, err);
    }
    if (m)
        qsort(byid, m, sizeof *byid, cmp_run_id);
    for (size_t i = 0, first = 0; i < m; i++) {
        long node = bl_report_node(byid[i]);
        if (node < 0)
            continue;
        if (first && node != bl_report_node(byid[first - 1]))
            r->several_nodes = 1;
        if (!first)
            first = i + 1;
    }
    rank_rows(r, k, byid, m);
    if (find_ties(r, k, m) < 0) {
        free(byid);
        free(k);
        bl_report_free(r);
        return bl_err_set(err, "out of memory for a report of %zu runs", n);
    }
    g_sort = sort;
    if (m)
        qsort(k, m, sizeof *k, cmp_keyed);
    for (size_t i = 0; i < m; i++)
        r->rows[i] = k[i].row;
    r->nrows = m;
    order_groups(r, byid, m);
    free(byid);
    free(k);
    return 0;
}

void bl_report_free(bl_report *r)
{
    free(r->rows);
    free(r->groups);
    memset(r, 0, sizeof *r);
}
