/* What the SVG and the PNG heatmaps of a matrix share, so that the two
 * pictures agree: the colour scale, the value range it spans, and the
 * topology levels marked along the axes (which are shown, and the group of
 * each row in them). Internal to harness/matrix_*.c. */
#ifndef BL_MATRIX_DRAW_H
#define BL_MATRIX_DRAW_H

#include <stddef.h>

#include "h5/h5schema.h"

typedef struct bl_matrix_level {
    const char *name;      /* labels: "package ", "NUMA ", "L3 ", "core " */
    size_t offset;         /* of the int32_t in bl_h5_matrix_index */
    double line;           /* stroke width across the map, 0: none */
    int only_shared;       /* draw only groups with several members (SMT) */
} bl_matrix_level;

/* Outermost first: package, NUMA node, L3, core. */
extern const bl_matrix_level bl_matrix_levels[];
#define BL_MATRIX_NLEVELS 4

/* The group of row i in level l (a hwloc logical index, -1 unknown). */
int bl_matrix_group_of(const bl_h5_matrix *m, const bl_matrix_level *l,
                       int i);

/* 1 when level l is drawn for m: the order knows it for every row, and it
 * groups the rows (for SMT cores: some core holds several rows); NUMA
 * nodes are not drawn on a matrix whose rows are the NUMA nodes. */
int bl_matrix_level_shown(const bl_h5_matrix *m, const bl_matrix_level *l);

/* The colour of t in 0..1 (light = low, dark = high): linear from
 * #fff5eb to #fd8d3c at 0.5 to #7f2704, rounded to the nearest; t outside
 * 0..1 is clamped, NaN is 0. */
void bl_matrix_colour(double t, unsigned char rgb[3]);

/* The colour of NaN cells (not measured): #eeeeee. */
extern const unsigned char bl_matrix_nan_rgb[3];

/* The smallest and largest finite value (+inf and -inf when none). */
void bl_matrix_range(const bl_h5_matrix *m, double *lo, double *hi);

/* Where a value sits on the scale: (v - lo) / (hi - lo), 0.5 when all
 * values are equal. */
double bl_matrix_scale(double v, double lo, double hi);

#endif
