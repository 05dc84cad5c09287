/* The LU's own loops, compiled once per ISA level (isa.h): the DGEMM used
 * without a CBLAS, and the column update of the panel's leaf. Multiplies
 * and adds are never fused (-ffp-contract=off), so every level gives the
 * same bits. */
#include "lu/dgemm_fallback.h"

#include <omp.h>

#include "isa_level.h"

enum { BL_GEMM_MB = 256, BL_GEMM_KB = 128, BL_GEMM_NB = 32 };

/* One cache block: C[0:m,0:n] += alpha * A[0:m,0:k] * B[0:k,0:n]. The i loop
 * innermost runs down contiguous columns, which the compiler vectorises. */
static void block(int m, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double *c, int ldc)
{
    for (int j = 0; j < n; j++) {
        double *cj = c + (long)j * ldc;
        for (int p = 0; p < k; p++) {
            const double *ap = a + (long)p * lda;
            double s = alpha * b[p + (long)j * ldb];
            for (int i = 0; i < m; i++)
                cj[i] += ap[i] * s;
        }
    }
}

void BL_ISA_FN(bl_dgemm_fallback)(int m, int n, int k, double alpha, const double *a,
                                   int lda, const double *b, int ldb,
                                   double *c, int ldc)
{
    int nblocks = (n + BL_GEMM_NB - 1) / BL_GEMM_NB;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    /* Threads split the columns of C, so no two threads write one element;
     * inside the LU's own parallel loop this runs on the calling thread. */
#pragma omp parallel for schedule(static) if (!omp_in_parallel())
    for (int jb = 0; jb < nblocks; jb++) {
        int j0 = jb * BL_GEMM_NB;
        int nj = n - j0 < BL_GEMM_NB ? n - j0 : BL_GEMM_NB;
        for (int p0 = 0; p0 < k; p0 += BL_GEMM_KB) {
            int np = k - p0 < BL_GEMM_KB ? k - p0 : BL_GEMM_KB;
            for (int i0 = 0; i0 < m; i0 += BL_GEMM_MB) {
                int ni = m - i0 < BL_GEMM_MB ? m - i0 : BL_GEMM_MB;
                block(ni, nj, np, alpha, a + i0 + (long)p0 * lda, lda,
                      b + p0 + (long)j0 * ldb, ldb,
                      c + i0 + (long)j0 * ldc, ldc);
            }
        }
    }
}

void BL_ISA_FN(bl_lu_sub_scaled)(double *restrict y, const double *restrict x,
                                 double u, long n)
{
    for (long i = 0; i < n; i++)
        y[i] -= x[i] * u;
}
