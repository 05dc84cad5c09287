/* The page of `bindlab report --html`: head with inline CSS, machine,
 * charts (report_svg.c), the sortable run table, the flags explained, and
 * a few lines of inline script. Written atomically. */
#include "report/report_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report/compare_priv.h"
#include "report/report_firsttouch.h"
#include "report/report_nodemap.h"
#include "report/report_priv.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

/* The report page's look beyond bl_html_base_css: the sortable table's
 * headers, targets and failed runs, the charts, the runs' details. */
static const char css[] =
    ".note{background:#fff3cd;border:1px solid #d9b400;padding:6px 10px}"
    "th{cursor:pointer;position:sticky;top:0;white-space:nowrap}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}"
    "tr:target{background:#ffe9a8}"
    "tr.bad td{color:#888}"
    /* on a phone the chart keeps a readable size and scrolls sideways */
    "svg.bars{width:100%;min-width:600px;height:auto;max-width:900px;"
    "font-size:12px}"
    "svg.bars text{fill:#222}svg.bars a text{text-decoration:underline}"
    "dt{font-weight:bold;margin-top:.6em}"
    "svg.iters{width:100%;min-width:600px;height:auto;max-width:1100px;"
    "font-size:12px}svg.iters text{fill:#222}"
    "svg.iters a text{text-decoration:underline}"
    "details.run{border-top:1px solid #ddd;padding:2px 0}"
    "details.run>summary{cursor:pointer}details.run[open]{padding-bottom:8px}"
    "details.run:target>summary{background:#ffe9a8}"
    "svg.defs{position:absolute;width:0;height:0}"
    "@media (max-width:640px){body{font-size:13px}}";

/* Sorts the table by a header click; `#sort=KEY` or `#sort=-KEY` in the
 * address opens it sorted (descending with '-'). Cells sort by their
 * data-v when they have one, as numbers in numeric columns; empty values
 * last. */
static const char script[] =
    "(function(){var t=document.getElementById('runs'),"
    "h=t.tHead.rows[0].cells;"
    "function v(r,i){var c=r.cells[i],x=c.getAttribute('data-v');"
    "return x===null?c.textContent:x;}"
    "function by(i,d){var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows),"
    "num=h[i].classList.contains('n');"
    "rs.sort(function(x,y){var a=v(x,i),c=v(y,i);"
    "if(a===''||c==='')return(a==='')-(c==='');"
    "return d*(num?a-c:a.localeCompare(c));});"
    "rs.forEach(function(r){b.appendChild(r);});"
    "for(var j=0;j<h.length;j++)h[j].removeAttribute('aria-sort');"
    "h[i].setAttribute('aria-sort',d>0?'ascending':'descending');}"
    "Array.prototype.forEach.call(h,function(c,i){c.addEventListener('click',"
    "function(){by(i,c.getAttribute('aria-sort')==='ascending'?-1:1);});});"
    "var m=/^#sort=(-?)([a-z_]+)$/.exec(location.hash);"
    "if(m)Array.prototype.forEach.call(h,function(c,i){"
    "if(c.getAttribute('data-k')===m[2])by(i,m[1]?-1:1);});"
    "function op(){var e=location.hash.length>1&&document.getElementById("
    "decodeURIComponent(location.hash.slice(1)));"
    "if(e&&e.tagName==='DETAILS'&&!e.open){e.open=true;e.scrollIntoView();}}"
    "window.addEventListener('hashchange',op);op();})();";

static void num_cell(bl_strbuf *b, double v, const char *fmt)
{
    if (isfinite(v) && v > 0) {
        bl_strbuf_printf(b, "<td class=\"n\" data-v=\"%.9g\">", v);
        bl_strbuf_printf(b, fmt, v);
        bl_strbuf_puts(b, "</td>");
    } else {
        bl_strbuf_puts(b, "<td class=\"n\" data-v=\"\">-</td>");
    }
}

static void machine_part(bl_strbuf *b, const bl_h5_machine *m)
{
    if (!m) {
        bl_strbuf_puts(b, "<p>The file records no machine (no run wrote a "
                          "result).</p>\n");
        return;
    }
    bl_strbuf_puts(b, "<p>Machine: ");
    bl_html_escape(b, m->hostname);
    bl_strbuf_puts(b, ", ");
    bl_html_escape(b, m->cpu_model);
    bl_strbuf_printf(b, "; %d package%s, %d NUMA node%s, %d L3, %d cores, "
                     "%d PUs; ", m->packages, m->packages == 1 ? "" : "s",
                     m->numa_nodes, m->numa_nodes == 1 ? "" : "s",
                     m->l3_domains, m->cores, m->pus);
    bl_html_escape(b, m->mpi_library_version);
    bl_strbuf_puts(b, "; kernel ");
    bl_html_escape(b, m->kernel_release);
    bl_strbuf_puts(b, ".</p>\n");
    if (m->virtualization && strncmp(m->virtualization, "emulated", 8) == 0) {
        bl_strbuf_puts(b, "<p class=\"note\" id=\"emulated\">Note: rates are "
                          "not meaningful for speed: these runs ran on an "
                          "emulated machine (");
        bl_html_escape(b, m->virtualization);
        bl_strbuf_puts(b, "); placement and pages are real.</p>\n");
    }
}

static void flag_links(bl_strbuf *b, const char *flags)
{
    char f[128];
    size_t pos = 0;
    int first = 1;
    while (bl_report_flag_next(str(flags), &pos, f, sizeof f)) {
        bl_strbuf_puts(b, first ? "" : ", ");
        bl_strbuf_puts(b, "<a href=\"#flag-");
        bl_html_escape(b, f);
        bl_strbuf_puts(b, "\">");
        bl_html_escape(b, f);
        bl_strbuf_puts(b, "</a>");
        first = 0;
    }
}

static void table_part(bl_strbuf *b, const bl_report *r)
{
    static const char *const cols[][2] = {
        {"run", ""}, {"label", ""}, {"status", ""}, {"threads", "n"},
        {"isa", ""}, {"median_s", "n"}, {"rate", "n"}, {"unit", ""},
        {"vs_best", "n"}, {"vs_none", "n"}, {"verified", ""}, {"local", "n"},
        {"flags", ""}};
    int with_isa = 0; /* as the text table: only when a run recorded one */
    for (size_t i = 0; i < r->nrows; i++)
        with_isa |= r->rows[i].s->isa && r->rows[i].s->isa[0];
    bl_strbuf_printf(b, "<h2 id=\"table\">Runs (%zu)</h2>\n<p>Click a "
                     "column to sort by it.</p>\n<div class=\"wrap\">"
                     "<table id=\"runs\"><thead><tr>", r->nrows);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        if (with_isa || strcmp(cols[c][0], "isa") != 0)
            bl_strbuf_printf(b, "<th data-k=\"%s\"%s>%s</th>", cols[c][0],
                             cols[c][1][0] ? " class=\"n\"" : "",
                             cols[c][0]);
    bl_strbuf_puts(b, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_report_row *row = &r->rows[i];
        const bl_h5_summary *s = row->s;
        int has_result = s->rate > 0 || s->median_s > 0;
        bl_strbuf_puts(b, "<tr id=\"run-");
        bl_html_escape(b, s->run_id);
        bl_strbuf_printf(b, "\"%s><td><a href=\"#map-", row->usable ? ""
                         : " class=\"bad\"");
        bl_html_escape(b, s->run_id);
        bl_strbuf_puts(b, "\">");
        bl_html_escape(b, s->run_id);
        bl_strbuf_puts(b, "</a></td><td>");
        bl_html_escape(b, s->label);
        bl_strbuf_puts(b, "</td><td>");
        bl_html_escape(b, s->status);
        if (s->attempts > 1) /* details in its map's section */
            bl_strbuf_printf(b, " (%d launches)", (int)s->attempts);
        bl_strbuf_printf(b, "</td><td class=\"n\" data-v=\"%d\">%d</td>",
                         (int)s->threads, (int)s->threads);
        if (with_isa) {
            bl_strbuf_puts(b, "<td>");
            bl_html_escape(b, s->isa && s->isa[0] ? s->isa : "-");
            bl_strbuf_puts(b, "</td>");
        }
        num_cell(b, s->median_s, "%.4g");
        num_cell(b, s->rate, "%.4g");
        bl_strbuf_puts(b, "<td>");
        bl_html_escape(b, has_result && s->rate_unit && s->rate_unit[0]
                              ? s->rate_unit : "-");
        bl_strbuf_puts(b, "</td>");
        num_cell(b, row->ratio_best, "%.2f");
        num_cell(b, row->ratio_baseline, "%.2f");
        bl_strbuf_printf(b, "<td>%s</td>", !has_result ? "-"
                         : s->verified == 1 ? "yes" : "no");
        if (has_result && s->local_page_fraction >= 0)
            bl_strbuf_printf(b, "<td class=\"n\" data-v=\"%.4f\">%.2f</td>",
                             s->local_page_fraction, s->local_page_fraction);
        else
            bl_strbuf_puts(b, "<td class=\"n\" data-v=\"\">-</td>");
        bl_strbuf_puts(b, "<td>");
        flag_links(b, s->flags);
        bl_strbuf_puts(b, "</td></tr>\n");
    }
    bl_strbuf_puts(b, "</tbody></table></div>\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each distinct flag in order of first appearance, its sentence, and links
 * to every run that raised it, in run-id order. */
static int flags_part(bl_strbuf *b, const bl_report *r)
{
    const char **ids = malloc((r->nrows + 1) * sizeof *ids);
    char (*seen)[128] = NULL;
    size_t nseen = 0, cap = 0;
    char f[128];

    if (!ids)
        return -1;
    for (size_t i = 0; i < r->nrows; i++) {
        size_t pos = 0;
        while (bl_report_flag_next(str(r->rows[i].s->flags), &pos, f, sizeof f)) {
            size_t k = 0;
            while (k < nseen && strcmp(seen[k], f) != 0)
                k++;
            if (k < nseen)
                continue;
            if (nseen == cap) {
                size_t nc = cap ? 2 * cap : 8;
                void *p = realloc(seen, nc * sizeof *seen);
                if (!p) {
                    free(seen);
                    free(ids);
                    return -1;
                }
                seen = p;
                cap = nc;
            }
            memcpy(seen[nseen++], f, sizeof f);
        }
    }
    bl_strbuf_puts(b, "<h2 id=\"flags\">Flags</h2>\n");
    if (nseen == 0)
        bl_strbuf_puts(b, "<p>No run raised a flag.</p>\n");
    else
        bl_strbuf_puts(b, "<dl>\n");
    for (size_t k = 0; k < nseen; k++) {
        size_t nruns = 0;
        bl_strbuf_puts(b, "<dt id=\"flag-");
        bl_html_escape(b, seen[k]);
        bl_strbuf_puts(b, "\">");
        bl_html_escape(b, seen[k]);
        bl_strbuf_puts(b, "</dt><dd>");
        bl_html_escape(b, bl_report_flag_why(seen[k]));
        bl_strbuf_puts(b, " Runs: ");
        for (size_t i = 0; i < r->nrows; i++) {
            size_t pos = 0;
            const bl_h5_summary *s = r->rows[i].s;
            while (bl_report_flag_next(str(s->flags), &pos, f, sizeof f))
                if (strcmp(f, seen[k]) == 0) {
                    ids[nruns++] = str(s->run_id);
                    break;
                }
        }
        qsort(ids, nruns, sizeof *ids, cmp_str);
        for (size_t i = 0; i < nruns; i++) {
            bl_strbuf_puts(b, i ? ", <a href=\"#run-" : "<a href=\"#run-");
            bl_html_escape(b, ids[i]);
            bl_strbuf_puts(b, "\">");
            bl_html_escape(b, ids[i]);
            bl_strbuf_puts(b, "</a>");
        }
        bl_strbuf_puts(b, ".</dd>\n");
    }
    if (nseen)
        bl_strbuf_puts(b, "</dl>\n");
    free(seen);
    free(ids);
    return 0;
}

/* The file's matrices (`bindlab matrix`: /matrices/<kind>), each as its
 * heatmap (matrix/matrix_svg.c). */
static void matrices_part(bl_strbuf *b, const bl_report_detail *d)
{
    bl_strbuf_puts(b, "<h2 id=\"matrices\">Matrices</h2>\n");
    for (size_t i = 0; i < d->nmatrices; i++) {
        const bl_h5_matrix *m = &d->matrices[i];
        bl_strbuf_puts(b, "<h3 id=\"matrix-");
        bl_html_escape(b, m->kind);
        bl_strbuf_puts(b, "\">");
        bl_html_escape(b, m->kind);
        bl_strbuf_puts(b, " (");
        bl_html_escape(b, m->unit);
        bl_strbuf_puts(b, "): ");
        bl_html_escape(b, m->rows);
        bl_strbuf_puts(b, " x ");
        bl_html_escape(b, m->cols);
        bl_strbuf_puts(b, "</h3>\n<p>");
        bl_html_escape(b, m->method);
        bl_strbuf_puts(b, "</p>\n<div class=\"wrap\">");
        bl_report_html_matrix(b, m);
        bl_strbuf_puts(b, "</div>\n");
    }
}

/* A file of several machines (a merge of sweeps of different machines):
 * `bindlab compare`'s view of them, node 0 the reference. */
/* The machines that are some run's first node, in node order, into ks
 * (their count): a run over 10,000 nodes makes one machine to compare,
 * not 10,000 (each loaded from the file again). */
static size_t compared_machines(const bl_report *r, size_t n, size_t *ks)
{
    unsigned char *first = calloc(n + 1, 1);
    size_t m = 0;
    if (!first)
        return 0;
    for (size_t i = 0; i < r->nrows; i++) {
        long k = bl_report_node(r->rows[i].s);
        if (k >= 0 && (size_t)k < n)
            first[k] = 1;
    }
    for (size_t k = 0; k < n; k++)
        if (first[k])
            ks[m++] = k;
    free(first);
    return m;
}

static void compare_part(bl_strbuf *b, const char *input, const bl_report *r,
                         size_t n)
{
    bl_cmp_machine *ms = calloc(n + 1, sizeof *ms);
    size_t *ks = calloc(n + 1, sizeof *ks), loaded = 0, m;
    bl_err e;
    m = ms && ks ? compared_machines(r, n, ks) : 0;
    if (m < 2) {
        free(ms);
        free(ks);
        return;
    }
    bl_strbuf_puts(b, "<h2 id=\"compare\">The machines side by side</h2>\n"
                      "<p>This file holds runs of several machines: their "
                      "layouts matched by meaning, as <code>bindlab compare"
                      "</code> does (node 0 is A, the reference; a run that "
                      "spanned several machines counts for its first).</p>\n");
    for (; loaded < m; loaded++)
        if (bl_cmp_load_node(input, ks[loaded], &ms[loaded], &e) < 0)
            break;
    if (loaded == m)
        bl_cmp_html_body(b, ms, m);
    else
        bl_strbuf_puts(b, "<p>(The machines could not be read again: no "
                          "comparison.)</p>\n");
    for (size_t k = 0; k < loaded; k++)
        bl_cmp_free(&ms[k]);
    free(ms);
    free(ks);
}

/* The machines: each one, or, in a file of more than
 * BL_REPORT_FOLD_NODES, alike ones once with their node list. */
static void machines_part(bl_strbuf *b, const bl_h5_machine *m,
                          const bl_report_detail *d)
{
    if (d && d->nmachines > BL_REPORT_FOLD_NODES && d->nmachine_groups)
        for (size_t g = 0; g < d->nmachine_groups; g++) {
            size_t k = 0;
            while (d->machine_group[k] != (int)g)
                k++;
            bl_strbuf_printf(b, "<p id=\"nodes-%zu\"><b>Nodes ", g);
            bl_report_nodes_list(b, d->machine_group, d->nmachines, (int)g,
                                 d->machines);
            bl_strbuf_puts(b, "</b>: alike machines (all but the name).</p>\n");
            machine_part(b, &d->machines[k]);
        }
    else if (d && d->nmachines > 1)
        for (size_t k = 0; k < d->nmachines; k++) {
            bl_strbuf_printf(b, "<p id=\"node-%zu\"><b>Node %zu</b>.</p>\n",
                             k, k);
            machine_part(b, &d->machines[k]);
        }
    else
        machine_part(b, m);
}

char *bl_report_html_text(const bl_report *r, const char *input,
                          const bl_h5_machine *m, const bl_report_detail *d)
{
    static const char *const page_css[] = {css, bl_report_svg_css,
                                           bl_nodemap_css, NULL};
    bl_strbuf b = {0}, title = {0};
    int rc = 0;
    char *t;

    bl_strbuf_printf(&title, "bindlab report: %s", str(input));
    if (!(t = bl_strbuf_take(&title)))
        return NULL;
    bl_html_page_open(&b, t, page_css);
    free(t);
    bl_strbuf_printf(&b, "<p>%zu run%s. Rates compare only within one "
                     "kernel and unit; a run counts when it is ok and "
                     "verified.</p>\n", r->nrows, r->nrows == 1 ? "" : "s");
    machines_part(&b, m, d);
    if (d && d->nmachines > 1)
        compare_part(&b, input, r, d->nmachines);
    for (size_t g = 0; g < r->ngroups && rc == 0; g++) {
        const bl_report_group *gr = &r->groups[g];
        bl_strbuf_puts(&b, "<h2>");
        bl_html_escape(&b, gr->kernel);
        if (gr->rate_unit[0]) {
            bl_strbuf_puts(&b, ", ");
            bl_html_escape(&b, gr->rate_unit);
        }
        if (r->several_nodes && gr->node >= 0) {
            bl_strbuf_printf(&b, " on node %ld", gr->node);
            if (d && (size_t)gr->node < d->nmachines) {
                bl_strbuf_puts(&b, ", ");
                bl_html_escape(&b, d->machines[gr->node].hostname);
            }
        }
        bl_strbuf_printf(&b, " (%zu run%s", gr->nruns,
                         gr->nruns == 1 ? "" : "s");
        if (gr->nunusable)
            bl_strbuf_printf(&b, ", %zu not ok or not verified",
                             gr->nunusable);
        bl_strbuf_puts(&b, ")</h2>\n<p>Bar: the median rate of a layout over "
                           "its repetitions; whisker: min to max. The "
                           "darkest bar is the best layout; a layout whose "
                           "range overlaps the best's is a tie with it "
                           "(the runs cannot rank them).</p>\n");
        rc = bl_report_svg_bars(&b, r, gr, 0);
        if (rc == 0 && d) {
            bl_strbuf_puts(&b, "<p>Iteration times (the slowest rank's time "
                               "of each timed iteration, all repetitions of "
                               "a layout together): box from the first to "
                               "the third quartile, line at the median, "
                               "whisker from p5 to p95, dots at the fastest "
                               "and the slowest iteration.</p>\n");
            rc = bl_report_svg_iters(&b, r, d, gr, 0);
        }
    }
    if (rc == 0) {
        table_part(&b, r);
        bl_report_html_first_touch(&b, r);
        rc = flags_part(&b, r);
    }
    if (rc == 0 && d && d->nmatrices)
        matrices_part(&b, d);
    if (rc == 0 && d)
        rc = bl_report_html_runs(&b, r, d);
    bl_html_page_close(&b, script);
    if (rc < 0) {
        free(bl_strbuf_take(&b));
        return NULL;
    }
    return bl_strbuf_take(&b);
}

int bl_report_write_html(const char *path, const char *input,
                         const bl_report *r, bl_err *err)
{
    return bl_report_write_html_nodes(path, input, r, 0, err);
}

int bl_report_write_html_nodes(const char *path, const char *input,
                               const bl_report *r, int all_nodes,
                               bl_err *err)
{
    bl_report_detail d;
    int rc;
    char *text;

    /* a file of runs that all failed has no machine: d.nmachines is 0 */
    if (bl_report_detail_read(input, r, &d, err) < 0)
        return -1;
    d.all_nodes = all_nodes;
    text = bl_report_html_text(r, input, d.nmachines ? &d.machines[0] : NULL,
                               &d);
    bl_report_detail_free(&d);
    if (!text)
        return bl_err_set(err, "%s: out of memory building the page", path);
    rc = bl_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}
