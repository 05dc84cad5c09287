/* Latency, bandwidth and core-to-core matrices (`bindlab matrix`): each
 * cell measured by bindlab-app, started through its command line (argv,
 * no shell; an MPI singleton, the OpenMP places pinning its threads), and
 * read back from its run file; the matrix kept in HDF5 as
 * /matrices/<kind> (common/h5/h5schema.h: bl_h5_matrix) and drawn as an SVG
 * or PNG heatmap with the topology's groups marked.
 *
 * For the HTML report (or any other caller): read a matrix with
 * bl_matrix_read_file, draw it with bl_matrix_svg (an inline <svg>
 * element appended to a bl_strbuf), free it with bl_h5_matrix_free. */
#ifndef BL_MATRIX_H
#define BL_MATRIX_H

#include <stdio.h>

#include <hwloc.h>

#include "err.h"
#include "h5/h5schema.h"
#include "strbuf.h"

typedef struct bl_matrix_opts {
    const char *kind;         /* "latency", "bandwidth" or "c2c" */
    const char *app;          /* bindlab-app to run */
    const char *size;         /* --size for the app, NULL: see matrix_run.c */
    int iters, warmup;        /* 0: the defaults below */
    const char *huge_pages;   /* latency: off|thp|hugetlb, NULL: off */
    long round_trips;         /* c2c, 0: the app's default */
    const char *cpus;         /* c2c: a PU list to measure, NULL: all */
    const char *runs_dir;     /* where each cell's run file is kept */
    double timeout_s;         /* per launch, <= 0: none */
} bl_matrix_opts;

#define BL_MATRIX_LAT_ITERS 5
#define BL_MATRIX_BW_ITERS 5
#define BL_MATRIX_C2C_ITERS 5

/* 1 when kind is one of the three. */
int bl_matrix_kind_ok(const char *kind);

/* Measures every cell on this machine (topo), writing one run file per
 * launch under o->runs_dir, and fills m, and machine from the first run
 * file that could be read. progress (may be NULL) gets one line per
 * launch. Returns 0 when every cell was measured and verified, 1 when
 * some were not (their cells are NaN, m->note says which and why: the
 * rest is kept), -1 with err when nothing could be measured. */
int bl_matrix_measure(const bl_matrix_opts *o, hwloc_topology_t topo,
                      bl_h5_matrix *m, bl_h5_machine *machine,
                      FILE *progress, bl_err *err);

/* Writes path (atomically) holding the root attributes (file_kind
 * "matrix"), /machine and /matrices/<kind> for m; the other kinds a matrix
 * file already at path holds are kept. */
int bl_matrix_write_file(const char *path, const char *command,
                         const bl_h5_machine *machine, const bl_h5_matrix *m,
                         bl_err *err);

/* Whether path may be written by bl_matrix_write_file: a regular file or
 * nothing (bl_atomic_check_target), and when it exists, a matrix file
 * (its matrices are kept, not lost). 0, or -1 with err. */
int bl_matrix_check_target(const char *path, bl_err *err);

/* Reads /matrices/<kind> of a `bindlab matrix` file, or <run>/matrices/
 * <kind> of an app run file (/run). kind NULL: the file's only matrix (an
 * error naming them when there are several). */
int bl_matrix_read_file(const char *path, const char *kind, bl_h5_matrix *m,
                        bl_err *err);

/* The matrix as a text table (rows x columns, with its unit and spread). */
void bl_matrix_print(FILE *f, const bl_h5_matrix *m);

/* Appends the heatmap as one <svg> element (no script, no external
 * resource): a cell per value coloured on one scale, the value written in
 * it when the matrix is small, and along both axes the groups of the
 * order's topology columns (packages, NUMA nodes, L3 domains, SMT siblings
 * sharing a core) as labelled bands and separating lines. */
void bl_matrix_svg(bl_strbuf *b, const bl_h5_matrix *m);

/* A standalone .svg file of bl_matrix_svg, written atomically. */
int bl_matrix_svg_write(const char *path, const bl_h5_matrix *m,
                        bl_err *err);

/* The heatmap as pixels (matrix_png.c): the SVG's cells, bands and lines
 * in the same colours, without text. rgb holds w x h pixels of 3 bytes,
 * row after row; cell (i, j) is the square of cell x cell pixels at
 * (x0 + j cell, y0 + i cell). */
typedef struct bl_matrix_picture {
    unsigned char *rgb;
    unsigned w, h;
    unsigned x0, y0, cell;
} bl_matrix_picture;

/* Draws m into p (free with bl_matrix_picture_free). 0, or -1 with err. */
int bl_matrix_raster(const bl_h5_matrix *m, bl_matrix_picture *p,
                     bl_err *err);
void bl_matrix_picture_free(bl_matrix_picture *p);

/* The picture as a .png file (harness/matrix/png.h), written atomically, with
 * tEXt chunks Title, Description, bindlab-map ("x0 y0 cell n") and
 * bindlab-rows (the rows' labels, ", " between). */
int bl_matrix_png_write(const char *path, const bl_h5_matrix *m,
                        bl_err *err);

#endif
