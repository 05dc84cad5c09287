/* 2D block-cyclic layout of the LU kernel, as in ScaLAPACK and HPL: global
 * row/column blocks of NB are dealt round-robin over a P x Q process grid,
 * ranks numbered row-major (rank = prow * Q + pcol). Within a process the
 * blocks it owns are stored contiguously in global order, so the local
 * indexes of the global indexes >= g form a suffix of the local range. */
#ifndef BL_LU_LAYOUT_H
#define BL_LU_LAYOUT_H

#include "err.h"

typedef struct bl_lu_layout {
    long n;          /* global extent */
    int nb;          /* block size */
    int nprocs;      /* processes along this dimension (P or Q) */
    int me;          /* this process's coordinate along it */
} bl_lu_layout;

/* How many of the n global indexes process `me` of nprocs holds. */
long bl_lu_layout_count(long n, int nb, int me, int nprocs);

/* Owner coordinate and local index of global index g. */
int bl_lu_layout_owner(const bl_lu_layout *l, long g);
long bl_lu_layout_g2l(const bl_lu_layout *l, long g);

/* Global index of local index li of process l->me. */
long bl_lu_layout_l2g(const bl_lu_layout *l, long li);

/* Number of local indexes of l->me whose global index is below g: where the
 * local suffix of global indexes >= g starts. */
long bl_lu_layout_first(const bl_lu_layout *l, long g);

/* The P x Q grid for nranks: given (grid[0] x grid[1]) or, when dims is 0,
 * the most square one with P <= Q. Returns 0, or -1 with err naming --grid. */
int bl_lu_layout_grid(int nranks, const long *grid, int dims, int *p, int *q,
                      bl_err *err);

#endif
