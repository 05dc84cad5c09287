/* The few BLAS operations the LU kernel needs, column-major, int
 * dimensions. With BL_HAVE_CBLAS (CMake found OpenBLAS's OpenMP build) they
 * call CBLAS, whose threads are OpenMP threads and so follow OMP_PLACES and
 * OMP_PROC_BIND; otherwise the project's own code (dgemm_fallback.h). Called
 * inside an OpenMP parallel region, both run on the calling thread. */
#ifndef BL_LU_BLAS_H
#define BL_LU_BLAS_H

/* "OpenBLAS 0.3.21 (OpenMP)" or "bindlab fallback DGEMM": for records. */
const char *bl_lu_blas_name(void);

/* C := C + alpha * A * B; A m x k, B k x n, C m x n. */
void bl_lu_dgemm(int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double *c, int ldc);

/* B := L^-1 B, L m x m unit lower triangular (its upper part and diagonal
 * are not read), B m x n. */
void bl_lu_dtrsm_lower_unit(int m, int n, const double *l, int ldl, double *b,
                            int ldb);

/* x := U^-1 x, U n x n upper triangular with its diagonal (lower part not
 * read). */
void bl_lu_dtrsv_upper(int n, const double *u, int ldu, double *x);

#endif
