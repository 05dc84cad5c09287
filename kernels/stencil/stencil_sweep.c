/* The stencil's sweep: column strips and each thread's rows, swept by the
 * row functions of the ISA level in use (stencil_rows_isa.c, one copy per
 * level; isa.h chooses). */
#include "stencil/stencil.h"

#include <unistd.h>

#include <omp.h>

#include "isa.h"
#include "shares.h"
#include "stencil/stencil_rows.h"

BL_ISA_DECLARE(const bl_stencil_rows *, bl_stencil_rows_of, (void));

static const bl_stencil_rows *rows_here(void)
{
    static const bl_stencil_rows *(*const of[BL_ISA_COUNT])(void) =
        BL_ISA_VARIANTS(bl_stencil_rows_of);
    return of[bl_isa_current()]();
}

int bl_stencil_streaming_available(void)
{
    return rows_here()->fence != NULL;
}

long bl_stencil_block_cols(int radius, long width)
{
    /* The 2R + 1 input rows of a strip should stay in the core's L2 while
     * the strip's rows are swept; use half of it for them. */
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    long budget = (l2 > 0 ? l2 : 1L << 20) / 2;
    long w = budget / ((2L * radius + 1) * (long)sizeof(double));
    w = w / 64 * 64; /* whole cache lines, and vector-aligned strips */
    if (w < 512)
        w = 512;
    return width > w ? w : 0;
}

/* The calling thread's share of rows [share_j0, share_j1), as offsets
 * from share_j0. */
static void share_rows(const double *array, long ld,
                       const bl_stencil_sweep_cfg *cfg, size_t *lo,
                       size_t *hi)
{
    bl_shares s = {(uintptr_t)(array + cfg->share_j0 * ld),
                   (size_t)(cfg->share_j1 - cfg->share_j0),
                   (size_t)ld * sizeof(double), omp_get_num_threads(),
                   cfg->share_align};
    bl_share_range(&s, omp_get_thread_num(), lo, hi);
}

void bl_stencil_thread_rows(const double *array, long ld, bl_stencil_rect r,
                            const bl_stencil_sweep_cfg *cfg, size_t *lo,
                            size_t *hi)
{
    long a, b;
    if (!cfg || cfg->share_align == 0) {
        bl_static_range((size_t)(r.j1 - r.j0), omp_get_num_threads(),
                        omp_get_thread_num(), lo, hi);
        return;
    }
    share_rows(array, ld, cfg, lo, hi);
    a = cfg->share_j0 + (long)*lo;
    b = cfg->share_j0 + (long)*hi;
    a = a > r.j0 ? a : r.j0;
    b = b < r.j1 ? b : r.j1;
    *lo = (size_t)(a - r.j0);
    *hi = b > a ? (size_t)(b - r.j0) : *lo;
}

void bl_stencil_sweep_ex(const double *in, double *out, long ld, int radius,
                         bl_stencil_rect r, const bl_stencil_sweep_cfg *cfg)
{
    const long n = r.i1 - r.i0, nrows = r.j1 - r.j0;
    const int streaming = cfg && cfg->streaming &&
                          n >= BL_STENCIL_STREAM_MIN_WIDTH;
    const long strip = cfg && cfg->block_cols > 0 ? cfg->block_cols : n;
    const bl_stencil_rows *t = rows_here();
    const int rk = radius >= 1 && radius <= 4 ? radius : 1;
    const int nt = streaming && t->fence;
    const bl_stencil_rows_fn rows = nt ? t->streaming[rk] : t->normal[rk];
    if (n <= 0 || nrows <= 0)
        return;
    /* Column strips (one strip when no blocking), each swept over this
     * thread's rows: the rows schedule(static) would give it
     * (bl_static_range), as in the first touch, so a thread writes the
     * pages it first-touched. */
#pragma omp parallel
    {
        size_t lo, hi;
        bl_stencil_thread_rows(out, ld, r, cfg, &lo, &hi);
        for (long i0 = r.i0; i0 < r.i1; i0 += strip) {
            long w = r.i1 - i0 < strip ? r.i1 - i0 : strip;
            long j = r.j0 + (long)lo;
            rows(in + j * ld + i0, out + j * ld + i0, w, ld,
                 (long)(hi - lo));
        }
        /* Streaming stores are weakly ordered: each thread fences its own
         * before the region's closing barrier, so the next step and the
         * halo exchange read them. */
        if (nt)
            t->fence();
    }
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
