/* The LU kernel's distributed matrix and its operations: the N x (N+1)
 * augmented matrix [A | b] in a 2D block-cyclic layout over a P x Q grid,
 * the right-looking blocked factorisation with partial pivoting (b is
 * transformed along with A, as in HPL, so the solve is only U x = b'), the
 * back substitution, and HPL's scaled residual. All collective over the
 * communicator given to bl_lu_mat_init; MPI is called from the master
 * thread only (MPI_THREAD_FUNNELED is enough). */
#ifndef BL_LU_MAT_H
#define BL_LU_MAT_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "err.h"
#include "lu/lu_layout.h"

/* --test-hook values of the LU kernel: deliberate faults that verification
 * must catch (docs/kernels/lu.md). */
enum {
    BL_LU_HOOK_NONE = 0,
    BL_LU_HOOK_WRONG_PIVOT = 1,     /* the first panel's trailing matrix gets
                                     * a different row swap than the panel */
    BL_LU_HOOK_SINGULAR = 2,        /* the first column is zero */
};

typedef struct bl_lu_times {
    /* The master thread's timeline of one factorisation + solve, cut into
     * phases that do not overlap, in nanoseconds: they add up to `total`
     * exactly (each lap is one clock reading, lu_step.h). */
    int64_t panel;    /* panel factorisation, pivot search included */
    int64_t bcast;    /* panel broadcast along the process row: posting it,
                       * testing it, unpacking it */
    int64_t swap;     /* row swaps (and, P > 1, the U gather down the
                       * process column) */
    int64_t update;   /* triangular solve for U and DGEMM trailing update */
    int64_t wait;     /* idle: for another rank's panel, for a send buffer
                       * to be free, for the other threads at the end of a
                       * step's update, for the final pivot check */
    int64_t solve;    /* back substitution */
    int64_t total;    /* factorisation + solve: the last lap less t0 */
} bl_lu_times;

typedef struct bl_lu_mat {
    MPI_Comm comm, rowcomm, colcomm; /* rowcomm: my process row (Q ranks) */
    int p, q, myrow, mycol;
    long n;
    int nb;
    bl_lu_layout rows, cols;         /* rows over P of N, cols over Q of N+1 */
    long mloc, nloc, lld;            /* local rows, columns, leading dim */
    long nlblocks;                   /* local column blocks */
    long *grow, *gcol;               /* global index of each local row/col */
    double *a;                       /* lld x (nlblocks * nb), column-major */
    size_t a_bytes;
    double *x;                       /* the solution, N, on every rank */
    double *xl;                      /* x at my local columns */
    /* workspace; two panel buffers because with look-ahead panel k+1 is
     * broadcast while panel k still updates the trailing matrix */
    double *pbuf[2], *ubuf, *sbuf, *gbuf, *wbuf;
    long info;                       /* first exactly-zero pivot, or -1 */
    bl_lu_times t;
    int64_t t0;                      /* when bl_lu_factor started (ns) */
    int64_t lap;                     /* when the last phase of t ended */
    int threads;                     /* OpenMP threads of the update */
    long *claim;                     /* [threads]: next block of each
                                      * thread's share (lu_factor.c) */
    /* What this rank sent each rank of comm in the last factorisation +
     * solve (the bl_lu_sent_* calls beside every MPI call): payload bytes
     * and messages, [nranks]. */
    double *sent_bytes, *sent_msgs;
    int nranks;
} bl_lu_mat;

/* Traffic accounting, master thread only (where MPI is called). A
 * collective counts what its members need from this rank as sent to them
 * directly: a broadcast, the root to every other member; an allreduce or
 * allgather, this rank's part to every other member; a reduce, this rank's
 * part to the root; whatever algorithm the MPI library runs. */
void bl_lu_sent_reset(bl_lu_mat *m);
/* to the rank at (row, col) of the grid */
void bl_lu_sent_to(bl_lu_mat *m, int row, int col, double bytes);
/* a broadcast down my process column from process row `root` */
void bl_lu_sent_bcast_col(bl_lu_mat *m, int root, double bytes);
/* a broadcast along my process row from process column `root` */
void bl_lu_sent_bcast_row(bl_lu_mat *m, int root, double bytes);
/* a broadcast over comm from rank `root` */
void bl_lu_sent_bcast_all(bl_lu_mat *m, int root, double bytes);
/* my part of an allreduce / allgather down my process column */
void bl_lu_sent_share_col(bl_lu_mat *m, double bytes);
/* my part of an allreduce over comm */
void bl_lu_sent_share_all(bl_lu_mat *m, double bytes);

/* The block size the lu kernel takes for order n when --nb is not given. */
int bl_lu_default_nb(long n);

/* Bytes one rank at grid position (myrow, mycol) allocates: for checking
 * that the run fits before allocating anything. */
size_t bl_lu_mat_bytes(long n, int nb, int p, int q, int myrow, int mycol);

/* Collective. Builds the grid (rank = myrow * q + mycol) and allocates
 * without touching the matrix. Returns 0, or -1 with err. */
int bl_lu_mat_init(bl_lu_mat *m, MPI_Comm comm, long n, int nb, int p, int q,
                   bl_err *err);
void bl_lu_mat_free(bl_lu_mat *m);

/* Writes [A | b] from the seed. Threads take the local column blocks
 * round-robin (schedule(static, 1)), the same blocks they later update;
 * with serial the master writes everything. */
void bl_lu_mat_generate(bl_lu_mat *m, uint64_t seed, int serial);

/* Collective: factorises in place and transforms b. test_hook
 * BL_LU_HOOK_WRONG_PIVOT applies a wrong row swap to the trailing matrix in the first panel (for tests).
 * Returns the first column with an exactly zero pivot, or -1 (on every
 * rank). */
long bl_lu_factor(bl_lu_mat *m, int test_hook);

/* Collective: back substitution after bl_lu_factor; fills m->x. */
void bl_lu_solve(bl_lu_mat *m);

/* Collective: regenerates A and b from the seed and returns HPL's scaled
 * residual ||Ax-b||oo / (eps * (||A||oo * ||x||oo + ||b||oo) * N), eps the
 * unit roundoff 2^-53; fills norms[0..3] = ||Ax-b||oo, ||A||oo, ||x||oo,
 * ||b||oo when norms is not NULL. */
double bl_lu_residual(const bl_lu_mat *m, uint64_t seed, double norms[4]);

/* Column-major element (local row r, local column c). */
#define BL_LU_A(m, r, c) ((m)->a[(size_t)(c) * (size_t)(m)->lld + (size_t)(r)])

#endif
