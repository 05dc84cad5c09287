/* The LU kernel's BLAS layer (CBLAS or the fallback) and the fallback
 * DGEMM itself, against plain triple loops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lu/dgemm_fallback.h"
#include "lu/lu_blas.h"
#include "lu/lu_matgen.h"

static double *random_matrix(long rows, long cols, uint64_t seed)
{
    double *m = malloc((size_t)(rows * cols) * sizeof(double));
    for (long j = 0; j < cols; j++)
        for (long i = 0; i < rows; i++)
            m[j * rows + i] = bl_lu_matgen(seed, i, j);
    return m;
}

/* C += alpha A B with leading dimensions larger than the sizes */
static void check_dgemm(void (*gemm)(int, int, int, double, const double *,
                                     int, const double *, int, double *, int),
                        int m, int n, int k)
{
    int lda = m + 3, ldb = k + 1, ldc = m + 2;
    double *a = random_matrix(lda, k, 1), *b = random_matrix(ldb, n, 2);
    double *c = random_matrix(ldc, n, 3), *want = random_matrix(ldc, n, 3);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int p = 0; p < k; p++)
                s += a[i + p * lda] * b[p + j * ldb];
            want[i + j * ldc] += -1.5 * s;
        }
    gemm(m, n, k, -1.5, a, lda, b, ldb, c, ldc);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            /* rows beyond m are padding and must stay as they were */
            assert_true(fabs(c[i + j * ldc] - want[i + j * ldc])
                        <= 1e-12 * (k + 1));
    free(a);
    free(b);
    free(c);
    free(want);
}

static void dgemm_fallback_matches_triple_loop(void **state)
{
    (void)state;
    check_dgemm(bl_dgemm_fallback, 1, 1, 1);
    check_dgemm(bl_dgemm_fallback, 37, 29, 13);
    /* more than one cache block in every dimension */
    check_dgemm(bl_dgemm_fallback, 300, 70, 260);
}

static void lu_dgemm_matches_triple_loop(void **state)
{
    (void)state;
    check_dgemm(bl_lu_dgemm, 37, 29, 13);
    check_dgemm(bl_lu_dgemm, 300, 70, 260);
}

static void lu_dtrsm_solves_unit_lower_system(void **state)
{
    int m = 23, n = 7, ld = 25;
    double *l = random_matrix(ld, m, 4), *x = random_matrix(ld, n, 5);
    double *b = calloc((size_t)(ld * n), sizeof(double));
    (void)state;
    /* b = L x with L's unit diagonal and strictly lower part only */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = x[i + j * ld];
            for (int p = 0; p < i; p++)
                s += l[i + p * ld] * x[p + j * ld];
            b[i + j * ld] = s;
        }
    bl_lu_dtrsm_lower_unit(m, n, l, ld, b, ld);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            assert_true(fabs(b[i + j * ld] - x[i + j * ld]) < 1e-10);
    free(l);
    free(x);
    free(b);
}

static void lu_dtrsv_solves_upper_system(void **state)
{
    int n = 19, ld = 20;
    double *u = random_matrix(ld, n, 6), x[19], b[19];
    (void)state;
    for (int i = 0; i < n; i++) {
        u[i + i * ld] += 2.0; /* well away from singular */
        x[i] = bl_lu_matgen(7, i, 0);
    }
    for (int i = 0; i < n; i++) {
        b[i] = 0.0;
        for (int p = i; p < n; p++)
            b[i] += u[i + p * ld] * x[p];
    }
    bl_lu_dtrsv_upper(n, u, ld, b);
    for (int i = 0; i < n; i++)
        assert_true(fabs(b[i] - x[i]) < 1e-12);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dgemm_fallback_matches_triple_loop),
        cmocka_unit_test(lu_dgemm_matches_triple_loop),
        cmocka_unit_test(lu_dtrsm_solves_unit_lower_system),
        cmocka_unit_test(lu_dtrsv_solves_upper_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
