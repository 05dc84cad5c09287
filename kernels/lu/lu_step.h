/* Private to the LU factorisation (lu_factor.c, lu_update.c): the panel of
 * one step, the trailing update with its row swaps, and the master
 * thread's time accounting. */
#ifndef BL_LU_STEP_H
#define BL_LU_STEP_H

#include "lu/lu_mat.h"
#include "sys_util.h"

/* what one factorisation step shares: the current panel */
typedef struct bl_lu_panel {
    long k0;        /* first global column (and row) of the panel */
    int jb;         /* its width */
    long lc;        /* its first local column (process column pc only) */
    int pc, rd;     /* owning process column, process row of the diagonal */
    long *ipiv;     /* jb global pivot rows */
    double *buf;    /* what is broadcast: [ipiv | L11 | local L21] */
    MPI_Request *req; /* its broadcast along the process row */
} bl_lu_panel;

/* Ends the master's current phase: the time since the last lap goes to
 * *phase. One clock reading ends one phase and starts the next, in whole
 * nanoseconds, so the phases of m->t tile the master's timeline exactly. */
static inline void bl_lu_lap(bl_lu_mat *m, int64_t *phase)
{
    int64_t now = bl_now_ns();
    *phase += now - m->lap;
    m->lap = now;
}

/* The trailing update of one step with panel pn, on local columns
 * [cb, nloc): with P > 1 first the row swaps of all those columns (one
 * MPI_Allgatherv down the process column, which also gives every process
 * the rows of U), then per local column block the swaps (P = 1), U :=
 * L11^-1 U and A22 -= L21 U. */
typedef struct bl_lu_update {
    bl_lu_mat *m;
    const bl_lu_panel *pn;
    long cb;        /* first trailing local column (block-aligned) */
} bl_lu_update;

/* P > 1: the swaps and U gather for columns [u->cb, nloc). Collective over
 * the process column; master thread. No-op with P = 1. */
void bl_lu_update_swaps(const bl_lu_update *u);

/* One local block's share of the update (block lb within [from, nloc)).
 * timed: the caller is the master thread, whose phases are counted. */
void bl_lu_update_block(const bl_lu_update *u, long lb, long from, int timed);

/* Called by every thread of a parallel region: the blocks of [from, nloc),
 * each thread first its own (round-robin, as first touched), then what is
 * left of the others' (so a thread that was busy with the panel is helped).
 * m->claim must be zeroed before the region. */
void bl_lu_update_share(const bl_lu_update *u, long from);

#endif
