/* The triad's timed loop a[i] = b[i] + s * c[i] over the n elements of
 * one thread's share (the caller runs one per thread, on the
 * first touch's shares); one variant per ISA level (triad_isa.c). */
#ifndef BL_TRIAD_LOOP_H
#define BL_TRIAD_LOOP_H

#include <stddef.h>

#include "isa.h"

/* The variant of the level in use (isa.h). */
void bl_triad_loop(double *restrict a, const double *restrict b,
                   const double *restrict c, size_t n, double s);

BL_ISA_DECLARE(void, bl_triad_loop,
               (double *restrict a, const double *restrict b,
                const double *restrict c, size_t n, double s));

#endif
