/* The LU kernel's input: element (i, j) of the N x (N+1) matrix [A | b]
 * (column N is b) is a pure function of (seed, i, j), uniform in
 * [-0.5, 0.5). Any rank can regenerate any element, which is how the
 * residual check gets A and b back after the factorisation overwrote them,
 * and the matrix does not depend on the process grid or the thread count. */
#ifndef BL_LU_MATGEN_H
#define BL_LU_MATGEN_H

#include <stdint.h>

double bl_lu_matgen(uint64_t seed, long i, long j);

#endif
