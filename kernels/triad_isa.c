/* The triad's timed loop, compiled once per ISA level (isa.h): the
 * compiler vectorises it to the level's width. One multiply and one add
 * per element, never fused (-ffp-contract=off), so every level gives the
 * same bits. */
#include "triad_loop.h"

#include "isa_level.h"

void BL_ISA_FN(bl_triad_loop)(double *restrict a, const double *restrict b,
                              const double *restrict c, size_t n, double s)
{
    /* one thread's share: the caller splits the arrays as the first
     * touch did, so each thread writes the pages it touched first */
    /* Below AVX-512 a vector is narrower than a cache line, and one
     * single thread's bandwidth depends on how many lines the core has in
     * flight: unrolled 4 times (as likwid-bench's stream_avx is), fewer
     * loop instructions per line leave room for more (bench/README.md:
     * avx2 0.955-0.966 -> 0.975-0.987 of likwid-bench, sse2 0.946 ->
     * 0.957). The AVX-512 loop already moves a line per iteration and
     * was no faster unrolled (0.998 -> 0.984). */
#if !defined(__AVX512F__)
#pragma GCC unroll 4
#endif
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}
