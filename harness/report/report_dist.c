/* The iteration-time chart of `bindlab report --html` and `--plot`: per
 * layout the distribution of its per-iteration times (the slowest rank's
 * time of each timed iteration) over all its usable repetitions, as a box
 * plot on one shared time axis, so two layouts can be compared by their
 * spread and tails and not only by their medians (A/B). */
#include "report/report_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/abstats.h"

/* the plot area ends PAD short of the right edge, so the last tick's
 * label fits */
enum { WIDTH = 900, PAD = 30, ROW = 46, TOP = 4, AXIS = 26, BOX = 27 };

typedef struct dist {
    double min, p5, q1, med, q3, p95, p90, p99, max;
    size_t n, nruns;
} dist;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Type-7 quantile of sorted v[0..n) (as bl_stats_quantile, which sorts a
 * copy each call; here the sample is sorted once). */
static double q7(const double *v, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t i = (size_t)h;
    return i + 1 < n ? v[i] + (h - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static void describe(double *v, size_t n, size_t nruns, dist *d)
{
    qsort(v, n, sizeof *v, cmp_double);
    d->n = n;
    d->nruns = nruns;
    d->min = v[0];
    d->max = v[n - 1];
    d->p5 = q7(v, n, 0.05);
    d->q1 = q7(v, n, 0.25);
    d->med = q7(v, n, 0.5);
    d->q3 = q7(v, n, 0.75);
    d->p90 = q7(v, n, 0.90);
    d->p95 = q7(v, n, 0.95);
    d->p99 = q7(v, n, 0.99);
}

/* The time unit that suits the largest value: a scale and its name. */
static double unit_of(double hi, const char **name)
{
    if (hi < 1e-3) {
        *name = "µs";
        return 1e6;
    }
    if (hi < 1) {
        *name = "ms";
        return 1e3;
    }
    *name = "s";
    return 1;
}

/* A round step for about 5 ticks over span. */
static double tick_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void axis(bl_strbuf *b, double lo, double hi, double y, double sc,
                 const char *u)
{
    double step = tick_step((hi - lo) * sc) / sc, w = WIDTH - PAD;
    bl_strbuf_printf(b, "<path class=\"axis\" d=\"M1 %gH%d\"/>\n", y,
                     WIDTH - PAD + 1);
    for (double t = ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
        double x = 1 + w * (t - lo) / (hi - lo);
        bl_strbuf_printf(b, "<path class=\"axis\" d=\"M%.1f %gv4\"/><text "
                         "class=\"tick\" x=\"%.1f\" y=\"%g\">%.4g %s</text>\n",
                         x, y, x, y + 15, t * sc, u);
    }
}

/* Where value v is on the time axis [lo, hi]. */
static double xpos(double v, double lo, double hi)
{
    double w = WIDTH - PAD;
    return 1 + w * (v - lo) / (hi - lo);
}

/* One layout's row at height y: its label (a link to its first run in
 * the page), its numbers, and its box plot on the axis [lo, hi]; times
 * shown in unit u (seconds times sc). */
static void layout_row(bl_strbuf *b, const bl_report_layout *l,
                       const dist *s, double y, double lo, double hi,
                       double sc, const char *u, int standalone)
{
#define X(v) xpos((v), lo, hi)
    if (!standalone) {
        bl_strbuf_puts(b, "<a href=\"#run-");
        bl_html_escape(b, l->first->run_id);
        bl_strbuf_puts(b, "\">");
    }
    bl_strbuf_printf(b, "<text x=\"1\" y=\"%g\">", y + 11);
    bl_html_escape(b, l->label);
    /* the numbers on a line of their own: a long label and them do
     * not fit on one */
    bl_strbuf_printf(b, "</text>%s<text class=\"st\" x=\"1\" y=\"%g\">"
                     "median %.4g, p90 %.4g, p99 %.4g, max %.4g %s "
                     "(%zu iterations, %zu run%s)</text>\n",
                     standalone ? "" : "</a>", y + 23,
                     s->med * sc, s->p90 * sc, s->p99 * sc, s->max * sc,
                     u, s->n, s->nruns, s->nruns == 1 ? "" : "s");
    bl_strbuf_printf(b, "<path class=\"iw\" d=\"M%.1f %gH%.1fM%.1f "
                     "%gv8M%.1f %gv8\"/><rect class=\"box\" x=\"%.1f\" "
                     "y=\"%g\" width=\"%.1f\" height=\"14\"/><path "
                     "class=\"med\" d=\"M%.1f %gv14\"/><circle class=\"ext\""
                     " cx=\"%.1f\" cy=\"%g\" r=\"2\"/><circle class=\"ext\" "
                     "cx=\"%.1f\" cy=\"%g\" r=\"2\"/>\n",
                     X(s->p5), y + BOX + 7, X(s->p95), X(s->p5),
                     y + BOX + 3, X(s->p95), y + BOX + 3, X(s->q1),
                     y + BOX, X(s->q3) - X(s->q1), X(s->med), y + BOX,
                     X(s->min), y + BOX + 7, X(s->max), y + BOX + 7);
#undef X
}

int bl_report_svg_iters(bl_strbuf *b, const bl_report *r,
                        const bl_report_detail *d, const bl_report_group *g,
                        int standalone)
{
    bl_report_layout *l;
    long nl = bl_report_layouts(r, g, &l);
    dist *ds;
    double lo = INFINITY, hi = 0, sc;
    long drawn = 0;
    const char *u;

    if (nl < 0)
        return -1;
    if (!(ds = calloc((size_t)nl + 1, sizeof *ds))) {
        free(l);
        return -1;
    }
    for (long i = 0; i < nl; i++) {
        double *v;
        size_t nruns, n = bl_report_layout_iters(r, d, g, l[i].label,
                                                 &v, &nruns);
        if (n > 0) {
            describe(v, n, nruns, &ds[i]);
            lo = ds[i].min < lo ? ds[i].min : lo;
            hi = ds[i].max > hi ? ds[i].max : hi;
            drawn++;
        }
        free(v);
    }
    if (drawn == 0) {
        bl_strbuf_puts(b, "<p>No usable run of this kernel recorded its "
                          "iteration times.</p>\n");
        free(ds);
        free(l);
        return 0;
    }
    /* a little room either side; one value only: a range around it */
    double pad = hi > lo ? (hi - lo) * 0.04 : lo * 0.05 + 1e-9;
    lo = lo - pad > 0 ? lo - pad : 0;
    hi += pad;
    sc = unit_of(hi, &u);
    double height = TOP + (double)drawn * ROW + AXIS;
    bl_report_svg_open(b, "iters", WIDTH, height, standalone, NULL);
    bl_strbuf_puts(b, "<title>");
    bl_html_escape(b, g->kernel);
    bl_strbuf_puts(b, ": iteration times per layout, box q1 to q3, whisker "
                      "p5 to p95, dots min and max</title>\n");
    double y = TOP;
    for (long i = 0; i < nl; i++) {
        if (ds[i].n == 0)
            continue;
        layout_row(b, &l[i], &ds[i], y, lo, hi, sc, u, standalone);
        y += ROW;
    }
    axis(b, lo, hi, y + 2, sc, u);
    bl_report_svg_close(b, standalone);
    free(ds);
    free(l);
    return 0;
}
