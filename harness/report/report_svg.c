/* The bar chart of `bindlab report --html`: per layout the median rate over
 * its repetitions as a bar and the min..max range as a whisker, written as
 * inline SVG (no script, no fonts to fetch). */
#include "report/report_priv.h"

#include <stdlib.h>

enum { WIDTH = 640, ROW = 34, TOP = 4 };

const char bl_report_svg_css[] =
    ".bar{fill:#7aa6d6}.bar.best{fill:#2f6db3}.bar.tie{fill:#4f86c6}"
    ".whisker{stroke:#222;stroke-width:1.5;fill:none}"
    ".tick{font-size:10px;text-anchor:middle}.st{font-size:11px;fill:#555}"
    ".box{fill:#b9d0ea;stroke:#2f6db3}.med{stroke:#173d6b;stroke-width:2}"
    ".axis{stroke:#888;fill:none}.ext{fill:#c03b3b}"
    ".iw{stroke:#222;stroke-width:1.2;fill:none}";

void bl_report_svg_open(bl_strbuf *b, const char *cls, double w, double h,
                        int standalone, const char *extra_css)
{
    if (!standalone) {
        bl_strbuf_printf(b, "<div class=\"wrap\"><svg class=\"%s\" "
                         "role=\"img\" viewBox=\"0 0 %g %g\">\n", cls, w, h);
        return;
    }
    /* a file of its own: the size in pixels, the page's look inside */
    bl_strbuf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" "
                     "viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\">\n"
                     "<style>svg{font:12px sans-serif}text{fill:#222}%s%s"
                     "</style>\n<rect width=\"100%%\" height=\"100%%\" "
                     "fill=\"#fff\"/>\n", cls, w, h, w, h, bl_report_svg_css,
                     extra_css ? extra_css : "");
}

void bl_report_svg_close(bl_strbuf *b, int standalone)
{
    bl_strbuf_puts(b, standalone ? "</svg>\n" : "</svg></div>\n");
}

/* A layout ties with the best when it is in the best's tie group
 * (results_report.h: the 95% intervals of their medians overlap, [min,
 * max] below 6 repetitions): the data cannot rank them (docs/report.md).
 * The group is the one the text report and the CSV show. */
static int ties_best(const bl_report *r, const bl_report_layout *best,
                     const bl_report_layout *x)
{
    if (x == best)
        return 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].s == x->first)
            return r->rows[i].tie_group == 1 && r->rows[i].tied;
    return 0;
}

int bl_report_svg_bars(bl_strbuf *b, const bl_report *r,
                       const bl_report_group *g, int standalone)
{
    bl_report_layout *l;
    long nl = bl_report_layouts(r, g, &l);
    double top = 0;
    int height;

    if (nl < 0)
        return -1;
    if (nl == 0) {
        bl_strbuf_puts(b, "<p>No run of this kernel is ok and verified: "
                          "nothing to draw.</p>\n");
        free(l);
        return 0;
    }
    for (long i = 0; i < nl; i++)
        if (l[i].max > top)
            top = l[i].max;
    height = TOP + (int)nl * ROW + 4;
    /* inline in HTML: no xmlns needed (the page names no URL at all) */
    bl_report_svg_open(b, "bars", WIDTH, height, standalone, NULL);
    bl_strbuf_puts(b, "<title>");
    bl_html_escape(b, g->kernel);
    bl_strbuf_puts(b, ": rate per layout, median bar, min to max whisker"
                      "</title>\n");
    for (long i = 0; i < nl; i++) {
        const bl_report_layout *x = &l[i];
        double y = TOP + (double)i * ROW;
        double w = WIDTH - 2;
        double xmed = w * x->median / top, xmin = w * x->min / top,
               xmax = w * x->max / top;
        if (!standalone) {
            bl_strbuf_puts(b, "<a href=\"#run-");
            bl_html_escape(b, x->first->run_id);
            bl_strbuf_puts(b, "\">");
        }
        bl_strbuf_printf(b, "<text x=\"1\" y=\"%.0f\">", y + 11);
        bl_html_escape(b, x->label);
        bl_strbuf_printf(b, ": %.4g %s", x->median, g->rate_unit);
        if (x->n > 1)
            bl_strbuf_printf(b, " (median of %zu, %.4g to %.4g)", x->n,
                             x->min, x->max);
        if (ties_best(r, &l[0], x))
            bl_strbuf_puts(b, ", a tie with the best");
        bl_strbuf_printf(b, "</text>%s\n<rect class=\"bar%s\" x=\"1\" "
                         "y=\"%.0f\" width=\"%.1f\" height=\"14\"><title>",
                         standalone ? "" : "</a>",
                         i == 0 ? " best" : ties_best(r, &l[0], x) ? " tie" : "",
                         y + 15, xmed);
        bl_html_escape(b, x->label);
        bl_strbuf_printf(b, "</title></rect>\n");
        if (x->n > 1)
            bl_strbuf_printf(b, "<path class=\"whisker\" d=\"M%.1f %.0fv8M%.1f "
                             "%.0fH%.1fM%.1f %.0fv8\"/>\n",
                             xmin + 1, y + 18, xmin + 1, y + 22, xmax + 1,
                             xmax + 1, y + 18);
    }
    bl_report_svg_close(b, standalone);
    free(l);
    return 0;
}
