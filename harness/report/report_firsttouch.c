/* Both moments of each run's pages, in text and HTML
 * (report_firsttouch.h). */
#include "report/report_firsttouch.h"

#include "report/html_page.h"
#include "shares.h"

static int known(const bl_h5_summary *s)
{
    return s->pages_total_init > 0 && s->local_page_fraction >= 0;
}

static int any_known(const bl_report *r)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (known(r->rows[i].s))
            return 1;
    return 0;
}

/* The two flag sentences of a run ("" when it raises neither). */
static void sentences(const bl_h5_summary *s, char *mig, char *hp,
                      size_t len)
{
    bl_straddle st = {s->pages_total_init, 0, s->straddles,
                      s->best_local_fraction, s->share_align > 0};
    bl_flag_pages_migrated(s->local_page_fraction_init,
                           s->local_page_fraction, s->pages_migrated,
                           s->pages_total_init, mig, len);
    bl_flag_huge_straddle(&st, s->huge_share, s->local_page_fraction_init,
                          hp, len);
}

void bl_report_write_first_touch(FILE *out, const bl_report *r)
{
    char mig[256], hp[256];
    if (!any_known(r))
        return;
    fprintf(out, "\nfirst touch: local pages right after it -> after the "
            "timed region\n");
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_h5_summary *s = r->rows[i].s;
        if (!known(s))
            continue;
        fprintf(out, "  %s  %.3f -> %.3f (%+.3f)", s->run_id,
                s->local_page_fraction_init, s->local_page_fraction,
                s->local_page_fraction - s->local_page_fraction_init);
        if (s->pages_migrated >= 0)
            fprintf(out, ", %lld pages migrated", (long long)s->pages_migrated);
        if (s->huge_share > 0)
            fprintf(out, ", huge pages %.0f%%, best reachable %.3f",
                    100.0 * s->huge_share, s->best_local_fraction);
        fprintf(out, "  %s\n", s->label ? s->label : "");
        sentences(s, mig, hp, sizeof mig);
        if (*mig)
            fprintf(out, "    pages-migrated: %s\n", mig);
        if (*hp)
            fprintf(out, "    huge-page-straddle: %s\n", hp);
    }
}

static void html_row(bl_strbuf *b, const bl_h5_summary *s)
{
    char mig[256], hp[256];
    sentences(s, mig, hp, sizeof mig);
    bl_strbuf_puts(b, "<tr><td>");
    bl_html_escape(b, s->run_id ? s->run_id : "");
    bl_strbuf_puts(b, "</td><td>");
    bl_html_escape(b, s->label ? s->label : "");
    bl_strbuf_printf(b, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f"
                     "</td><td class=\"n\">%+.3f</td>",
                     s->local_page_fraction_init, s->local_page_fraction,
                     s->local_page_fraction - s->local_page_fraction_init);
    if (s->pages_migrated >= 0)
        bl_strbuf_printf(b, "<td class=\"n\">%lld</td>",
                         (long long)s->pages_migrated);
    else
        bl_strbuf_puts(b, "<td class=\"n\">-</td>");
    if (s->huge_share >= 0)
        bl_strbuf_printf(b, "<td class=\"n\">%.0f%%</td><td class=\"n\">"
                         "%.3f</td>", 100.0 * s->huge_share,
                         s->best_local_fraction);
    else
        bl_strbuf_puts(b, "<td class=\"n\">-</td><td class=\"n\">-</td>");
    bl_strbuf_puts(b, "<td>");
    if (*mig) {
        bl_strbuf_puts(b, "pages-migrated: ");
        bl_html_escape(b, mig);
    }
    if (*hp) {
        bl_strbuf_puts(b, *mig ? "<br>huge-page-straddle: "
                               : "huge-page-straddle: ");
        bl_html_escape(b, hp);
    }
    bl_strbuf_puts(b, "</td></tr>\n");
}

void bl_report_html_first_touch(bl_strbuf *b, const bl_report *r)
{
    if (!any_known(r))
        return;
    bl_strbuf_puts(b, "<h2 id=\"first-touch\">First touch and after</h2>\n"
                      "<p>Local pages right after first touch (before the "
                      "warm-up) and after the timed region: a difference is "
                      "what the kernel did in between (NUMA balancing "
                      "migrates pages towards the threads that use them). "
                      "Huge pages: the share of the arrays' mappings they "
                      "back; best reachable: the local fraction first touch "
                      "can reach with them at the threads' shares.</p>\n"
                      "<div class=\"wrap\"><table><thead><tr><th>run</th>"
                      "<th>layout</th><th>after first touch</th><th>after "
                      "the run</th><th>difference</th><th>pages migrated"
                      "</th><th>huge pages</th><th>best reachable</th>"
                      "<th>flags</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->nrows; i++)
        if (known(r->rows[i].s))
            html_row(b, r->rows[i].s);
    bl_strbuf_puts(b, "</tbody></table></div>\n");
}
