/* bindlab-dgemm: DGEMM's own rate on the cores of the run, for comparing
 * with the lu kernel. Every rank multiplies two N x N matrices with the
 * BLAS the lu kernel uses (bl_lu_dgemm: OpenBLAS's OpenMP build, or the
 * fallback), with the OMP_NUM_THREADS threads and binding it was launched
 * with; the rate is all ranks' flops over the slowest rank's time.
 *
 * With --getrf every rank instead factorises its own N x N matrix with the
 * BLAS library's own LAPACK dgetrf (OpenBLAS's: a recursive, threaded
 * panel), counted as 2/3 N^3 flops like the lu kernel: the library's LU on
 * the same cores and threads, with no communication between ranks, as a
 * second peer for the lu kernel beside DGEMM.
 *
 *   mpirun -np R bindlab-dgemm [--getrf] N [REPS]
 * prints: bindlab-dgemm: op=dgemm|getrf n=N ranks=R threads=T best_s=S
 *         gflops=G blas=...  */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <omp.h>

#include "kernel.h"
#include "lu/lu_blas.h"
#include "lu/lu_matgen.h"

#ifdef BL_HAVE_LAPACK_GETRF
/* LAPACK's Fortran entry, as OpenBLAS exports it (no LAPACKE needed) */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
             int *info);
#endif

static long parse_positive(const char *text, const char *what)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v < 1) {
        fprintf(stderr, "bindlab-dgemm: %s: '%s' is not a whole number >= 1\n",
                what, text);
        return -1;
    }
    return v;
}

/* A matrix that partial pivoting really pivots (fill()'s has rank 7):
 * the lu kernel's own generator, columns first touched by their thread. */
static void fill_random(double *m, long n, int rank)
{
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            m[j * n + i] = bl_lu_matgen((uint64_t)rank + 1, i, j);
}

/* One timed dgetrf of the n x n matrix a (overwritten); 0 on success. */
static int getrf_once(double *a, long n, int *ipiv, double *seconds)
{
#ifdef BL_HAVE_LAPACK_GETRF
    int nn = (int)n, info = 0;
    double t0 = MPI_Wtime();
    dgetrf_(&nn, &nn, a, &nn, ipiv, &info);
    *seconds = MPI_Wtime() - t0;
    return info;
#else
    (void)a, (void)n, (void)ipiv, (void)seconds;
    return -1;
#endif
}

/* each thread writes the columns it multiplies into (first touch) */
static void fill(double *m, long n, double v)
{
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            m[j * n + i] = v * (double)((i + 2 * j) % 7 - 3);
}

int main(int argc, char **argv)
{
    int rank, nranks, provided, getrf = 0, *ipiv = NULL;
    long n, reps = 3;
    size_t bytes;
    double *a, *b, *c, best = 1e300;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1 && strcmp(argv[1], "--getrf") == 0) {
        getrf = 1;
        argv++;
        argc--;
    }
    if (argc < 2 || argc > 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np R bindlab-dgemm [--getrf] N "
                    "[REPS]\n");
        MPI_Finalize();
        return 2;
    }
#ifndef BL_HAVE_LAPACK_GETRF
    if (getrf) {
        if (rank == 0)
            fprintf(stderr, "bindlab-dgemm: --getrf: this build has no "
                    "LAPACK (%s); build with OpenBLAS's OpenMP build "
                    "(libopenblas0-openmp) to compare with its dgetrf\n",
                    bl_lu_blas_name());
        MPI_Finalize();
        return 2;
    }
#endif
    n = parse_positive(argv[1], "N");
    if (argc == 3)
        reps = parse_positive(argv[2], "REPS");
    if (n < 0 || reps < 0 || n > 46340) {
        if (rank == 0 && n > 46340)
            fprintf(stderr, "bindlab-dgemm: N: %ld is too large (int BLAS "
                    "indexes; at most 46340)\n", n);
        MPI_Finalize();
        return 2;
    }
    bytes = (size_t)n * (size_t)n * sizeof(double);
    a = bl_untouched_alloc(bytes);
    b = bl_untouched_alloc(bytes);
    c = bl_untouched_alloc(bytes);
    ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!a || !b || !c || !ipiv) {
        fprintf(stderr, "bindlab-dgemm: rank %d: cannot map 3 x %zu bytes\n",
                rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fill(a, n, 0.25);
    fill(b, n, 0.5);
    fill(c, n, 0.0);
    for (long r = 0; r < reps; r++) {
        double t0, t;
        if (getrf) {
            int info;
            fill_random(a, n, rank);
            MPI_Barrier(MPI_COMM_WORLD);
            info = getrf_once(a, n, ipiv, &t);
            if (info != 0) {
                fprintf(stderr, "bindlab-dgemm: rank %d: dgetrf says info=%d "
                        "(%s)\n", rank, info, info > 0 ? "a zero pivot: the "
                        "matrix is singular" : "an argument was refused");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            bl_lu_dgemm((int)n, (int)n, (int)n, -1.0, a, (int)n, b, (int)n,
                        c, (int)n);
            t = MPI_Wtime() - t0;
        }
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best = t < best ? t : best;
    }
    if (rank == 0)
        printf("bindlab-dgemm: op=%s n=%ld ranks=%d threads=%d best_s=%.6f "
               "gflops=%.3f blas=%s\n", getrf ? "getrf" : "dgemm", n, nranks,
               omp_get_max_threads(), best,
               (getrf ? 2.0 / 3.0 : 2.0) * (double)n * n * n * nranks / best
                   / 1e9,
               bl_lu_blas_name());
    bl_untouched_free(a, bytes);
    bl_untouched_free(b, bytes);
    bl_untouched_free(c, bytes);
    free(ipiv);
    MPI_Finalize();
    return 0;
}
