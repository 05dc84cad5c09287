/* `bindlab compare --html FILE.html`: the comparison as one self-contained
 * page (inline CSS, no script, no network), like `report --html`. */
#include "report/compare_priv.h"

#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report/html_page.h"

static void rate_cell(bl_strbuf *b, const bl_cmp_layout *x)
{
    bl_strbuf_printf(b, "<td class=\"n\">%.4g %s</td><td>", x->l->median,
                     x->unit);
    bl_html_escape(b, x->l->label);
    bl_strbuf_puts(b, "</td>");
}

/* The layouts no other machine has, each with what it means. */
static void only_part(bl_strbuf *b, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    int any = 0;
    bl_strbuf_puts(b, "<h2>Only on one machine</h2>\n");
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < ms[j].nlayouts; i++) {
            const bl_cmp_layout *x = &ms[j].layouts[i];
            if (!bl_cmp_only_here(ms, n, j, x))
                continue;
            bl_strbuf_puts(b, any ? "" : "<ul>\n");
            any = 1;
            bl_cmp_meaning(x, meaning, sizeof meaning);
            bl_strbuf_printf(b, "<li>%c ", bl_cmp_tag(j));
            bl_html_escape(b, x->l->label);
            bl_strbuf_printf(b, ": %.4g %s (", x->l->median, x->unit);
            bl_html_escape(b, meaning);
            bl_strbuf_puts(b, ")</li>\n");
        }
    bl_strbuf_puts(b, any ? "</ul>\n" : "<p>None: every layout has its "
                                         "match.</p>\n");
}

void bl_cmp_html_body(bl_strbuf *b, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    const bl_cmp_machine *ref = &ms[0];

    bl_strbuf_puts(b, "<h2>Machines</h2>\n<ul>\n");
    for (size_t j = 0; j < n; j++) {
        const bl_h5_machine *m = &ms[j].m;
        bl_strbuf_printf(b, "<li id=\"machine-%c\"><b>%c</b>: ", bl_cmp_tag(j),
                         bl_cmp_tag(j));
        bl_html_escape(b, m->hostname);
        bl_strbuf_puts(b, " (");
        bl_html_escape(b, m->cpu_model);
        bl_strbuf_printf(b, "), %d package%s, %d NUMA node%s, %d L3, %d "
                         "cores: ", m->packages, m->packages == 1 ? "" : "s",
                         m->numa_nodes, m->numa_nodes == 1 ? "" : "s",
                         m->l3_domains, m->cores);
        bl_html_escape(b, ms[j].source);
        bl_strbuf_puts(b, "</li>\n");
    }
    bl_strbuf_puts(b, "</ul>\n<h2>Layouts matched by meaning</h2>\n<p>Rate: "
                      "the median over a layout's ok and verified "
                      "repetitions; ratio: to machine A; interval: 95% "
                      "bootstrap interval of the ratio, p: rank test (with "
                      "2 runs or more on each side).</p>\n<div class=\"wrap\">"
                      "<table id=\"compare\"><thead><tr><th>meaning</th>"
                      "<th>A rate</th><th>A layout</th>");
    for (size_t j = 1; j < n; j++) {
        char t = bl_cmp_tag(j);
        bl_strbuf_printf(b, "<th>%c rate</th><th>%c layout</th><th>%c/A</th>"
                         "<th>interval, p</th>", t, t, t);
    }
    bl_strbuf_puts(b, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < ref->nlayouts; i++) {
        const bl_cmp_layout *r = &ref->layouts[i];
        bl_cmp_meaning(r, meaning, sizeof meaning);
        bl_strbuf_puts(b, "<tr><td>");
        bl_html_escape(b, meaning);
        bl_strbuf_puts(b, "</td>");
        rate_cell(b, r);
        for (size_t j = 1; j < n; j++) {
            const char *by;
            const bl_cmp_layout *o = bl_cmp_match(r, &ms[j], &by);
            bl_cmp_stat st;
            if (!o) {
                bl_strbuf_puts(b, "<td>-</td><td>-</td><td>-</td><td></td>");
                continue;
            }
            rate_cell(b, o);
            bl_strbuf_printf(b, "<td class=\"n\">%.2f</td>",
                             o->l->median / r->l->median);
            if (bl_cmp_stats(ref, r, &ms[j], o, &st) == 0)
                bl_strbuf_printf(b, "<td%s>[%.2f, %.2f], p=%.2g%s</td>",
                                 st.lo <= 1 && st.hi >= 1 ? " class=\"tie\""
                                                          : "",
                                 st.lo, st.hi, st.p,
                                 st.lo <= 1 && st.hi >= 1 ? ": a tie" : "");
            else
                bl_strbuf_puts(b, "<td></td>");
        }
        bl_strbuf_puts(b, "</tr>\n");
    }
    bl_strbuf_puts(b, "</tbody></table></div>\n<h2>Best per machine</h2>\n"
                      "<ul>\n");
    for (size_t j = 0; j < n; j++)
        for (size_t g = 0; g < ms[j].report.ngroups; g++) {
            const bl_report_group *gr = &ms[j].report.groups[g];
            if (!gr->best)
                continue;
            bl_strbuf_printf(b, "<li>%c ", bl_cmp_tag(j));
            bl_html_escape(b, gr->kernel);
            bl_strbuf_puts(b, ": ");
            bl_html_escape(b, gr->best->label);
            bl_strbuf_printf(b, " %.4g ", gr->best->rate);
            bl_html_escape(b, gr->rate_unit);
            bl_strbuf_puts(b, "</li>\n");
        }
    bl_strbuf_puts(b, "</ul>\n");
    only_part(b, ms, n);
}

static void page(bl_strbuf *b, const bl_cmp_machine *ms, size_t n)
{
    bl_html_page_open(b, "bindlab compare", NULL);
    bl_cmp_html_body(b, ms, n);
    bl_html_page_close(b, NULL);
}

int bl_cmp_write_html(const char *path, const bl_cmp_machine *ms, size_t n,
                      bl_err *err)
{
    bl_strbuf b = {0};
    char *text;
    int rc;
    page(&b, ms, n);
    if (!(text = bl_strbuf_take(&b)))
        return bl_err_set(err, "%s: out of memory building the page", path);
    rc = bl_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}
