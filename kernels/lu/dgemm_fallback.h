/* The project's own DGEMM, used by the LU kernel only when CMake found no
 * CBLAS: column-major C := C + alpha * A * B (A m x k, B k x n), blocked for
 * cache, OpenMP over column blocks of C when called outside a parallel
 * region and serial inside one. Far from a tuned BLAS; correct and simple. */
#ifndef BL_DGEMM_FALLBACK_H
#define BL_DGEMM_FALLBACK_H

void bl_dgemm_fallback(int m, int n, int k, double alpha, const double *a,
                       int lda, const double *b, int ldb, double *c, int ldc);

#endif
