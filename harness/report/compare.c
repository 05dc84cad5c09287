/* Layouts of several machines matched by meaning (compare.h). */
#include "report/compare.h"

#include <stdlib.h>
#include <string.h>

#include "report/abstats.h"
#include "results/results_file.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

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

static int frac_eq(bl_frac a, bl_frac b)
{
    return a.p == b.p && a.q == b.q;
}

static void frac_text(bl_frac f, char *buf, size_t len)
{
    if (f.q == 1)
        snprintf(buf, len, "%ld", f.p);
    else
        snprintf(buf, len, "%ld/%ld", f.p, f.q);
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

/* A summary row's memory policy; files written before the column read
 * as the default, first touch. */
static const char *mem_policy(const bl_h5_summary *s)
{
    return s->mem_policy && s->mem_policy[0] ? s->mem_policy : "firsttouch";
}

/* The part of a layout that does not depend on the machine. */
static int same_free_part(const bl_cmp_layout *a, const bl_cmp_layout *b)
{
    const bl_h5_summary *x = a->l->first, *y = b->l->first;
    return strcmp(str(x->kernel), str(y->kernel)) == 0 &&
           strcmp(str(a->unit), str(b->unit)) == 0 &&
           strcmp(str(x->bind_to), str(y->bind_to)) == 0 &&
           strcmp(str(x->omp_places), str(y->omp_places)) == 0 &&
           strcmp(str(x->omp_proc_bind), str(y->omp_proc_bind)) == 0 &&
           strcmp(str(x->init), str(y->init)) == 0 &&
           strcmp(mem_policy(x), mem_policy(y)) == 0 &&
           frac_eq(a->thread_share, b->thread_share);
}

const bl_cmp_layout *bl_cmp_match(const bl_cmp_layout *r,
                                  const bl_cmp_machine *other,
                                  const char **by)
{
    static const char *const names[] = {"numa", "package", "l3"};
    for (int level = 0; level < 3; level++)
        for (size_t i = 0; i < other->nlayouts; i++) {
            const bl_cmp_layout *o = &other->layouts[i];
            bl_frac a = level == 0 ? r->per_numa : level == 1 ? r->per_package
                                                              : r->per_l3;
            bl_frac b = level == 0 ? o->per_numa : level == 1 ? o->per_package
                                                              : o->per_l3;
            if (same_free_part(r, o) && frac_eq(a, b)) {
                *by = names[level];
                return o;
            }
        }
    *by = "";
    return NULL;
}

void bl_cmp_meaning(const bl_cmp_layout *c, char *buf, size_t len)
{
    const bl_h5_summary *s = c->l->first;
    char pk[32], nu[32], l3[32], th[32];
    frac_text(c->per_package, pk, sizeof pk);
    frac_text(c->per_numa, nu, sizeof nu);
    frac_text(c->per_l3, l3, sizeof l3);
    frac_text(c->thread_share, th, sizeof th);
    snprintf(buf, len, "%s ranks %s/package %s/NUMA %s/L3, threads x ranks "
             "= %s of the cores, bind=%s places=%s proc_bind=%s init=%s%s%s",
             str(s->kernel), pk, nu, l3, th,
             s->bind_to && s->bind_to[0] ? s->bind_to : "unset",
             s->omp_places && s->omp_places[0] ? s->omp_places : "unset",
             s->omp_proc_bind && s->omp_proc_bind[0] ? s->omp_proc_bind
                                                      : "unset",
             str(s->init), strcmp(mem_policy(s), "firsttouch") ? " mem=" : "",
             strcmp(mem_policy(s), "firsttouch") ? mem_policy(s) : "");
}

/* True when some layout of the reference machine matches o. */
static int matched_by_ref(const bl_cmp_machine *ref,
                          const bl_cmp_machine *other, const bl_cmp_layout *o)
{
    const char *by;
    for (size_t i = 0; i < ref->nlayouts; i++)
        if (bl_cmp_match(&ref->layouts[i], other, &by) == o)
            return 1;
    return 0;
}

int bl_cmp_only_here(const bl_cmp_machine *ms, size_t n, size_t j,
                     const bl_cmp_layout *x)
{
    const char *by;
    if (j > 0)
        return !matched_by_ref(&ms[0], &ms[j], x);
    for (size_t k = 1; k < n; k++)
        if (bl_cmp_match(x, &ms[k], &by))
            return 0;
    return 1;
}

/* The rates of a layout's usable runs (its repetitions) into v (room for
 * m->nrows); returns their count. */
static size_t layout_rates(const bl_cmp_machine *m, const bl_cmp_layout *x,
                           double *v)
{
    size_t n = 0;
    for (size_t i = 0; i < m->report.nrows; i++) {
        const bl_report_row *row = &m->report.rows[i];
        if (row->usable &&
            strcmp(str(row->s->label), str(x->l->label)) == 0 &&
            strcmp(str(row->s->kernel), str(x->l->first->kernel)) == 0)
            v[n++] = row->s->rate;
    }
    return n;
}

int bl_cmp_stats(const bl_cmp_machine *ref, const bl_cmp_layout *r,
                 const bl_cmp_machine *om, const bl_cmp_layout *o,
                 bl_cmp_stat *st)
{
    double *a = malloc((ref->nrows + 1) * sizeof *a);
    double *b = malloc((om->nrows + 1) * sizeof *b);
    int rc = -1;
    if (a && b && (st->na = layout_rates(ref, r, a)) >= 2 &&
        (st->nb = layout_rates(om, o, b)) >= 2 &&
        bl_stats_boot_ratio(a, st->na, b, st->nb, 2000, 14, 0.95, &st->lo,
                            &st->hi) == 0) {
        st->p = bl_stats_mann_whitney_p(a, st->na, b, st->nb);
        rc = 0;
    }
    free(a);
    free(b);
    return rc;
}

/* What a layout's usable runs recorded beyond their rate: per timed
 * iteration the slowest rank's time (the iteration ends when every rank is
 * done), from /runs/<id>/run timings; and per run, summed over every
 * thread of every rank, the CPU migrations and context switches of the
 * timed region (perf_event_open's cpu_migrations and context_switches
 * counters; the involuntary ones from the placement table, i.e.
 * getrusage). A run that lacks a quantity (an older file, a machine that
 * could not count it) adds no value for it. */
typedef struct layout_detail {
    double *times;
    size_t ntimes;
    double *migrations, *switches, *involuntary;   /* one per run */
    size_t nmig, nsw, ninv;
} layout_detail;

static void detail_free(layout_detail *d)
{
    free(d->times);
    free(d->migrations);
    free(d->switches);
    free(d->involuntary);
    memset(d, 0, sizeof *d);
}

/* The counter `name` summed over the run's threads; -1 when a thread's is
 * unavailable or there is none. */
static double counter_sum(const bl_h5_run *run, const char *name)
{
    double sum = 0;
    size_t seen = 0;
    for (size_t i = 0; i < run->ncounters; i++) {
        const bl_h5_counter *c = &run->counters[i];
        if (strcmp(str(c->name), name) != 0)
            continue;
        if (!c->available)
            return -1;
        sum += (double)c->value;
        seen++;
    }
    return seen ? sum : -1;
}

static double involuntary_sum(const bl_h5_run *run)
{
    double sum = 0;
    for (size_t i = 0; i < run->nplacement; i++) {
        if (run->placement[i].ctx_involuntary < 0)
            return -1;
        sum += (double)run->placement[i].ctx_involuntary;
    }
    return run->nplacement ? sum : -1;
}

static int add_times(layout_detail *d, size_t *cap, const bl_h5_run *run)
{
    size_t want = d->ntimes + (size_t)run->iterations;
    if (want > *cap) {
        double *p = realloc(d->times, 2 * want * sizeof *p);
        if (!p)
            return -1;
        d->times = p;
        *cap = 2 * want;
    }
    for (int it = 0; it < run->iterations; it++) {
        double t = 0;
        for (int r = 0; r < run->ranks; r++) {
            double y = run->timings[(size_t)it * run->ranks + r];
            if (y > t)
                t = y;
        }
        d->times[d->ntimes++] = t;
    }
    return 0;
}

static void add_run(layout_detail *d, const bl_h5_run *run)
{
    double v;
    if ((v = counter_sum(run, "cpu_migrations")) >= 0)
        d->migrations[d->nmig++] = v;
    if ((v = counter_sum(run, "context_switches")) >= 0)
        d->switches[d->nsw++] = v;
    if ((v = involuntary_sum(run)) >= 0)
        d->involuntary[d->ninv++] = v;
}

static int layout_detail_read(const bl_cmp_machine *m, const bl_cmp_layout *x,
                              layout_detail *d)
{
    bl_err e;
    size_t cap = 0;
    hid_t f;
    memset(d, 0, sizeof *d);
    d->migrations = calloc(m->report.nrows + 1, sizeof *d->migrations);
    d->switches = calloc(m->report.nrows + 1, sizeof *d->switches);
    d->involuntary = calloc(m->report.nrows + 1, sizeof *d->involuntary);
    if (!d->migrations || !d->switches || !d->involuntary ||
        (f = bl_h5_open_read(m->path, &e)) < 0) {
        detail_free(d);
        return -1;
    }
    for (size_t i = 0; i < m->report.nrows; i++) {
        const bl_report_row *row = &m->report.rows[i];
        char group[600];
        bl_h5_run run;
        if (!row->usable ||
            strcmp(str(row->s->label), str(x->l->label)) != 0 ||
            strcmp(str(row->s->kernel), str(x->l->first->kernel)) != 0)
            continue;
        bl_h5_run_path(str(row->s->run_id), group, sizeof group);
        if (bl_h5_read_run(f, group, &run, &e) < 0)
            continue;
        add_run(d, &run);
        if (run.timings && run.iterations > 0 && run.ranks > 0 &&
            add_times(d, &cap, &run) < 0) {
            bl_h5_run_free(&run);
            break;
        }
        bl_h5_run_free(&run);
    }
    H5Fclose(f);
    return 0;
}

/* "4 [0..37]": the median of a per-run count and its range; "?" when no
 * run has it. */
static void per_run_text(const double *v, size_t n, char *buf, size_t len)
{
    double lo, hi;
    if (n == 0) {
        snprintf(buf, len, "?");
        return;
    }
    lo = hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    snprintf(buf, len, "%.0f [%.0f..%.0f]", bl_stats_median(v, n), lo, hi);
}

/* One side's migrations and context switches per run. */
static void switches_line(FILE *f, char tag, const layout_detail *d)
{
    char mig[96], sw[96], inv[96];
    per_run_text(d->migrations, d->nmig, mig, sizeof mig);
    per_run_text(d->switches, d->nsw, sw, sizeof sw);
    per_run_text(d->involuntary, d->ninv, inv, sizeof inv);
    fprintf(f, "      %c: %s migrations, %s context switches, %s "
            "involuntary\n", tag, mig, sw, inv);
}

/* The tails: p90, p99 and max of the iteration times on both sides, then
 * what the scheduler did to the threads in the timed region. */
static void tails_line(FILE *f, const bl_cmp_machine *ref,
                       const bl_cmp_layout *r, const bl_cmp_machine *om,
                       const bl_cmp_layout *o, char btag)
{
    layout_detail a, b;
    if (layout_detail_read(ref, r, &a) < 0)
        return;
    if (layout_detail_read(om, o, &b) < 0) {
        detail_free(&a);
        return;
    }
    if (a.ntimes > 0 && b.ntimes > 0)
        fprintf(f, "    iteration times p50/p90/p99/max: A "
                "%.4g/%.4g/%.4g/%.4g s, %c %.4g/%.4g/%.4g/%.4g s\n",
                bl_stats_quantile(a.times, a.ntimes, 0.5),
                bl_stats_quantile(a.times, a.ntimes, 0.9),
                bl_stats_quantile(a.times, a.ntimes, 0.99),
                bl_stats_quantile(a.times, a.ntimes, 1), btag,
                bl_stats_quantile(b.times, b.ntimes, 0.5),
                bl_stats_quantile(b.times, b.ntimes, 0.9),
                bl_stats_quantile(b.times, b.ntimes, 0.99),
                bl_stats_quantile(b.times, b.ntimes, 1));
    if ((a.nmig || a.nsw || a.ninv) && (b.nmig || b.nsw || b.ninv)) {
        fprintf(f, "    in the timed region, all threads, per run (median "
                "[min..max]):\n");
        switches_line(f, 'A', &a);
        switches_line(f, btag, &b);
    }
    detail_free(&a);
    detail_free(&b);
}

/* Is the difference real? (with 2 repetitions or more on each side) */
static void stats_line(FILE *f, const bl_cmp_machine *ref,
                       const bl_cmp_layout *r, const bl_cmp_machine *om,
                       const bl_cmp_layout *o)
{
    bl_cmp_stat st;
    if (bl_cmp_stats(ref, r, om, o, &st) == 0)
        fprintf(f, "    95%% interval of the ratio [%.2f, %.2f], rank test "
                "p=%.2g (%zu vs %zu runs)%s\n", st.lo, st.hi, st.p, st.na,
                st.nb, st.lo <= 1 && st.hi >= 1 ? ": a tie" : "");
}

static char tag(size_t i)
{
    return (char)('A' + (i < 26 ? i : 25));
}

int bl_cmp_write_text(FILE *f, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    const bl_cmp_machine *ref = &ms[0];

    fprintf(f, "machines:\n");
    for (size_t j = 0; j < n; j++)
        fprintf(f, "  %c: %s (%s), %d package%s, %d NUMA node%s, %d L3, %d "
                "cores: %s\n", tag(j), str(ms[j].m.hostname),
                str(ms[j].m.cpu_model), ms[j].m.packages,
                ms[j].m.packages == 1 ? "" : "s", ms[j].m.numa_nodes,
                ms[j].m.numa_nodes == 1 ? "" : "s", ms[j].m.l3_domains,
                ms[j].m.cores, ms[j].source);
    fprintf(f, "\nlayouts matched by meaning (rate: median over "
               "repetitions; ratio to A):\n");
    for (size_t i = 0; i < ref->nlayouts; i++) {
        const bl_cmp_layout *r = &ref->layouts[i];
        bl_cmp_meaning(r, meaning, sizeof meaning);
        fprintf(f, "%s\n  A %.4g %s '%s'\n", meaning, r->l->median, r->unit,
                r->l->label);
        for (size_t j = 1; j < n; j++) {
            const char *by;
            const bl_cmp_layout *o = bl_cmp_match(r, &ms[j], &by);
            if (o) {
                fprintf(f, "  %c %.4g %s '%s' ratio %.2f (same ranks per "
                        "%s)\n", tag(j), o->l->median, o->unit, o->l->label,
                        o->l->median / r->l->median, by);
                stats_line(f, ref, r, &ms[j], o);
                tails_line(f, ref, r, &ms[j], o, tag(j));
            } else
                fprintf(f, "  %c -\n", tag(j));
        }
    }
    fprintf(f, "\nbest per machine:\n");
    for (size_t j = 0; j < n; j++)
        for (size_t g = 0; g < ms[j].report.ngroups; g++) {
            const bl_report_group *gr = &ms[j].report.groups[g];
            if (gr->best)
                fprintf(f, "  %c %s: %s '%s' %.4g %s\n", tag(j), gr->kernel,
                        str(gr->best->run_id), str(gr->best->label),
                        gr->best->rate, gr->rate_unit);
        }
    fprintf(f, "\nonly on one machine:\n");
    int any = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < ms[j].nlayouts; i++)
            if (bl_cmp_only_here(ms, n, j, &ms[j].layouts[i])) {
                fprintf(f, "  %c '%s'\n", tag(j), ms[j].layouts[i].l->label);
                any = 1;
            }
    if (!any)
        fprintf(f, "  none\n");
    return ferror(f) ? -1 : 0;
}

/* The layout that `which` names in m: its name, its label, or its run id
 * without the repetition (r0003 for r0003.1, r0003.2 ...). */
const bl_cmp_layout *bl_cmp_find(const bl_cmp_machine *m, const char *which)
{
    size_t n = strlen(which);
    for (size_t i = 0; i < m->nlayouts; i++) {
        const bl_h5_summary *s = m->layouts[i].l->first;
        if (strcmp(str(s->label), which) == 0 ||
            (s->name && s->name[0] && strcmp(s->name, which) == 0))
            return &m->layouts[i];
    }
    for (size_t i = 0; i < m->report.nrows; i++) {
        const bl_h5_summary *s = m->report.rows[i].s;
        const char *id = str(s->run_id);
        if (m->report.rows[i].usable && strncmp(id, which, n) == 0 &&
            (id[n] == '\0' || id[n] == '.'))
            for (size_t j = 0; j < m->nlayouts; j++)
                if (strcmp(str(m->layouts[j].l->label), str(s->label)) == 0 &&
                    strcmp(str(m->layouts[j].l->first->kernel),
                           str(s->kernel)) == 0)
                    return &m->layouts[j];
    }
    return NULL;
}

int bl_cmp_write_ab(FILE *f, const bl_cmp_machine *m, const bl_cmp_layout *a,
                    const bl_cmp_layout *b)
{
    fprintf(f, "%s (%s), %s\n", m->path, str(m->m.hostname),
            str(m->m.cpu_model));
    fprintf(f, "  A %.4g %s '%s' (%zu run%s)\n", a->l->median, a->unit,
            a->l->label, a->l->n, a->l->n == 1 ? "" : "s");
    fprintf(f, "  B %.4g %s '%s' (%zu run%s) ratio B/A %.2f\n", b->l->median,
            b->unit, b->l->label, b->l->n, b->l->n == 1 ? "" : "s",
            b->l->median / a->l->median);
    if (strcmp(str(a->unit), str(b->unit)) != 0)
        fprintf(f, "    (different rate units: the ratio means nothing)\n");
    stats_line(f, m, a, m, b);
    tails_line(f, m, a, m, b, 'B');
    return ferror(f) ? -1 : 0;
}

static void csv_row(FILE *f, const char *meaning, size_t j,
                    const bl_cmp_machine *m, const bl_cmp_layout *x,
                    double ref_median, const char *by)
{
    char t[2] = {tag(j), '\0'};
    bl_report_csv_field(f, meaning);
    fputc(',', f);
    bl_report_csv_field(f, t);
    fputc(',', f);
    bl_report_csv_field(f, str(m->m.hostname));
    fputc(',', f);
    bl_report_csv_field(f, m->source);
    fputc(',', f);
    bl_report_csv_field(f, x->l->label);
    fputc(',', f);
    bl_report_csv_field(f, str(x->l->first->run_id));
    fprintf(f, ",%.9g,", x->l->median);
    bl_report_csv_field(f, x->unit);
    if (ref_median > 0)
        fprintf(f, ",%.6g,", x->l->median / ref_median);
    else
        fputs(",,", f);
    bl_report_csv_field(f, by);
    fputs("\r\n", f);
}

int bl_cmp_write_csv(FILE *f, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    const bl_cmp_machine *ref = &ms[0];
    fputs("meaning,machine,hostname,file,label,first_run_id,median_rate,"
          "rate_unit,ratio_to_A,matched_by\r\n", f);
    for (size_t i = 0; i < ref->nlayouts; i++) {
        const bl_cmp_layout *r = &ref->layouts[i];
        bl_cmp_meaning(r, meaning, sizeof meaning);
        csv_row(f, meaning, 0, ref, r, r->l->median, "");
        for (size_t j = 1; j < n; j++) {
            const char *by;
            const bl_cmp_layout *o = bl_cmp_match(r, &ms[j], &by);
            if (o)
                csv_row(f, meaning, j, &ms[j], o, r->l->median, by);
        }
    }
    /* layouts only on another machine: their own meaning, no ratio */
    for (size_t j = 1; j < n; j++)
        for (size_t i = 0; i < ms[j].nlayouts; i++)
            if (bl_cmp_only_here(ms, n, j, &ms[j].layouts[i])) {
                bl_cmp_meaning(&ms[j].layouts[i], meaning, sizeof meaning);
                csv_row(f, meaning, j, &ms[j], &ms[j].layouts[i], 0, "");
            }
    return ferror(f) ? -1 : 0;
}
