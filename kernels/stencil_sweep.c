/* The stencil's compute loops. One row function per radius, so that the
 * radius is a compile-time constant: the k loops unroll, the weights fold
 * into constants, and the i loop is a branch-free vector loop over
 * contiguous memory (2R + 1 row streams, one of them the output).
 *
 * Two variants of each row. The plain one leaves vectorisation to the
 * compiler (gcc -fopt-info-vec reports each row loop vectorised). The
 * streaming one is written with the CPU's widest vector intrinsics and
 * stores with non-temporal (streaming) stores: the output line is not read
 * before it is written (no write-allocate), so a point moves 16 bytes
 * (read the input, write the output) instead of 24. A scalar head up to
 * the vector alignment and a scalar tail use normal stores. */
#include "stencil.h"

#include <stdint.h>
#include <unistd.h>

#include <omp.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#define VW 8
typedef __m512d vec;
#define VLOAD(p) _mm512_loadu_pd(p)
#define VSET1(x) _mm512_set1_pd(x)
#define VADD(a, b) _mm512_add_pd(a, b)
#define VSUB(a, b) _mm512_sub_pd(a, b)
#define VMUL(a, b) _mm512_mul_pd(a, b)
#define VSTREAM(p, v) _mm512_stream_pd(p, v)
#define SFENCE() _mm_sfence()
#elif defined(__AVX__)
#include <immintrin.h>
#define VW 4
typedef __m256d vec;
#define VLOAD(p) _mm256_loadu_pd(p)
#define VSET1(x) _mm256_set1_pd(x)
#define VADD(a, b) _mm256_add_pd(a, b)
#define VSUB(a, b) _mm256_sub_pd(a, b)
#define VMUL(a, b) _mm256_mul_pd(a, b)
#define VSTREAM(p, v) _mm256_stream_pd(p, v)
#define SFENCE() _mm_sfence()
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VW 2
typedef __m128d vec;
#define VLOAD(p) _mm_loadu_pd(p)
#define VSET1(x) _mm_set1_pd(x)
#define VADD(a, b) _mm_add_pd(a, b)
#define VSUB(a, b) _mm_sub_pd(a, b)
#define VMUL(a, b) _mm_mul_pd(a, b)
#define VSTREAM(p, v) _mm_stream_pd(p, v)
#define SFENCE() _mm_sfence()
#endif

int bl_stencil_streaming_available(void)
{
#ifdef VW
    return 1;
#else
    return 0;
#endif
}

typedef void (*row_fn)(const double *c, double *o, long n, long ld);

/* Per point and per k: two differences, their sum, the product by the
 * weight, the add to the accumulator: 5 flops, 5R per point. */
#define BL_STENCIL_POINT(R, c, i, ld, acc)                                  \
    do {                                                                    \
        acc = (c)[i];                                                       \
        for (long k = 1; k <= (R); k++)                                     \
            acc += (1.0 / (2.0 * (double)k * (R))) *                        \
                   (((c)[(i) + k] - (c)[(i) - k]) +                         \
                    ((c)[(i) + k * (ld)] - (c)[(i) - k * (ld)]));           \
    } while (0)

#define BL_STENCIL_ROW(R)                                                   \
    static void row_r##R(const double *restrict c, double *restrict o,      \
                         long n, long ld)                                   \
    {                                                                       \
        _Pragma("omp simd")                                                 \
        for (long i = 0; i < n; i++) {                                      \
            double acc;                                                     \
            BL_STENCIL_POINT(R, c, i, ld, acc);                             \
            o[i] = acc;                                                     \
        }                                                                   \
    }

BL_STENCIL_ROW(1)
BL_STENCIL_ROW(2)
BL_STENCIL_ROW(3)
BL_STENCIL_ROW(4)

#ifdef VW
/* The same arithmetic in the same order, VW points at a time, each vector
 * stored straight to memory. The head runs up to the first output address
 * aligned to a whole vector (streaming stores need it). */
#define BL_STENCIL_ROW_NT(R)                                                \
    static void row_nt_r##R(const double *restrict c, double *restrict o,   \
                            long n, long ld)                                \
    {                                                                       \
        long i = 0;                                                         \
        for (; i < n && ((uintptr_t)(o + i) % (VW * sizeof(double))); i++)  \
            BL_STENCIL_POINT(R, c, i, ld, o[i]);                            \
        for (; i + VW <= n; i += VW) {                                      \
            vec acc = VLOAD(c + i);                                         \
            for (long k = 1; k <= R; k++) {                                 \
                vec d = VADD(VSUB(VLOAD(c + i + k), VLOAD(c + i - k)),      \
                             VSUB(VLOAD(c + i + k * ld),                    \
                                  VLOAD(c + i - k * ld)));                  \
                acc = VADD(acc, VMUL(VSET1(1.0 / (2.0 * (double)k * R)),    \
                                     d));                                   \
            }                                                               \
            VSTREAM(o + i, acc);                                            \
        }                                                                   \
        for (; i < n; i++)                                                  \
            BL_STENCIL_POINT(R, c, i, ld, o[i]);                            \
    }

BL_STENCIL_ROW_NT(1)
BL_STENCIL_ROW_NT(2)
BL_STENCIL_ROW_NT(3)
BL_STENCIL_ROW_NT(4)
#endif

static row_fn row_for(int radius, int streaming)
{
    static const row_fn fns[] = {row_r1, row_r1, row_r2, row_r3, row_r4};
#ifdef VW
    static const row_fn nt[] = {row_nt_r1, row_nt_r1, row_nt_r2, row_nt_r3,
                                row_nt_r4};
    if (streaming)
        return nt[radius >= 1 && radius <= 4 ? radius : 1];
#else
    (void)streaming;
#endif
    return fns[radius >= 1 && radius <= 4 ? radius : 1];
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

void bl_stencil_sweep_ex(const double *in, double *out, long ld, int radius,
                         bl_stencil_rect r, const bl_stencil_sweep_cfg *cfg)
{
    const long n = r.i1 - r.i0, nrows = r.j1 - r.j0;
    const int streaming = cfg && cfg->streaming &&
                          n >= BL_STENCIL_STREAM_MIN_WIDTH;
    const long strip = cfg && cfg->block_cols > 0 ? cfg->block_cols : n;
    const row_fn row = row_for(radius, streaming);
    if (n <= 0 || nrows <= 0)
        return;
    /* Column strips (one strip when no blocking), each swept over this
     * thread's rows: the rows schedule(static) would give it
     * (bl_static_range), as in the first touch, so a thread writes the
     * pages it first-touched. */
#pragma omp parallel
    {
        size_t lo, hi;
        bl_static_range((size_t)nrows, omp_get_num_threads(),
                        omp_get_thread_num(), &lo, &hi);
        for (long i0 = r.i0; i0 < r.i1; i0 += strip) {
            long w = r.i1 - i0 < strip ? r.i1 - i0 : strip;
            for (long j = r.j0 + (long)lo; j < r.j0 + (long)hi; j++)
                row(in + j * ld + i0, out + j * ld + i0, w, ld);
        }
#ifdef VW
        /* Streaming stores are weakly ordered: each thread fences its own
         * before the region's closing barrier, so the next step and the
         * halo exchange read them. */
        if (streaming)
            SFENCE();
#endif
    }
}

void bl_stencil_sweep(const double *in, double *out, long ld, int radius,
                      bl_stencil_rect r)
{
    bl_stencil_sweep_ex(in, out, ld, radius, r, NULL);
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
