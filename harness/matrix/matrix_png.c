/* A matrix as a PNG heatmap: the SVG's picture (matrix_svg.c) without its
 * text. The same colour scale and NaN grey (matrix_draw.c), one square of
 * `cell` pixels per value, the topology's bands along the top and left
 * edges (alternating greys per group, outermost level outermost; cores only
 * where they hold several PUs) and black lines across the map between
 * packages (3 px), NUMA nodes (2 px) and L3 domains (1 px), and the colour
 * scale as a bar of 20 steps below the map. No title, labels or numbers: a
 * PNG needs a font rasteriser for those; they are in tEXt chunks instead
 * (Title, Description, and bindlab-rows: the rows' labels in order) with
 * the geometry (bindlab-map: "x0 y0 cell n", the map's top-left pixel, a
 * cell's side and the rows), so a reader can find each cell. */
#include "matrix/matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix_draw.h"
#include "matrix/png.h"
#include "strbuf.h"

enum { BAND = 16, PAD = 8, LEGEND_H = 12 };

static void fill(bl_matrix_picture *p, long x, long y, long w, long h,
                 const unsigned char rgb[3])
{
    long x1 = x + w, y1 = y + h;
    x = x < 0 ? 0 : x;
    y = y < 0 ? 0 : y;
    x1 = x1 > (long)p->w ? (long)p->w : x1;
    y1 = y1 > (long)p->h ? (long)p->h : y1;
    for (long r = y; r < y1; r++)
        for (long c = x; c < x1; c++)
            memcpy(p->rgb + 3 * ((size_t)r * p->w + (size_t)c), rgb, 3);
}

/* The bands of level l `at` pixels out from the map, and its lines. */
static void bands(bl_matrix_picture *p, const bl_h5_matrix *m,
                  const bl_matrix_level *l, long at)
{
    static const unsigned char shades[2][3] = {{0xbd, 0xbd, 0xbd},
                                               {0xd9, 0xd9, 0xd9}};
    static const unsigned char black[3] = {0, 0, 0};
    const long x0 = p->x0, y0 = p->y0, cell = p->cell, side = m->n * cell;
    const long t = (long)ceil(l->line);
    int shade = 0;
    for (int i = 0; i < m->n;) {
        int g = bl_matrix_group_of(m, l, i), j = i;
        while (j < m->n && bl_matrix_group_of(m, l, j) == g)
            j++;
        if (!l->only_shared || j - i > 1) {
            const unsigned char *s = shades[shade++ % 2 ? 1 : 0];
            fill(p, x0 + i * cell, y0 - at - BAND, (j - i) * cell, BAND - 2,
                 s);
            fill(p, x0 - at - BAND, y0 + i * cell, BAND - 2, (j - i) * cell,
                 s);
        }
        i = j;
    }
    /* the lines last, over the cells next to them */
    for (int i = 1; t > 0 && i < m->n; i++)
        if (bl_matrix_group_of(m, l, i) != bl_matrix_group_of(m, l, i - 1)) {
            fill(p, x0 + i * cell - t / 2, y0, t, side, black);
            fill(p, x0, y0 + i * cell - t / 2, side, t, black);
        }
}

int bl_matrix_raster(const bl_h5_matrix *m, bl_matrix_picture *p,
                     bl_err *err)
{
    int shown[BL_MATRIX_NLEVELS], nshown = 0;
    double lo, hi;
    unsigned char rgb[3];
    long legend_w;
    memset(p, 0, sizeof *p);
    if (m->n <= 0 || !m->values || !m->order)
        return bl_err_set(err, "the %s matrix is empty: nothing to draw",
                          m->kind ? m->kind : "");
    for (size_t k = 0; k < BL_MATRIX_NLEVELS; k++)
        nshown += shown[k] = bl_matrix_level_shown(m, &bl_matrix_levels[k]);
    p->cell = 480 / (unsigned)m->n;
    p->cell = p->cell > 56 ? 56 : p->cell < 4 ? 4 : p->cell;
    p->x0 = PAD + (unsigned)nshown * BAND;
    p->y0 = PAD + (unsigned)nshown * BAND;
    p->w = p->x0 + (unsigned)m->n * p->cell + PAD;
    p->h = p->y0 + (unsigned)m->n * p->cell + PAD + LEGEND_H + PAD;
    if (p->w < 2 * PAD + 160)
        p->w = 2 * PAD + 160;
    if (!(p->rgb = malloc(3 * (size_t)p->w * p->h)))
        return bl_err_set(err, "out of memory for a %u x %u picture", p->w,
                          p->h);
    memset(p->rgb, 0xff, 3 * (size_t)p->w * p->h);
    bl_matrix_range(m, &lo, &hi);
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->n; j++) {
            double v = m->values[(size_t)i * (size_t)m->n + (size_t)j];
            if (isfinite(v))
                bl_matrix_colour(bl_matrix_scale(v, lo, hi), rgb);
            else
                memcpy(rgb, bl_matrix_nan_rgb, 3);
            fill(p, p->x0 + (long)j * p->cell, p->y0 + (long)i * p->cell,
                 p->cell, p->cell, rgb);
        }
    for (size_t k = 0, at = (size_t)nshown; k < BL_MATRIX_NLEVELS; k++)
        if (shown[k])
            bands(p, m, &bl_matrix_levels[k], (long)(--at * BAND));
    legend_w = (long)p->w - 2 * PAD > 320 ? 320 : (long)p->w - 2 * PAD;
    for (int k = 0; k < 20; k++) {
        long a = PAD + k * legend_w / 20, b = PAD + (k + 1) * legend_w / 20;
        bl_matrix_colour(k / 19.0, rgb);
        fill(p, a, p->y0 + (long)m->n * p->cell + PAD, b - a, LEGEND_H, rgb);
    }
    return 0;
}

void bl_matrix_picture_free(bl_matrix_picture *p)
{
    free(p->rgb);
    p->rgb = NULL;
}

int bl_matrix_png_write(const char *path, const bl_h5_matrix *m,
                        bl_err *err)
{
    bl_matrix_picture p;
    bl_strbuf title = {0}, rows = {0};
    char map[64], *t, *r;
    int rc;
    if (bl_matrix_raster(m, &p, err) < 0)
        return -1;
    bl_strbuf_printf(&title, "%s matrix (%s)", m->kind ? m->kind : "",
                     m->unit ? m->unit : "");
    for (int i = 0; i < m->n; i++)
        bl_strbuf_printf(&rows, "%s%s", i ? ", " : "",
                         m->order[i].label ? m->order[i].label : "");
    snprintf(map, sizeof map, "%u %u %u %d", p.x0, p.y0, p.cell, m->n);
    t = bl_strbuf_take(&title);
    r = bl_strbuf_take(&rows);
    if (!t || !r) {
        rc = bl_err_set(err, "%s: out of memory for the picture", path);
    } else {
        const bl_png_text text[] = {
            {"Title", t},
            {"Description", m->method ? m->method : ""},
            {"bindlab-map", map},
            {"bindlab-rows", r},
        };
        rc = bl_png_write(path, p.rgb, p.w, p.h, text,
                          sizeof text / sizeof text[0], err);
    }
    free(t);
    free(r);
    bl_matrix_picture_free(&p);
    return rc;
}
