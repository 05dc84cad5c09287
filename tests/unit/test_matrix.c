/* Matrices in HDF5 and as SVG and PNG: a c2c matrix travels with its run
 * file; a matrix file keeps the other kinds it holds and replaces the same
 * one; the reader names what a file holds when asked for something else;
 * the heatmap has one cell per value, the topology's groups, and escapes
 * its text; the PNG's pixels have the scale's colours and the groups'
 * bands and lines. The matrices are written by hand here (values worked
 * out below). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "matrix/matrix.h"

static char dir[] = "/tmp/bl_matrixtest.XXXXXX";

/* 4 PUs: two cores of two SMT siblings, cores 0-1 on L3 0 and package 0
 * (PUs 0, 1, 2, 3 as Linux numbers them: 0 and 2 are siblings). Round
 * trips: siblings 20 ns, same L3 50 ns; the diagonal NaN. */
static void sample_c2c(bl_h5_matrix *m)
{
    static const int os[4] = {0, 2, 1, 3}, core[4] = {0, 0, 1, 1};
    assert_int_equal(bl_h5_matrix_alloc(m, 4, 0), 0);
    for (int i = 0; i < 4; i++) {
        char label[16];
        m->order[i].os_index = os[i];
        m->order[i].logical = i;
        m->order[i].cpu = os[i];
        m->order[i].core = core[i];
        m->order[i].l3 = 0;
        m->order[i].numa = 0;
        m->order[i].package = 0;
        snprintf(label, sizeof label, "PU %d", os[i]);
        m->order[i].label = strdup(label);
        for (int j = 0; j < 4; j++) {
            size_t c = (size_t)i * 4 + (size_t)j;
            if (i == j)
                continue;
            m->values[c] = core[i] == core[j] ? 20.0 : 50.0;
            m->spread_lo[c] = m->values[c] - 1;
            m->spread_hi[c] = m->values[c] + 2;
            m->samples[c] = 96;
        }
    }
    m->kind = strdup("c2c");
    m->unit = strdup("ns");
    m->axis = strdup("pu");
    m->rows = strdup("initiating PU");
    m->cols = strdup("responding PU");
    m->method = strdup("ping-pong <CAS> & co");
    m->spread = strdup("p10, p90");
    m->note = strdup("");
    m->threads = 2;
}

static void sample_numa(bl_h5_matrix *m, const char *kind, double base)
{
    assert_int_equal(bl_h5_matrix_alloc(m, 2, 1), 0);
    for (int i = 0; i < 2; i++) {
        m->order[i].os_index = i;
        m->order[i].logical = i;
        m->order[i].numa = i;
        m->order[i].package = 0;
        m->order[i].label = strdup(i ? "node 1" : "node 0");
        for (int j = 0; j < 2; j++) {
            size_t c = (size_t)i * 2 + (size_t)j;
            m->values[c] = base * (i == j ? 1.0 : 1.5);
            m->spread_lo[c] = m->spread_hi[c] = m->values[c];
            m->samples[c] = 5;
            m->pages_on_target[c] = 1.0;
        }
    }
    m->kind = strdup(kind);
    m->unit = strdup("ns");
    m->axis = strdup("numa");
}

static void c2c_matrix_travels_with_its_run_file(void **state)
{
    bl_h5_machine mach = {0}, mach2;
    bl_h5_run r = {0}, r2;
    bl_h5_matrix m, *got;
    bl_err err;
    char path[256];
    (void)state;
    snprintf(path, sizeof path, "%s/c2c-run.h5", dir);
    sample_c2c(&m);
    mach.hostname = "nodeA";
    r.kernel = "c2c";
    r.matrix = &m;
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", &mach, 1, &r, &err), 0);
    bl_h5_matrix_free(&m);
    assert_int_equal(bl_h5_read_run_file(path, &mach2, &r2, &err), 0);
    got = r2.matrix;
    assert_non_null(got);
    assert_int_equal(got->n, 4);
    assert_string_equal(got->kind, "c2c");
    assert_string_equal(got->method, "ping-pong <CAS> & co");
    assert_true(isnan(got->values[0]) && isnan(got->values[15]));
    /* PU 0 (row 0) and PU 2 (column 1) are siblings; PU 1 is not */
    assert_true(got->values[1] == 20.0 && got->values[2] == 50.0);
    assert_true(got->spread_hi[2] == 52.0 && got->samples[2] == 96);
    assert_null(got->pages_on_target);
    assert_int_equal(got->order[1].os_index, 2);
    assert_string_equal(got->order[3].label, "PU 3");
    bl_h5_run_free(&r2);
    bl_h5_machine_free(&mach2);
    /* the reader finds it in a run file too */
    assert_int_equal(bl_matrix_read_file(path, NULL, &m, &err), 0);
    assert_int_equal(m.n, 4);
    bl_h5_matrix_free(&m);
}

static void matrix_file_keeps_other_kinds(void **state)
{
    bl_h5_matrix lat, bw, lat2, got;
    bl_err err;
    char path[256];
    (void)state;
    snprintf(path, sizeof path, "%s/m.h5", dir);
    sample_numa(&lat, "latency", 100.0);
    sample_numa(&bw, "bandwidth", 10.0);
    sample_numa(&lat2, "latency", 200.0);
    assert_int_equal(bl_matrix_write_file(path, "t", NULL, &lat, &err), 0);
    assert_int_equal(bl_matrix_write_file(path, "t", NULL, &bw, &err), 0);
    assert_int_equal(bl_matrix_write_file(path, "t", NULL, &lat2, &err), 0);
    /* two kinds: asking for none is refused with their names */
    assert_int_equal(bl_matrix_read_file(path, NULL, &got, &err), -1);
    assert_non_null(strstr(err.msg, "bandwidth, latency"));
    assert_int_equal(bl_matrix_read_file(path, "c2c", &got, &err), -1);
    assert_non_null(strstr(err.msg, "no matrix 'c2c' (it holds: bandwidth, "
                                    "latency)"));
    /* the second latency replaced the first; bandwidth kept */
    assert_int_equal(bl_matrix_read_file(path, "latency", &got, &err), 0);
    assert_true(got.values[1] == 300.0 && got.pages_on_target[3] == 1.0);
    bl_h5_matrix_free(&got);
    assert_int_equal(bl_matrix_read_file(path, "bandwidth", &got, &err), 0);
    assert_true(got.values[0] == 10.0 && got.values[2] == 15.0);
    bl_h5_matrix_free(&got);
    bl_h5_matrix_free(&lat);
    bl_h5_matrix_free(&bw);
    bl_h5_matrix_free(&lat2);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (; (s = strstr(s, what)); s += strlen(what))
        n++;
    return n;
}

static void svg_has_cells_groups_and_escaped_text(void **state)
{
    bl_h5_matrix m;
    bl_strbuf b = {0};
    char *svg;
    (void)state;
    sample_c2c(&m);
    bl_matrix_svg(&b, &m);
    svg = bl_strbuf_take(&b);
    assert_non_null(svg);
    assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39)
                == 0);
    /* 16 cells, each with a tooltip (12 measured, 4 not), and a band on
     * each axis per group: package, NUMA node, L3 (one each), 2 cores */
    assert_int_equal(count(svg, "</title></rect>"), 16 + 2 * (1 + 1 + 1 + 2));
    assert_int_equal(count(svg, ": not measured"), 4);
    assert_int_equal(count(svg, "PU 0 / PU 2: 20 ns"), 1);
    /* the two cores hold two PUs each: a band per core on each axis */
    assert_int_equal(count(svg, "<title>core 0</title>"), 2);
    assert_int_equal(count(svg, "<title>core 1</title>"), 2);
    /* one L3, one package: bands, but no line between groups */
    assert_int_equal(count(svg, "<title>L3 0</title>"), 2);
    assert_int_equal(count(svg, "<line"), 0);
    assert_non_null(strstr(svg, "ping-pong &lt;CAS&gt; &amp; co"));
    assert_null(strstr(svg, "<CAS>"));
    free(svg);
    /* two packages: a line across the map at the boundary, both ways */
    m.order[2].package = m.order[3].package = 1;
    m.order[2].l3 = m.order[3].l3 = 1;
    bl_matrix_svg(&b, &m);
    svg = bl_strbuf_take(&b);
    assert_int_equal(count(svg, "<line"), 2 * 2); /* package and L3 */
    free(svg);
    bl_h5_matrix_free(&m);
}

/* The pixel at (x, y) is r g b. */
static int pixel_is(const bl_matrix_picture *p, unsigned x, unsigned y,
                    int r, int g, int b)
{
    const unsigned char *q = p->rgb + 3 * ((size_t)y * p->w + x);
    assert_true(x < p->w && y < p->h);
    return q[0] == r && q[1] == g && q[2] == b;
}

/* The centre of cell (i, j). */
#define CX(p, j) ((p).x0 + (unsigned)(j) * (p).cell + (p).cell / 2)
#define CY(p, i) ((p).y0 + (unsigned)(i) * (p).cell + (p).cell / 2)

static void png_picture_has_scale_colours_bands_and_lines(void **state)
{
    bl_h5_matrix m;
    bl_matrix_picture p;
    bl_err err;
    int band = 0;
    (void)state;
    sample_c2c(&m);
    /* values 20 (lowest), 50 (highest) and one 35 (the middle): the scale
     * is #fff5eb at the lowest, #fd8d3c half way, #7f2704 at the highest
     * (docs/memory.md), NaN #eeeeee */
    m.values[0 * 4 + 3] = 35.0;
    assert_int_equal(bl_matrix_raster(&m, &p, &err), 0);
    assert_int_equal(p.cell, 480 / 4 > 56 ? 56 : 480 / 4);
    assert_true(pixel_is(&p, CX(p, 0), CY(p, 0), 0xee, 0xee, 0xee));
    assert_true(pixel_is(&p, CX(p, 1), CY(p, 0), 0xff, 0xf5, 0xeb)); /* 20 */
    assert_true(pixel_is(&p, CX(p, 2), CY(p, 0), 0x7f, 0x27, 0x04)); /* 50 */
    assert_true(pixel_is(&p, CX(p, 3), CY(p, 0), 0xfd, 0x8d, 0x3c)); /* 35 */
    assert_true(pixel_is(&p, CX(p, 0), CY(p, 1), 0xff, 0xf5, 0xeb));
    /* one package, one L3: no line between the cells */
    for (unsigned x = p.x0; x < p.x0 + 4 * p.cell; x++)
        assert_false(pixel_is(&p, x, CY(p, 0), 0, 0, 0));
    /* SMT cores: above cell 0 (core 0) and cell 2 (core 1) bands of the
     * two alternating greys at the same height */
    for (unsigned y = 0; y < p.y0; y++)
        band += pixel_is(&p, CX(p, 0), y, 0xbd, 0xbd, 0xbd) &&
                pixel_is(&p, CX(p, 2), y, 0xd9, 0xd9, 0xd9);
    assert_true(band > 0);
    bl_matrix_picture_free(&p);
    /* two packages (and L3s): a black line at the boundary both ways, and
     * none inside a package */
    m.order[2].package = m.order[3].package = 1;
    m.order[2].l3 = m.order[3].l3 = 1;
    assert_int_equal(bl_matrix_raster(&m, &p, &err), 0);
    assert_true(pixel_is(&p, p.x0 + 2 * p.cell, CY(p, 0), 0, 0, 0));
    assert_true(pixel_is(&p, CX(p, 0), p.y0 + 2 * p.cell, 0, 0, 0));
    assert_false(pixel_is(&p, p.x0 + 1 * p.cell, CY(p, 0), 0, 0, 0));
    assert_true(pixel_is(&p, CX(p, 3), CY(p, 0), 0xfd, 0x8d, 0x3c));
    bl_matrix_picture_free(&p);
    bl_h5_matrix_free(&m);
}

static int cleanup(void **state)
{
    char path[300];
    (void)state;
    snprintf(path, sizeof path, "%s/c2c-run.h5", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/m.h5", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c2c_matrix_travels_with_its_run_file),
        cmocka_unit_test(matrix_file_keeps_other_kinds),
        cmocka_unit_test(svg_has_cells_groups_and_escaped_text),
        cmocka_unit_test(png_picture_has_scale_colours_bands_and_lines),
    };
    if (!mkdtemp(dir))
        return 1;
    return cmocka_run_group_tests(tests, NULL, cleanup);
}
