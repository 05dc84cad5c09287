/* The LU's own loops: the project's DGEMM, used by the LU kernel only when
 * CMake found no CBLAS (column-major C := C + alpha * A * B, A m x k, B k x
 * n, blocked for cache, OpenMP over column blocks of C when called outside
 * a parallel region and serial inside one; far from a tuned BLAS, correct
 * and simple), and the panel leaf's column update. One variant of each per
 * ISA level (lu_loops_isa.c); the functions without a suffix call the
 * level in use (isa.h). */
#ifndef BL_DGEMM_FALLBACK_H
#define BL_DGEMM_FALLBACK_H

#include "isa.h"

void bl_dgemm_fallback(int m, int n, int k, double alpha, const double *a,
                       int lda, const double *b, int ldb, double *c, int ldc);

/* y[i] -= x[i] * u for i in [0, n) */
void bl_lu_sub_scaled(double *restrict y, const double *restrict x, double u,
                      long n);

BL_ISA_DECLARE(void, bl_dgemm_fallback,
               (int m, int n, int k, double alpha, const double *a, int lda,
                const double *b, int ldb, double *c, int ldc));
BL_ISA_DECLARE(void, bl_lu_sub_scaled,
               (double *restrict y, const double *restrict x, double u,
                long n));

#endif
