/* The LU's trailing update of one step: row swaps, U := L11^-1 U and
 * A22 -= L21 U, block by block, shared among the threads so that a thread
 * busy with the next panel (look-ahead, lu_factor.c) is helped by the
 * others. Like HPL, swaps are not applied to the L columns left of the
 * panel: the solve needs only U and the transformed b. */
#include "lu/lu_step.h"

#include <string.h>

#include <omp.h>

#include "lu/lu_blas.h"

/* U := L11^-1 U and A22 -= L21 U on local columns [c0, c1). */
static void update_cols(bl_lu_mat *m, const bl_lu_panel *pn, long c0,
                        long c1, double *u, long ldu)
{
    int jb = pn->jb;
    const double *l11 = pn->buf + jb, *l21 = l11 + (size_t)jb * jb;
    long lr2 = bl_lu_layout_first(&m->rows, pn->k0 + jb), m2 = m->mloc - lr2;
    bl_lu_dtrsm_lower_unit(jb, (int)(c1 - c0), l11, jb, u, (int)ldu);
    bl_lu_dgemm((int)m2, (int)(c1 - c0), jb, -1.0, l21, (int)(m2 ? m2 : 1),
                u, (int)ldu, &BL_LU_A(m, lr2, c0), (int)m->lld);
}

/* The part of local block lb inside local columns [cb, nloc): [*c0, *c1),
 * empty when *c0 >= *c1. */
static void block_cols(const bl_lu_mat *m, long lb, long cb, long *c0,
                       long *c1)
{
    *c0 = lb * m->nb;
    *c1 = *c0 + m->nb;
    if (*c1 > m->nloc)
        *c1 = m->nloc;
    if (*c0 < cb)
        *c0 = cb;
}

/* The rows a panel's swaps touch: the jb diagonal rows and their pivot
 * rows, sorted, each with the global row whose old content it receives. */
static int swap_set(const bl_lu_panel *pn, long *set, long *src)
{
    int ns = 0;
    for (int i = 0; i < pn->jb; i++)
        set[ns++] = pn->k0 + i;
    for (int i = 0; i < pn->jb; i++)
        if (pn->ipiv[i] >= pn->k0 + pn->jb) {
            int seen = 0;
            for (int s = pn->jb; s < ns && !seen; s++)
                seen = set[s] == pn->ipiv[i];
            if (!seen)
                set[ns++] = pn->ipiv[i];
        }
    for (int s = 0; s < ns; s++)
        src[s] = set[s];
    /* replay the swaps on the row labels */
    for (int i = 0; i < pn->jb; i++) {
        int a = i, b = -1;
        for (int s = 0; s < ns; s++)
            if (set[s] == pn->ipiv[i])
                b = s;
        long t = src[a];
        src[a] = src[b];
        src[b] = t;
    }
    return ns;
}

static int find_in(const long *set, int ns, long g)
{
    for (int s = 0; s < ns; s++)
        if (set[s] == g)
            return s;
    return -1;
}

/* P > 1, local columns [cb, nloc): every process of the column packs its
 * rows of the swap set; one Allgatherv gives everyone every such row; each
 * process then writes back its rows from their sources and keeps the jb
 * rows of U in ubuf (jb x (nloc - cb)). */
void bl_lu_update_swaps(const bl_lu_update *u)
{
    bl_lu_mat *m = u->m;
    const bl_lu_panel *pn = u->pn;
    long cb = u->cb, nt = m->nloc - cb;
    long set[2 * m->nb], src[2 * m->nb];
    int ns, mine = 0, off = 0;
    if (m->p == 1 || nt <= 0)
        return;
    ns = swap_set(pn, set, src);
    int counts[m->p], displs[m->p], pos[ns];
    for (int r = 0; r < m->p; r++) {
        int k = 0;
        for (int s = 0; s < ns; s++)
            if (bl_lu_layout_owner(&m->rows, set[s]) == r) {
                if (r == m->myrow) {
                    long lr = bl_lu_layout_g2l(&m->rows, set[s]);
                    for (long c = 0; c < nt; c++)
                        m->sbuf[(size_t)mine * nt + c] =
                            BL_LU_A(m, lr, cb + c);
                    mine++;
                }
                pos[s] = off + k++;
            }
        counts[r] = (int)(k * nt);
        displs[r] = (int)((long)off * nt);
        off += k;
    }
    bl_lu_sent_share_col(m, (double)mine * (double)nt * sizeof(double));
    MPI_Allgatherv(m->sbuf, (int)(mine * nt), MPI_DOUBLE, m->gbuf, counts,
                   displs, MPI_DOUBLE, m->colcomm);
    for (int s = 0; s < ns; s++) {
        const double *from = m->gbuf + (size_t)pos[find_in(set, ns, src[s])]
                                           * nt;
        if (s < pn->jb)
            for (long c = 0; c < nt; c++)
                m->ubuf[(size_t)c * pn->jb + s] = from[c];
        if (bl_lu_layout_owner(&m->rows, set[s]) == m->myrow) {
            long lr = bl_lu_layout_g2l(&m->rows, set[s]);
            for (long c = 0; c < nt; c++)
                BL_LU_A(m, lr, cb + c) = from[c];
        }
    }
}

void bl_lu_update_block(const bl_lu_update *u, long lb, long from, int timed)
{
    bl_lu_mat *m = u->m;
    const bl_lu_panel *pn = u->pn;
    int jb = pn->jb;
    long c0, c1;
    block_cols(m, lb, from, &c0, &c1);
    if (c0 >= c1)
        return;
    if (m->p == 1) {
        /* local rows are global rows: the swaps need no message */
        for (long c = c0; c < c1; c++) {
            double *col = &BL_LU_A(m, 0, c);
            for (int i = 0; i < jb; i++) {
                long r = pn->k0 + i, g = pn->ipiv[i];
                double t = col[r];
                col[r] = col[g];
                col[g] = t;
            }
        }
        if (timed)
            bl_lu_lap(m, &m->t.swap);
        update_cols(m, pn, c0, c1, &BL_LU_A(m, pn->k0, c0), m->lld);
    } else {
        long lr = bl_lu_layout_first(&m->rows, pn->k0);
        double *ub = m->ubuf + (size_t)(c0 - u->cb) * jb;
        update_cols(m, pn, c0, c1, ub, jb);
        /* the diagonal process row keeps U in place for the solve */
        if (m->myrow == pn->rd)
            for (long c = c0; c < c1; c++)
                memcpy(&BL_LU_A(m, lr, c), ub + (size_t)(c - c0) * jb,
                       (size_t)jb * sizeof(double));
    }
    if (timed)
        bl_lu_lap(m, &m->t.update);
}

/* The next unclaimed index in thread t's list of blocks. */
static long claim(long *next)
{
    long v;
#pragma omp atomic capture
    v = (*next)++;
    return v;
}

void bl_lu_update_share(const bl_lu_update *u, long from)
{
    bl_lu_mat *m = u->m;
    int tid = omp_get_thread_num(), nt = omp_get_num_threads();
    long lb0 = from / m->nb;
    if (nt > m->threads)
        nt = m->threads; /* never more than claim[] holds */
    if (tid >= nt)
        return;
    /* Thread t owns blocks t, t + T, ... (bl_lu_mat_generate). Its list
     * here: those at or after block lb0. */
    for (int d = 0; d < nt; d++) {
        int t = (tid + d) % nt;
        long first = lb0 + ((t - lb0 % nt) % nt + nt) % nt;
        for (;;) {
            long lb = first + claim(&m->claim[t]) * nt;
            if (lb >= m->nlblocks)
                break;
            bl_lu_update_block(u, lb, from, tid == 0);
        }
    }
}
