/* The stencil's compute loops, compiled once per ISA level (isa.h). One set of row functions per radius, so
 * that the radius is a compile-time constant: the k loops unroll, the
 * weights fold into constants, and the i loop is a branch-free vector loop
 * over contiguous memory (2R + 1 row streams, one of them the output).
 *
 * With x86 vector intrinsics (SSE2, AVX or AVX-512: the widest of the
 * level this copy is compiled for) the rows go BL_STENCIL_PASS_ROWS at a time: for each vector of
 * columns, the pass computes that vector in each of its rows before moving
 * on. The rows of a pass share 2R of their 2R + 1 input rows, so the lines
 * that come from L2 are fetched once per pass instead of once per row, and
 * each row's leading input row (the one not read before, coming from
 * memory) is prefetched a fixed distance ahead. Measured on a 2-core
 * AVX-512 VM at grid 8000, r = 2 (CPU time of the sweep alone): one row at
 * a time with no prefetch moved 0.54-0.57 of the triad's bytes per
 * second, 4 rows a pass with the prefetch 0.98-1.01 (bench/README.md).
 *
 * Two store kinds, each its own function: normal stores, and streaming
 * (non-temporal) stores, where the output line is not read before it is
 * written (no write-allocate), so a point moves 16 bytes (read the input,
 * write the output) instead of 24. A scalar head up to the vector
 * alignment and a scalar tail use normal stores. The arithmetic is the
 * same in every variant and in the same order (no fused multiply-add:
 * C17 mode contracts nothing), so the answer is bit-identical.
 *
 * Without x86 intrinsics, one row at a time in `omp simd` loops that the
 * compiler vectorises. */
#include "stencil/stencil_rows.h"

#include <stdint.h>

#include "isa_level.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define VW 8
typedef __m512d vec;
#define VLOAD(p) _mm512_loadu_pd(p)
#define VSET1(x) _mm512_set1_pd(x)
#define VADD(a, b) _mm512_add_pd(a, b)
#define VSUB(a, b) _mm512_sub_pd(a, b)
#define VMUL(a, b) _mm512_mul_pd(a, b)
#define VSTORE(p, v) _mm512_store_pd(p, v)
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
#define VSTORE(p, v) _mm256_store_pd(p, v)
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
#define VSTORE(p, v) _mm_store_pd(p, v)
#define VSTREAM(p, v) _mm_stream_pd(p, v)
#define SFENCE() _mm_sfence()
#endif

#ifdef VW
#define PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#endif

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

#ifdef VW
/* Rows per pass, and how far ahead (in points) each row's leading input
 * row is prefetched: 1 KiB, measured best of 128-2048 points at r = 2. */
#define BL_STENCIL_PASS_ROWS 4
#define BL_STENCIL_PREFETCH_AHEAD 128

/* BL_STENCIL_POINT for VW points at once, in the same order. */
#define BL_STENCIL_VPOINT(R, c, ld, acc)                                    \
    do {                                                                    \
        acc = VLOAD(c);                                                     \
        for (long k = 1; k <= (R); k++) {                                   \
            vec d_ = VADD(VSUB(VLOAD((c) + k), VLOAD((c) - k)),             \
                          VSUB(VLOAD((c) + k * (ld)),                       \
                               VLOAD((c) - k * (ld))));                     \
            acc = VADD(acc, VMUL(VSET1(1.0 / (2.0 * (double)k * (R))),      \
                                 d_));                                      \
        }                                                                   \
    } while (0)

/* P rows (P a constant at each call) that share one alignment: a scalar
 * head up to the first output address aligned to a whole vector (aligned
 * and streaming stores need it), the vector body P rows at a time, a
 * scalar tail. Row q's leading input row is c + (q + R)*ld: prefetched. */
#define BL_STENCIL_PASS(R, STORE, c, o, n, ld, P)                           \
    do {                                                                    \
        long i = 0;                                                         \
        for (; i < (n) && ((uintptr_t)((o) + i) % (VW * sizeof(double)));  \
             i++)                                                           \
            for (int q = 0; q < (P); q++)                                   \
                BL_STENCIL_POINT(R, (c) + q * (ld), i, ld,                  \
                                 (o)[q * (ld) + i]);                        \
        for (; i + VW <= (n); i += VW)                                      \
            _Pragma("GCC unroll 4")                                         \
            for (int q = 0; q < (P); q++) {                                 \
                vec acc;                                                    \
                PREFETCH((c) + (q + (R)) * (ld) + i +                       \
                         BL_STENCIL_PREFETCH_AHEAD);                        \
                BL_STENCIL_VPOINT(R, (c) + q * (ld) + i, ld, acc);          \
                STORE((o) + q * (ld) + i, acc);                             \
            }                                                               \
        for (; i < (n); i++)                                                \
            for (int q = 0; q < (P); q++)                                   \
                BL_STENCIL_POINT(R, (c) + q * (ld), i, ld,                  \
                                 (o)[q * (ld) + i]);                        \
    } while (0)

/* Passes of BL_STENCIL_PASS_ROWS rows when all rows share the vector
 * alignment (ld a multiple of VW, as the kernel pads it), single rows for
 * the rest. */
#define BL_STENCIL_ROWS(R, NAME, STORE)                                     \
    static void NAME(const double *restrict c, double *restrict o, long n, \
                     long ld, long nrows)                                   \
    {                                                                       \
        long j = 0;                                                         \
        if (ld % VW == 0)                                                   \
            for (; j + BL_STENCIL_PASS_ROWS <= nrows;                       \
                 j += BL_STENCIL_PASS_ROWS)                                 \
                BL_STENCIL_PASS(R, STORE, c + j * ld, o + j * ld, n, ld,    \
                                BL_STENCIL_PASS_ROWS);                      \
        for (; j < nrows; j++)                                              \
            BL_STENCIL_PASS(R, STORE, c + j * ld, o + j * ld, n, ld, 1);    \
    }

BL_STENCIL_ROWS(1, rows_r1, VSTORE)
BL_STENCIL_ROWS(2, rows_r2, VSTORE)
BL_STENCIL_ROWS(3, rows_r3, VSTORE)
BL_STENCIL_ROWS(4, rows_r4, VSTORE)
BL_STENCIL_ROWS(1, rows_nt_r1, VSTREAM)
BL_STENCIL_ROWS(2, rows_nt_r2, VSTREAM)
BL_STENCIL_ROWS(3, rows_nt_r3, VSTREAM)
BL_STENCIL_ROWS(4, rows_nt_r4, VSTREAM)

#else
/* No x86 intrinsics: one row at a time, vectorised by the compiler. */
#define BL_STENCIL_ROWS(R)                                                  \
    static void rows_r##R(const double *restrict c, double *restrict o,     \
                          long n, long ld, long nrows)                      \
    {                                                                       \
        for (long j = 0; j < nrows; j++) {                                  \
            const double *restrict cj = c + j * ld;                         \
            double *restrict oj = o + j * ld;                               \
            _Pragma("omp simd")                                             \
            for (long i = 0; i < n; i++) {                                  \
                double acc;                                                 \
                BL_STENCIL_POINT(R, cj, i, ld, acc);                        \
                oj[i] = acc;                                                \
            }                                                               \
        }                                                                   \
    }

BL_STENCIL_ROWS(1)
BL_STENCIL_ROWS(2)
BL_STENCIL_ROWS(3)
BL_STENCIL_ROWS(4)
#endif

#ifdef VW
static void fence(void)
{
    SFENCE();
}

const bl_stencil_rows *BL_ISA_FN(bl_stencil_rows_of)(void)
{
    static const bl_stencil_rows t = {
        .normal = {rows_r1, rows_r1, rows_r2, rows_r3, rows_r4},
        .streaming = {rows_nt_r1, rows_nt_r1, rows_nt_r2, rows_nt_r3,
                      rows_nt_r4},
        .fence = fence,
    };
    return &t;
}
#else
const bl_stencil_rows *BL_ISA_FN(bl_stencil_rows_of)(void)
{
    static const bl_stencil_rows t = {
        .normal = {rows_r1, rows_r1, rows_r2, rows_r3, rows_r4},
    };
    return &t;
}
#endif
