/* A matrix as an SVG heatmap: one square per cell on one colour scale
 * (light = low, dark = high), NaN cells grey, a tooltip (<title>) on every
 * cell, and the topology of the order along both axes: a band per group
 * (package, NUMA node, L3 domain, and cores holding several PUs: SMT
 * siblings) and lines between packages, NUMA nodes and L3 domains across
 * the map. Plain SVG 1.1: no script, no fonts or images to fetch, so it can
 * be inlined in an HTML page or saved as a file. */
#include "matrix/matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "matrix/matrix_draw.h"
#include "report/html_page.h"

enum { BAND = 16, LABEL_W = 64, TITLE_H = 24, LEGEND_H = 44, PAD = 8 };

/* The scale's colour of t as "#rrggbb" (matrix_draw.c). */
static void colour(double t, char *buf, size_t len)
{
    unsigned char rgb[3];
    bl_matrix_colour(t, rgb);
    snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* The bands of one level along the top (horizontal) and left (vertical)
 * edges of the map at (x0, y0), `at` further out than the finest level;
 * the top ones above a gap of `gap` (the column labels). */
static void bands(bl_strbuf *b, const bl_h5_matrix *m,
                  const bl_matrix_level *l, double x0, double y0,
                  double cell, double at, double gap)
{
    int shade = 0;
    for (int i = 0; i < m->n;) {
        int g = bl_matrix_group_of(m, l, i), j = i;
        double a, len;
        while (j < m->n && bl_matrix_group_of(m, l, j) == g)
            j++;
        a = i * cell;
        len = (j - i) * cell;
        if (!l->only_shared || j - i > 1) {
            const char *fill = shade++ % 2 ? "#d9d9d9" : "#bdbdbd";
            bl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%d\" fill=\"%s\"><title>%s%d</title>"
                             "</rect>",
                             x0 + a, y0 - gap - at - BAND, len, BAND - 2, fill,
                             l->name, g);
            bl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
                             "height=\"%.1f\" fill=\"%s\"><title>%s%d</title>"
                             "</rect>",
                             x0 - at - BAND, y0 + a, BAND - 2, len, fill,
                             l->name, g);
            if (len >= 8.0 * (double)(strlen(l->name) + 2)) {
                bl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
                                 "text-anchor=\"middle\">%s%d</text>",
                                 x0 + a + len / 2, y0 - gap - at - 5, l->name,
                                 g);
                bl_strbuf_printf(b, "<text transform=\"translate(%.1f %.1f) "
                                 "rotate(-90)\" text-anchor=\"middle\">%s%d"
                                 "</text>", x0 - at - 5, y0 + a + len / 2,
                                 l->name, g);
            }
        }
        if (l->line > 0 && i > 0) {
            bl_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                             "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"%.1f"
                             "\"/>", x0 + a, y0, x0 + a, y0 + m->n * cell,
                             l->line);
            bl_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                             "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"%.1f"
                             "\"/>", x0, y0 + a, x0 + m->n * cell, y0 + a,
                             l->line);
        }
        i = j;
    }
}

static void cell_rect(bl_strbuf *b, const bl_h5_matrix *m, int i, int j,
                      double x, double y, double cell, double lo, double hi)
{
    size_t c = (size_t)i * (size_t)m->n + (size_t)j;
    double v = m->values[c], t = bl_matrix_scale(v, lo, hi);
    char fill[16] = "#eeeeee";
    if (isfinite(v))
        colour(t, fill, sizeof fill);
    bl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"%s\"><title>", x, y, cell, cell,
                     fill);
    bl_html_escape(b, m->order[i].label);
    bl_strbuf_puts(b, " / ");
    bl_html_escape(b, m->order[j].label);
    if (isfinite(v))
        bl_strbuf_printf(b, ": %.4g %s (%.4g to %.4g, %.0f samples)", v,
                         m->unit ? m->unit : "", m->spread_lo[c],
                         m->spread_hi[c], m->samples[c]);
    else
        bl_strbuf_puts(b, ": not measured");
    bl_strbuf_puts(b, "</title></rect>");
    if (isfinite(v) && cell >= 30)
        bl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle"
                         "\" fill=\"%s\" font-size=\"%.0f\">%.3g</text>",
                         x + cell / 2, y + cell / 2 + cell / 10,
                         t > 0.6 ? "#fff" : "#000",
                         cell / 3.5 > 13 ? 13 : cell / 3.5, v);
}

static void legend(bl_strbuf *b, const bl_h5_matrix *m, double x0, double y,
                   double w, double lo, double hi)
{
    char fill[16];
    for (int k = 0; k < 20; k++) {
        colour(k / 19.0, fill, sizeof fill);
        bl_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
                         "height=\"10\" fill=\"%s\"/>", x0 + k * w / 20, y,
                         w / 20 + 0.3, fill);
    }
    bl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">%.4g</text>", x0, y + 24,
                     isfinite(lo) ? lo : 0.0);
    bl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                     "%.4g %s (darker = higher)</text>", x0 + w, y + 24,
                     isfinite(hi) ? hi : 0.0, m->unit ? m->unit : "");
}

void bl_matrix_svg(bl_strbuf *b, const bl_h5_matrix *m)
{
    int shown[BL_MATRIX_NLEVELS], nshown = 0;
    double cell, x0, y0, lo, hi, w, h;
    if (m->n <= 0 || !m->values || !m->order)
        return;
    for (size_t k = 0; k < BL_MATRIX_NLEVELS; k++)
        nshown += shown[k] =
            bl_matrix_level_shown(m, &bl_matrix_levels[k]);
    cell = 480.0 / m->n;
    cell = cell > 56 ? 56 : cell < 4 ? 4 : cell;
    x0 = PAD + LABEL_W + nshown * BAND;
    y0 = TITLE_H + nshown * BAND + (cell >= 12 ? 16 : 0);
    w = x0 + m->n * cell + PAD;
    h = y0 + m->n * cell + LEGEND_H;
    if (w < 360)
        w = 360;
    bl_matrix_range(m, &lo, &hi);
    bl_strbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "class=\"bl-matrix\" width=\"%.0f\" height=\"%.0f\" "
                     "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
                     "font-size=\"11\" role=\"img\" aria-label=\"", w, h, w, h);
    bl_html_escape(b, m->kind);
    bl_strbuf_puts(b, " matrix\"><text x=\"8\" y=\"16\" font-size=\"13\" "
                      "font-weight=\"bold\">");
    bl_html_escape(b, m->kind);
    bl_strbuf_printf(b, " (%s)</text><title>", m->unit ? m->unit : "");
    bl_html_escape(b, m->method);
    bl_strbuf_puts(b, "</title>");
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++)
            cell_rect(b, m, i, j, x0 + j * cell, y0 + i * cell, cell, lo, hi);
    /* the finest level next to the map, packages outermost */
    for (size_t k = 0, at = (size_t)nshown; k < BL_MATRIX_NLEVELS; k++)
        if (shown[k])
            bands(b, m, &bl_matrix_levels[k], x0, y0, cell,
                  (double)(--at * BAND), cell >= 12 ? 16 : 0);
    for (int i = 0; cell >= 12 && i < m->n; i++) {
        bl_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                         x0 - nshown * BAND - 4, y0 + i * cell + cell / 2 + 4);
        bl_html_escape(b, m->order[i].label);
        bl_strbuf_printf(b, "</text><text x=\"%.1f\" y=\"%.1f\" "
                         "text-anchor=\"middle\" font-size=\"9\">",
                         x0 + i * cell + cell / 2, y0 - 4);
        bl_html_escape(b, m->order[i].label);
        bl_strbuf_puts(b, "</text>");
    }
    bl_strbuf_printf(b, "<text x=\"8\" y=\"%.1f\" font-size=\"9\">rows: ",
                     y0 + m->n * cell + 12);
    bl_html_escape(b, m->rows);
    bl_strbuf_puts(b, "; columns: ");
    bl_html_escape(b, m->cols);
    bl_strbuf_puts(b, "</text>");
    legend(b, m, 8, y0 + m->n * cell + 18, w - 16 > 320 ? 320 : w - 16, lo,
           hi);
    bl_strbuf_puts(b, "</svg>");
}

int bl_matrix_svg_write(const char *path, const bl_h5_matrix *m, bl_err *err)
{
    bl_strbuf b = {0};
    char *text;
    int rc;
    bl_strbuf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    bl_matrix_svg(&b, m);
    bl_strbuf_puts(&b, "\n");
    if (!(text = bl_strbuf_take(&b)))
        return bl_err_set(err, "%s: out of memory for the picture", path);
    rc = bl_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}
