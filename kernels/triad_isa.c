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
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}
