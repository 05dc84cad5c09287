#include "matrix/matrix_draw.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

const bl_matrix_level bl_matrix_levels[BL_MATRIX_NLEVELS] = {
    {"package ", offsetof(bl_h5_matrix_index, package), 2.5, 0},
    {"NUMA ", offsetof(bl_h5_matrix_index, numa), 1.5, 0},
    {"L3 ", offsetof(bl_h5_matrix_index, l3), 0.8, 0},
    {"core ", offsetof(bl_h5_matrix_index, core), 0.0, 1},
};

const unsigned char bl_matrix_nan_rgb[3] = {0xee, 0xee, 0xee};

int bl_matrix_group_of(const bl_h5_matrix *m, const bl_matrix_level *l,
                       int i)
{
    return *(const int32_t *)((const char *)&m->order[i] + l->offset);
}

/* A level is drawn when the order knows it and it tells rows apart or
 * holds them together (not one group per row, except for packages and
 * NUMA nodes on a NUMA-axis matrix, where they are the point). */
int bl_matrix_level_shown(const bl_h5_matrix *m, const bl_matrix_level *l)
{
    int groups = 0, known = 0;
    for (int i = 0; i < m->n; i++) {
        int g = bl_matrix_group_of(m, l, i);
        known += g >= 0;
        groups += g >= 0 && (i == 0 || g != bl_matrix_group_of(m, l, i - 1));
    }
    if (known < m->n)
        return 0;
    if (l->only_shared)
        return groups < m->n;
    if (strcmp(l->name, "NUMA ") == 0 && m->axis &&
        strcmp(m->axis, "numa") == 0)
        return 0; /* the rows are the NUMA nodes already */
    return groups > 1 || m->n > 1;
}

/* Light to dark through three stops (a sequential orange scale). */
void bl_matrix_colour(double t, unsigned char rgb[3])
{
    static const double stops[3][3] = {
        {255, 245, 235}, {253, 141, 60}, {127, 39, 4}};
    int k = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    if (!(t >= 0))
        u = 0, k = 0;
    if (t > 1)
        u = 1, k = 1;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(stops[k][c] +
                                       u * (stops[k + 1][c] - stops[k][c]));
}

void bl_matrix_range(const bl_h5_matrix *m, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t c = 0; c < (size_t)m->n * (size_t)m->n; c++)
        if (isfinite(m->values[c])) {
            if (m->values[c] < *lo)
                *lo = m->values[c];
            if (m->values[c] > *hi)
                *hi = m->values[c];
        }
}

double bl_matrix_scale(double v, double lo, double hi)
{
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}
