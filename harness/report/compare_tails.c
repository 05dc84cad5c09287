/* Under a pair of layouts in `bindlab compare` and --ab (compare_priv.h):
 * their iteration-time tails and what the scheduler did to their threads,
 * read from the runs' groups of the sweep file. */
#include "report/compare_priv.h"

#include <stdlib.h>
#include <string.h>

#include "results/abstats.h"
#include "results/results_file.h"

static const char *str(const char *s)
{
    return s ? s : "";
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

void bl_cmp_write_tails(FILE *f, const bl_cmp_machine *ref,
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
