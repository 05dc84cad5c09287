/* The stencil's compute loops. One row function per radius, so that the
 * radius is a compile-time constant: the k loops unroll, the weights fold
 * into constants, and the i loop is a branch-free vector loop over
 * contiguous memory (2R + 1 row streams, one of them the output). */
#include "stencil.h"

typedef void (*row_fn)(const double *c, double *o, long n, long ld);

/* Per point and per k: two differences, their sum, the product by the
 * weight, the add to the accumulator: 5 flops, 5R per point. */
#define BL_STENCIL_ROW(R)                                                   \
    static void row_r##R(const double *restrict c, double *restrict o,      \
                         long n, long ld)                                   \
    {                                                                       \
        _Pragma("omp simd")                                                 \
        for (long i = 0; i < n; i++) {                                      \
            double acc = c[i];                                              \
            for (long k = 1; k <= R; k++)                                   \
                acc += (1.0 / (2.0 * (double)k * R)) *                      \
                       ((c[i + k] - c[i - k]) +                             \
                        (c[i + k * ld] - c[i - k * ld]));                   \
            o[i] = acc;                                                     \
        }                                                                   \
    }

BL_STENCIL_ROW(1)
BL_STENCIL_ROW(2)
BL_STENCIL_ROW(3)
BL_STENCIL_ROW(4)

static row_fn row_for(int radius)
{
    static const row_fn fns[] = {row_r1, row_r1, row_r2, row_r3, row_r4};
    return fns[radius >= 1 && radius <= 4 ? radius : 1];
}

void bl_stencil_sweep(const double *in, double *out, long ld, int radius,
                      bl_stencil_rect r)
{
    const row_fn row = row_for(radius);
    const long n = r.i1 - r.i0;
    if (n <= 0 || r.j1 <= r.j0)
        return;
#pragma omp parallel for schedule(static)
    for (long j = r.j0; j < r.j1; j++)
        row(in + j * ld + r.i0, out + j * ld + r.i0, n, ld);
}

void bl_stencil_shift(const double *in, double *out, long ld, double shift,
                      bl_stencil_rect r)
{
    /* Thin strips (R wide or R tall): not worth a parallel region. */
    for (long j = r.j0; j < r.j1; j++) {
        const double *restrict a = in + j * ld;
        double *restrict b = out + j * ld;
        for (long i = r.i0; i < r.i1; i++)
            b[i] = a[i] + shift;
    }
}
