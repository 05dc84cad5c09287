/* Ranking of a sweep's /summary rows: order, best run and bind_to none
 * baseline per kernel+unit, ratios, ties. Writing the table is
 * report/report_write.c. */
#include "results/results_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "results/abstats.h"
#include "keymap.h"

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

/* Rows in run-id order, so that "first" means the earliest run whatever
 * order the file has them in. */
static int cmp_run_id(const void *a, const void *b)
{
    const bl_h5_summary *x = *(const bl_h5_summary *const *)a;
    const bl_h5_summary *y = *(const bl_h5_summary *const *)b;
    return strcmp(str(x->run_id), str(y->run_id));
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

/* The lookups that ranking does once per row, each a hash of a composed
 * key, so that a report of n runs costs O(n) lookups: kernels in order
 * of their first run, groups, the first group of a kernel (on a machine),
 * baselines. */
typedef struct maps {
    bl_keymap kernels;       /* kernel -> order of its first run */
    bl_keymap groups;        /* kernel, unit, node -> group */
    bl_keymap kernel_group;  /* kernel -> its first group */
    bl_keymap kernel_node_group; /* kernel, node -> its first group */
    bl_keymap bases;         /* group, np, threads -> first unbound run */
    const bl_h5_summary **base_first; /* per group: its first unbound run */
} maps;

static void maps_free(maps *m)
{
    bl_keymap_free(&m->kernels);
    bl_keymap_free(&m->groups);
    bl_keymap_free(&m->kernel_group);
    bl_keymap_free(&m->kernel_node_group);
    bl_keymap_free(&m->bases);
    free(m->base_first);
}

/* Parts joined by a byte no kernel, unit or label holds. */
static const char *key_of(char *buf, size_t len, const char *a,
                          const char *b, long long x, long long y)
{
    snprintf(buf, len, "%s\x1f%s\x1f%lld\x1f%lld", a, b, x, y);
    return buf;
}

/* A baseline's key: its group, np and threads. */
static const char *base_key(char *buf, size_t len, size_t group,
                            const bl_h5_summary *s)
{
    snprintf(buf, len, "%zu\x1f%ld\x1f%ld", group, (long)s->np,
             (long)s->threads);
    return buf;
}

/* Index of the group of (kernel, unit, machine), added when new;
 * BL_KEYMAP_NONE when out of memory. */
static size_t group_of(bl_report *r, maps *m, const char *kernel,
                       const char *unit, long node)
{
    char key[1024];
    size_t g = bl_keymap_put_new(&m->groups,
                                 key_of(key, sizeof key, kernel, unit, node, 0),
                                 r->ngroups);
    if (g != r->ngroups)
        return g; /* known, or out of memory */
    r->groups[g].kernel = kernel;
    r->groups[g].rate_unit = unit;
    r->groups[g].node = node;
    r->ngroups++;
    if (bl_keymap_put_new(&m->kernel_group, kernel, g) == BL_KEYMAP_NONE ||
        bl_keymap_put_new(&m->kernel_node_group,
                          key_of(key, sizeof key, kernel, "", node, 0),
                          g) == BL_KEYMAP_NONE)
        return BL_KEYMAP_NONE;
    return g;
}

/* Order of kernel among the kernels of byid, by first run. */
static size_t kernel_order(const maps *m, const char *kernel)
{
    return bl_keymap_get(&m->kernels, kernel);
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

/* The group baselines: that of each group's best run. */
static void group_baselines(bl_report *r, maps *m,
                            const bl_h5_summary *const *byid)
{
    char key[1024];
    for (size_t g = 0; g < r->ngroups; g++) {
        const bl_h5_summary *best = r->groups[g].best;
        size_t b;
        if (!best)
            continue;
        b = bl_keymap_get(&m->bases,
                          base_key(key, sizeof key, g, best));
        r->groups[g].baseline = b != BL_KEYMAP_NONE ? byid[b] : m->base_first[g];
    }
}

/* Fills rows (usable, best, ratios) and groups from the filtered runs.
 * Groups come from the usable runs; an unusable run counts in the first
 * group of its kernel, or in a (kernel, "") group when none of its
 * kernel's runs is usable. The baseline of a usable run is the first
 * usable bind_to none run of its group (same kernel, unit and machine)
 * with the same np and threads if there is one, else the first; "first"
 * is in run-id order (byid). -1 when out of memory. */
static int rank_rows(bl_report *r, maps *m, keyed *k,
                     const bl_h5_summary *const *byid, size_t n)
{
    char key[1024];
    for (size_t i = 0; i < n; i++) {
        const char *kernel = str(byid[i]->kernel);
        size_t next = m->kernels.n;
        if (bl_keymap_put_new(&m->kernels, kernel, next) == BL_KEYMAP_NONE)
            return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const bl_h5_summary *s = byid[i];
        bl_report_group *g;
        k[i].row.s = s;
        k[i].row.usable = bl_report_usable(s);
        k[i].row.ratio_best = k[i].row.ratio_baseline = NAN;
        k[i].kernel_order = kernel_order(m, str(s->kernel));
        if (!k[i].row.usable)
            continue;
        k[i].group_order = group_of(r, m, str(s->kernel), str(s->rate_unit),
                                    bl_report_node(s));
        if (k[i].group_order == BL_KEYMAP_NONE)
            return -1;
        g = &r->groups[k[i].group_order];
        g->nruns++;
        if (!g->best || s->rate > g->best->rate)
            g->best = s;
    }
    for (size_t i = 0; i < n; i++) {
        size_t g;
        if (k[i].row.usable)
            continue;
        long node = bl_report_node(k[i].row.s);
        const char *kernel = str(k[i].row.s->kernel);
        /* the first group of its kernel on its machine (any machine
         * when it has none: it never ran) */
        g = node < 0 ? bl_keymap_get(&m->kernel_group, kernel)
                     : bl_keymap_get(&m->kernel_node_group,
                                     key_of(key, sizeof key, kernel, "",
                                            node, 0));
        if (g == BL_KEYMAP_NONE &&
            (g = group_of(r, m, kernel, "", node)) == BL_KEYMAP_NONE)
            return -1;
        r->groups[g].nruns++;
        r->groups[g].nunusable++;
    }
    if (!(m->base_first = calloc(r->ngroups + 1, sizeof *m->base_first)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const bl_h5_summary *c = byid[i];
        size_t g = k[i].group_order;
        if (!k[i].row.usable || !is_unbound(c))
            continue;
        if (!m->base_first[g])
            m->base_first[g] = c;
        if (bl_keymap_put_new(&m->bases,
                              base_key(key, sizeof key, g, c),
                              i) == BL_KEYMAP_NONE)
            return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const bl_h5_summary *s = k[i].row.s;
        bl_report_group *g = &r->groups[k[i].group_order];
        size_t b;
        if (!k[i].row.usable)
            continue;
        k[i].row.best = g->best;
        k[i].row.ratio_best = s->rate / g->best->rate;
        b = bl_keymap_get(&m->bases,
                          base_key(key, sizeof key, k[i].group_order, s));
        k[i].row.baseline = b != BL_KEYMAP_NONE ? byid[b]
                                                : m->base_first[k[i].group_order];
        if (k[i].row.baseline)
            k[i].row.ratio_baseline = s->rate / k[i].row.baseline->rate;
    }
    group_baselines(r, m, byid);
    return 0;
}

/* One layout of one kernel+unit group while ties are worked out. */
typedef struct tie_layout {
    const char *label;
    size_t group;
    size_t id;           /* its index before sorting */
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

/* The layouts of the usable rows of k[0..n) into t (one per kernel+unit
 * group and label, found by a hash of both), of[i] the layout of row i,
 * each layout's rates in run order in its block of pool, its median and
 * the 95% interval of its median. Returns the count, -1 when out of
 * memory. */
static long collect_tie_layouts(const keyed *k, size_t n, tie_layout *t,
                                double *pool, size_t *of)
{
    bl_keymap layouts = {0};
    size_t nt = 0, used = 0;
    char key[1024];
    for (size_t i = 0; i < n; i++) {   /* the layouts and their sizes */
        const char *label = str(k[i].row.s->label);
        if (!k[i].row.usable)
            continue;
        snprintf(key, sizeof key, "%zu\x1f%s", k[i].group_order, label);
        of[i] = bl_keymap_put_new(&layouts, key, nt);
        if (of[i] == BL_KEYMAP_NONE) {
            bl_keymap_free(&layouts);
            return -1;
        }
        if (of[i] == nt) {
            t[nt].label = label;
            t[nt].group = k[i].group_order;
            t[nt].id = nt;
            nt++;
        }
        t[of[i]].n++;
    }
    bl_keymap_free(&layouts);
    for (size_t j = 0; j < nt; j++) {  /* one block of pool per layout */
        t[j].rates = pool + used;
        used += t[j].n;
        t[j].n = 0;
    }
    for (size_t i = 0; i < n; i++)     /* rates in run order */
        if (k[i].row.usable) {
            tie_layout *l = &t[of[i]];
            l->rates[l->n++] = k[i].row.s->rate;
        }
    for (size_t j = 0; j < nt; j++) {
        t[j].median = bl_stats_median(t[j].rates, t[j].n);
        if (bl_stats_median_ci(t[j].rates, t[j].n, 0.95, &t[j].lo, &t[j].hi,
                               NULL) < 0)
            t[j].lo = t[j].hi = NAN;
    }
    return (long)nt;
}

/* Sorts t[0..nt) by group and median and numbers the tie groups of each
 * kernel+unit (bl_report_row's tie_group), counting its layouts and those
 * tied with the best in r's groups; pos[id] is where layout id went. */
static void rank_tie_layouts(bl_report *r, tie_layout *t, size_t nt,
                             size_t *pos)
{
    qsort(t, nt, sizeof *t, cmp_tie_layout);
    for (size_t j = 0; j < nt; j++)
        pos[t[j].id] = j;
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
}

/* Groups the layouts of each kernel+unit into ties (bl_report_row's
 * tie_group in results_report.h) and gives each usable row its layout's
 * group, size, median and interval. -1 when out of memory. */
static int find_ties(bl_report *r, keyed *k, size_t n)
{
    tie_layout *t = calloc(n ? n : 1, sizeof *t);
    double *pool = calloc(n ? n : 1, sizeof *pool);
    size_t *of = calloc(n ? n : 1, sizeof *of);   /* row -> layout id */
    size_t *pos = calloc(n ? n : 1, sizeof *pos); /* layout id -> index */
    long nt = -1;
    if (t && pool && of && pos)
        nt = collect_tie_layouts(k, n, t, pool, of);
    if (nt >= 0)
        rank_tie_layouts(r, t, (size_t)nt, pos);
    for (size_t i = 0; nt >= 0 && i < n; i++) {
        bl_report_row *row = &k[i].row;
        const tie_layout *l;
        row->ci_lo = row->ci_hi = row->layout_median = NAN;
        if (!row->usable)
            continue;
        l = &t[pos[of[i]]];
        row->tie_group = l->tie_group;
        row->tied = l->tied;
        row->layout_runs = l->n;
        row->layout_median = l->median;
        row->ci_lo = l->lo;
        row->ci_hi = l->hi;
    }
    free(t);
    free(pool);
    free(of);
    free(pos);
    return nt < 0 ? -1 : 0;
}

/* Closing lines follow the kernels' run order; groups of one kernel keep
 * their order (the original index breaks ties: a stable sort). */
typedef struct group_at {
    size_t order, index;
    bl_report_group g;
} group_at;

static int cmp_group_at(const void *a, const void *b)
{
    const group_at *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int order_groups(bl_report *r, const maps *m)
{
    group_at *at = calloc(r->ngroups ? r->ngroups : 1, sizeof *at);
    if (!at)
        return -1;
    for (size_t g = 0; g < r->ngroups; g++) {
        at[g].order = kernel_order(m, r->groups[g].kernel);
        at[g].index = g;
        at[g].g = r->groups[g];
    }
    if (r->ngroups > 1)
        qsort(at, r->ngroups, sizeof *at, cmp_group_at);
    for (size_t g = 0; g < r->ngroups; g++)
        r->groups[g] = at[g].g;
    free(at);
    return 0;
}

int bl_report_build(const bl_h5_summary *rows, size_t n, const char *kernel,
                    bl_report_sort sort, bl_report *r, bl_err *err)
{
    const bl_h5_summary **byid = calloc(n ? n : 1, sizeof *byid);
    keyed *k = calloc(n ? n : 1, sizeof *k);
    maps maps_ = {0};
    size_t m = 0;
    int rc;

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
    if (rank_rows(r, &maps_, k, byid, m) < 0 || find_ties(r, k, m) < 0) {
        maps_free(&maps_);
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
    rc = order_groups(r, &maps_);
    maps_free(&maps_);
    free(byid);
    free(k);
    if (rc < 0) {
        bl_report_free(r);
        return bl_err_set(err, "out of memory for a report of %zu runs", n);
    }
    return 0;
}

void bl_report_free(bl_report *r)
{
    free(r->rows);
    free(r->groups);
    memset(r, 0, sizeof *r);
}
