/* bindlab-dgemm: DGEMM's own rate on the cores of the run, for comparing
 * with the lu kernel. Every rank multiplies two N x N matrices with the
 * BLAS the lu kernel uses (bl_lu_dgemm: OpenBLAS's OpenMP build, or the
 * fallback), with the OMP_NUM_THREADS threads and binding it was launched
 * with; the rate is all ranks' flops over the slowest rank's time.
 *
 *   mpirun -np R bindlab-dgemm N [REPS]
 * prints: bindlab-dgemm: n=N ranks=R threads=T best_s=S gflops=G blas=...  */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <omp.h>

#include "kernel.h"
#include "lu/lu_blas.h"

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
    int rank, nranks, provided;
    long n, reps = 3;
    size_t bytes;
    double *a, *b, *c, best = 1e300;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2 || argc > 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np R bindlab-dgemm N [REPS]\n");
        MPI_Finalize();
        return 2;
    }
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
    if (!a || !b || !c) {
        fprintf(stderr, "bindlab-dgemm: rank %d: cannot map 3 x %zu bytes\n",
                rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fill(a, n, 0.25);
    fill(b, n, 0.5);
    fill(c, n, 0.0);
    for (long r = 0; r < reps; r++) {
        double t0, t;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        bl_lu_dgemm((int)n, (int)n, (int)n, -1.0, a, (int)n, b, (int)n, c,
                    (int)n);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best = t < best ? t : best;
    }
    if (rank == 0)
        printf("bindlab-dgemm: n=%ld ranks=%d threads=%d best_s=%.6f "
               "gflops=%.3f blas=%s\n", n, nranks, omp_get_max_threads(),
               best, 2.0 * (double)n * n * n * nranks / best / 1e9,
               bl_lu_blas_name());
    bl_untouched_free(a, bytes);
    bl_untouched_free(b, bytes);
    bl_untouched_free(c, bytes);
    MPI_Finalize();
    return 0;
}
