/* How the stencil's global grid splits into tiles, checked before any
 * allocation so that a bad grid is a clear message, not a crash. */
#include "stencil/stencil.h"

#include <math.h>

void bl_stencil_split(long n, int parts, int index, long *start, long *count)
{
    long q = n / parts, r = n % parts, k = index;
    *start = q * k + (k < r ? k : r);
    *count = q + (k < r ? 1 : 0);
}

int bl_stencil_check_grid(long nx, long ny, const int dims[2], int radius,
                          bl_err *err)
{
    /* The smallest tile is n / parts; a ghost strip of width R must come
     * from the immediate neighbour alone. */
    long tx = nx / dims[1], ty = ny / dims[0];
    if (radius < 1 || radius > BL_STENCIL_RADIUS_MAX)
        return bl_err_set(err, "--radius: %d is not accepted; the stencil "
                          "takes 1 to %d", radius, BL_STENCIL_RADIUS_MAX);
    if (nx <= 2L * radius || ny <= 2L * radius)
        return bl_err_set(err, "--grid %ldx%ld has no interior point for "
                          "--radius %d; each side needs more than %d cells",
                          nx, ny, radius, 2 * radius);
    if (tx < radius || ty < radius)
        return bl_err_set(err, "--grid %ldx%ld over %dx%d ranks (columns x "
                          "rows) gives tiles down to %ldx%ld cells, smaller "
                          "than --radius %d; use a grid of at least %ldx%ld "
                          "or fewer ranks",
                          nx, ny, dims[1], dims[0], tx, ty, radius,
                          (long)dims[1] * radius, (long)dims[0] * radius);
    return 0;
}

int bl_stencil_grid_from_opts(const bl_kernel_opts *o, int nranks, long *nx,
                              long *ny, bl_err *err)
{
    switch (o->grid_dims) {
    case 0:
        if (o->size_bytes) {
            /* Two arrays of doubles per rank: 16 bytes per cell. */
            double cells = (double)(o->size_bytes / 16) * nranks;
            *nx = *ny = (long)floor(sqrt(cells));
        } else {
            *nx = *ny = BL_STENCIL_DEFAULT_N;
        }
        break;
    case 1:
        *nx = *ny = o->grid[0];
        break;
    case 2:
        *nx = o->grid[0];
        *ny = o->grid[1];
        break;
    default:
        return bl_err_set(err, "--grid: the stencil takes NX or NXxNY "
                          "(columns x rows); a 3D grid is not supported");
    }
    if (*nx < 1 || *ny < 1)
        return bl_err_set(err, "--grid: %ldx%ld; both sides must be at least "
                          "1 cell", *nx, *ny);
    return 0;
}
