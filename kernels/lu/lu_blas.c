#include "lu/lu_blas.h"

#include <stdio.h>

#include "lu/dgemm_fallback.h"

#ifdef BL_HAVE_CBLAS
#include <cblas.h>
#endif

const char *bl_lu_blas_name(void)
{
#ifdef BL_HAVE_CBLAS
    static char name[160];
    if (name[0] == '\0')
        /* CMake accepts only OpenBLAS's OpenMP build as CBLAS */
        snprintf(name, sizeof name, "%s, OpenMP build", openblas_get_config());
    return name;
#else
    return "bindlab fallback DGEMM";
#endif
}

void bl_dgemm_fallback(int m, int n, int k, double alpha, const double *a,
                       int lda, const double *b, int ldb, double *c, int ldc)
{
    static void (*const fn[BL_ISA_COUNT])(int, int, int, double,
                                          const double *, int,
                                          const double *, int, double *,
                                          int) =
        BL_ISA_VARIANTS(bl_dgemm_fallback);
    fn[bl_isa_current()](m, n, k, alpha, a, lda, b, ldb, c, ldc);
}

void bl_lu_sub_scaled(double *restrict y, const double *restrict x, double u,
                      long n)
{
    static void (*const fn[BL_ISA_COUNT])(double *restrict,
                                          const double *restrict, double,
                                          long) =
        BL_ISA_VARIANTS(bl_lu_sub_scaled);
    fn[bl_isa_current()](y, x, u, n);
}

void bl_lu_dgemm(int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double *c, int ldc)
{
    if (m <= 0 || n <= 0 || k <= 0)
        return;
#ifdef BL_HAVE_CBLAS
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a,
                lda, b, ldb, 1.0, c, ldc);
#else
    bl_dgemm_fallback(m, n, k, alpha, a, lda, b, ldb, c, ldc);
#endif
}

void bl_lu_dtrsm_lower_unit(int m, int n, const double *l, int ldl, double *b,
                            int ldb)
{
    if (m <= 0 || n <= 0)
        return;
#ifdef BL_HAVE_CBLAS
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
                CblasUnit, m, n, 1.0, l, ldl, b, ldb);
#else
    for (int j = 0; j < n; j++) {
        double *bj = b + (long)j * ldb;
        for (int p = 0; p < m; p++) {
            const double *lp = l + (long)p * ldl;
            double s = bj[p];
            for (int i = p + 1; i < m; i++)
                bj[i] -= lp[i] * s;
        }
    }
#endif
}

void bl_lu_dtrsv_upper(int n, const double *u, int ldu, double *x)
{
    /* column-oriented back substitution: contiguous access to U */
    for (int j = n - 1; j >= 0; j--) {
        const double *uj = u + (long)j * ldu;
        x[j] /= uj[j];
        for (int i = 0; i < j; i++)
            x[i] -= uj[i] * x[j];
    }
}
