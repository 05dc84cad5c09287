/* The runs section of `bindlab report --html`: per run, collapsed so that
 * a page of 1,000 runs stays usable, its node map (report_nodemap.c), its
 * pages per NUMA node and its flags explained. Each machine's boxes are
 * written once, in a hidden <svg>, and every run's map refers to them. */
#include "report/report_priv.h"

#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "report/report_nodemap.h"

void bl_report_html_matrix(bl_strbuf *b, const bl_h5_matrix *m)
{
    static const char ns[] = " xmlns=\"http://www.w3.org/2000/svg\"";
    bl_strbuf t = {0};
    char *s, *at;
    bl_matrix_svg(&t, m);
    if (!(s = bl_strbuf_take(&t)))
        return;
    if ((at = strstr(s, ns)))
        memmove(at, at + sizeof ns - 1, strlen(at + sizeof ns - 1) + 1);
    bl_strbuf_puts(b, s);
    free(s);
}

static const char *str(const char *s)
{
    return s ? s : "";
}

static void run_flags(bl_strbuf *b, const bl_h5_summary *s)
{
    char f[128];
    size_t pos = 0;
    int any = 0;
    while (bl_report_flag_next(str(s->flags), &pos, f, sizeof f)) {
        bl_strbuf_puts(b, any ? "" : "<ul>\n");
        bl_strbuf_puts(b, "<li><a href=\"#flag-");
        bl_html_escape(b, f);
        bl_strbuf_puts(b, "\">");
        bl_html_escape(b, f);
        bl_strbuf_puts(b, "</a>: ");
        bl_html_escape(b, bl_report_flag_why(f));
        bl_strbuf_puts(b, "</li>\n");
        any = 1;
    }
    if (any)
        bl_strbuf_puts(b, "</ul>\n");
}

static void node_map(bl_strbuf *b, const bl_report_run *x, int k,
                     const bl_nodemap *maps, const bl_report_detail *d,
                     bl_nodemap_seen *seen)
{
    const bl_h5_machine *m = &d->machines[k];
    bl_report_run y;
    char id[32];
    if (x->nnodes > 1) {
        bl_strbuf_printf(b, "<p>Node %d: ", k);
        bl_html_escape(b, m->hostname);
        bl_strbuf_puts(b, "</p>\n");
    }
    if (!d->topos[k]) {
        bl_strbuf_puts(b, "<p>The run's machine has no topology that hwloc "
                          "can read: no map.</p>\n");
        return;
    }
    if (bl_report_run_on_node(x, m, &y) < 0)
        return;
    snprintf(id, sizeof id, "topo-%d", d->topo_of[k]);
    size_t off = bl_nodemap_run_svg(b, &maps[d->topo_of[k]], id, &y,
                                    &seen[d->topo_of[k]]);
    if (off)
        bl_strbuf_printf(b, "<p>%zu thread%s recorded a CPU that is not on "
                         "this machine's map (not drawn).</p>\n", off,
                         off == 1 ? "" : "s");
    bl_report_run_on_node_free(x, &y);
}

/* A run launched more than once: what its earlier launches died of. */
static void launches(bl_strbuf *b, const bl_report_run *x)
{
    bl_strbuf_printf(b, "<p>Launched %d times: the earlier launches died "
                        "before the app started (<code>sweep "
                        "--retry</code>).</p>\n<ul>\n", (int)x->s->attempts);
    for (size_t i = 0; i < x->nretries; i++) {
        const bl_h5_retry *t = &x->retries[i];
        bl_strbuf_printf(b, "<li>launch %d: ", (int)t->attempt);
        bl_html_escape(b, str(t->reason)[0] ? t->reason : "(no reason "
                                                          "recorded)");
        if (str(t->log)[0]) {
            bl_strbuf_puts(b, " (log <code>");
            bl_html_escape(b, t->log);
            bl_strbuf_puts(b, "</code>)");
        }
        bl_strbuf_puts(b, "</li>\n");
    }
    bl_strbuf_puts(b, "</ul>\n");
}

static void one_run(bl_strbuf *b, const bl_report_run *x,
                    const bl_nodemap *maps, const bl_report_detail *d,
                    bl_nodemap_seen *seen)
{
    const bl_h5_summary *s = x->s;
    bl_strbuf_puts(b, "<details class=\"run\" id=\"map-");
    bl_html_escape(b, s->run_id);
    bl_strbuf_puts(b, "\"><summary>");
    bl_html_escape(b, s->run_id);
    bl_strbuf_puts(b, ": ");
    bl_html_escape(b, s->label);
    bl_strbuf_puts(b, " (");
    bl_html_escape(b, s->status);
    if (s->attempts > 1)
        bl_strbuf_printf(b, "; %d launches", (int)s->attempts);
    if (str(s->flags)[0]) {
        bl_strbuf_puts(b, "; ");
        bl_html_escape(b, s->flags);
    }
    bl_strbuf_puts(b, ")</summary>\n<p><a href=\"#run-");
    bl_html_escape(b, s->run_id);
    bl_strbuf_puts(b, "\">its row in the table</a></p>\n");
    if (s->attempts > 1)
        launches(b, x);
    if (str(s->omp_runtime)[0]) {
        bl_strbuf_puts(b, "<p>OpenMP runtime: ");
        bl_html_escape(b, s->omp_runtime);
        bl_strbuf_puts(b, " (asked: ");
        bl_html_escape(b, str(s->omp_runtime_asked)[0] ? s->omp_runtime_asked
                                                        : "default");
        bl_strbuf_puts(b, ")</p>\n");
    }
    if (x->fold) {
        bl_report_html_fold(b, x, d, maps, seen);
    } else if (x->nplacement == 0) {
        bl_strbuf_puts(b, "<p>This run recorded no placement (it left no "
                          "result: see its status).</p>\n");
    } else if (x->nnodes == 0) {
        bl_strbuf_puts(b, "<p>The run names no machine of this file: no "
                          "map.</p>\n");
    }
    for (size_t j = 0; x->nplacement && j < x->nnodes; j++)
        node_map(b, x, x->nodes[j], maps, d, seen);
    for (size_t j = 0; j < x->nmatrices; j++) {
        bl_strbuf_puts(b, "<p>Its ");
        bl_html_escape(b, x->matrices[j].kind);
        bl_strbuf_puts(b, " matrix:</p>\n<div class=\"wrap\">");
        bl_report_html_matrix(b, &x->matrices[j]);
        bl_strbuf_puts(b, "</div>\n");
    }
    run_flags(b, s);
    bl_strbuf_puts(b, "</details>\n");
}

int bl_report_html_runs(bl_strbuf *b, const bl_report *r,
                        const bl_report_detail *d)
{
    bl_nodemap *maps = calloc(d->nmachines + 1, sizeof *maps);
    bl_nodemap_seen *seen = calloc(d->nmachines + 1, sizeof *seen);
    int rc = 0;
    (void)r;
    if (!maps || !seen) {
        free(maps);
        free(seen);
        return -1;
    }
    bl_strbuf_puts(b, "<h2 id=\"maps\">Where each run ran</h2>\n<p>Per run "
                      "(click to open): the machine's packages, NUMA nodes, "
                      "cores and PUs (small grey numbers: the OS's CPU "
                      "numbers) from its recorded topology, each thread as "
                      "<i>rank.thread</i> on the PU where it ended the timed "
                      "region, coloured by rank (a dashed outline: the PU it "
                      "started on, when it moved), and each rank's pages per "
                      "NUMA node.</p>\n<svg class=\"defs\" aria-hidden=\"true\">"
                      "<defs>\n");
    for (size_t k = 0; k < d->nmachines && rc == 0; k++) {
        char id[32];
        if (!d->topos[k] || d->topo_of[k] != (int)k)
            continue;
        if (bl_nodemap_build(d->topos[k], &maps[k]) < 0) {
            rc = -1;
            break;
        }
        snprintf(id, sizeof id, "topo-%zu", k);
        bl_nodemap_template(b, &maps[k], id);
    }
    bl_strbuf_puts(b, "</defs></svg>\n");
    for (size_t i = 0; i < d->nruns && rc == 0; i++)
        one_run(b, &d->runs[i], maps, d, seen);
    for (size_t k = 0; k < d->nmachines; k++) {
        bl_nodemap_free(&maps[k]);
        bl_nodemap_seen_free(&seen[k]);
    }
    free(maps);
    free(seen);
    return rc;
}
