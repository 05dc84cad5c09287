/* Right-looking blocked LU with partial pivoting on the block-cyclic
 * [A | b], one NB-wide panel at a time:
 *   1. the process column owning the panel factorises it (recursively,
 *      DGEMM inside, pivot search with MPI_MAXLOC down the column);
 *   2. the panel (pivots, L11, L21) is broadcast along the process rows;
 *   3. every process applies the row swaps to its trailing columns; with
 *      P > 1 one MPI_Allgatherv down the process column both moves the
 *      swapped rows and gives every process the NB rows of U;
 *   4. U := L11^-1 U and the trailing update A22 -= L21 U, threads taking
 *      the local column blocks round-robin as in bl_lu_mat_generate.
 * Like HPL, swaps are not applied to the L columns left of the panel: the
 * solve needs only U and the transformed b.
 *
 * Look-ahead of depth 1, as in HPL: the process column that owns panel
 * k+1 first updates only panel k+1's columns with panel k, factorises
 * panel k+1 and starts its broadcast (MPI_Ibcast), and only then updates
 * the rest of its trailing matrix with panel k. The other process columns
 * post their side of that broadcast and update while it is in flight, so
 * with Q > 1 the panel is off the critical path instead of every other
 * column waiting for its factorisation. */
#include "lu/lu_step.h"

#include <math.h>
#include <string.h>

#include <omp.h>

#include "lu/dgemm_fallback.h"
#include "lu/lu_blas.h"

enum { BL_LU_LEAF = 16 };

typedef bl_lu_panel panel;

static double *col_ptr(bl_lu_mat *m, long lr, long g)
{
    return &BL_LU_A(m, lr, bl_lu_layout_g2l(&m->cols, g));
}

/* Swaps global rows j and g across the panel's jb columns. */
static void swap_panel_rows(bl_lu_mat *m, const panel *pn, long j, long g)
{
    int rj = bl_lu_layout_owner(&m->rows, j);
    int rg = bl_lu_layout_owner(&m->rows, g);
    double *tmp = m->wbuf + (size_t)m->nb * m->nb;
    long lj, lg;
    if (rj == rg) {
        if (m->myrow != rj)
            return;
        lj = bl_lu_layout_g2l(&m->rows, j);
        lg = bl_lu_layout_g2l(&m->rows, g);
        for (int c = 0; c < pn->jb; c++) {
            double t = BL_LU_A(m, lj, pn->lc + c);
            BL_LU_A(m, lj, pn->lc + c) = BL_LU_A(m, lg, pn->lc + c);
            BL_LU_A(m, lg, pn->lc + c) = t;
        }
        return;
    }
    if (m->myrow != rj && m->myrow != rg)
        return;
    lj = bl_lu_layout_g2l(&m->rows, m->myrow == rj ? j : g);
    for (int c = 0; c < pn->jb; c++)
        tmp[c] = BL_LU_A(m, lj, pn->lc + c);
    bl_lu_sent_to(m, m->myrow == rj ? rg : rj, m->mycol,
                  (double)pn->jb * sizeof(double));
    MPI_Sendrecv_replace(tmp, pn->jb, MPI_DOUBLE, m->myrow == rj ? rg : rj, 0,
                         m->myrow == rj ? rg : rj, 0, m->colcomm,
                         MPI_STATUS_IGNORE);
    for (int c = 0; c < pn->jb; c++)
        BL_LU_A(m, lj, pn->lc + c) = tmp[c];
}

/* Unblocked LU of panel columns [j0, j0 + w): the pivot search spans the
 * whole process column, the swap the whole panel width. */
static void leaf(bl_lu_mat *m, panel *pn, long j0, int w)
{
    double *drow = m->wbuf + (size_t)m->nb * m->nb + m->nb;
    for (long j = j0; j < j0 + w; j++) {
        long lr0 = bl_lu_layout_first(&m->rows, j);
        long lr1 = bl_lu_layout_first(&m->rows, j + 1);
        double *cj = col_ptr(m, 0, j);
        int nrest = (int)(j0 + w - j);
        struct { double v; int i; } best = {-1.0, 0}, piv;
        for (long r = lr0; r < m->mloc; r++)
            if (fabs(cj[r]) > best.v) {
                best.v = fabs(cj[r]);
                best.i = (int)m->grow[r];
            }
        if (m->p > 1) {
            int size = 0;
            MPI_Type_size(MPI_DOUBLE_INT, &size);
            bl_lu_sent_share_col(m, size);
            MPI_Allreduce(&best, &piv, 1, MPI_DOUBLE_INT, MPI_MAXLOC,
                          m->colcomm);
        } else
            piv = best;
        if (!(piv.v > 0.0)) {
            /* exactly zero column below the diagonal: singular; carry on
             * without swapping, as LAPACK's dgetrf does */
            if (m->info < 0)
                m->info = j;
            pn->ipiv[j - pn->k0] = j;
            continue;
        }
        pn->ipiv[j - pn->k0] = piv.i;
        if (piv.i != j)
            swap_panel_rows(m, pn, j, piv.i);
        if (m->myrow == bl_lu_layout_owner(&m->rows, j))
            for (int c = 0; c < nrest; c++)
                drow[c] = col_ptr(m, lr0, j + c)[0];
        if (m->p > 1) {
            bl_lu_sent_bcast_col(m, bl_lu_layout_owner(&m->rows, j),
                                 (double)nrest * sizeof(double));
            MPI_Bcast(drow, nrest, MPI_DOUBLE,
                      bl_lu_layout_owner(&m->rows, j), m->colcomm);
        }
        for (long r = lr1; r < m->mloc; r++)
            cj[r] /= drow[0];
        for (int c = 1; c < nrest; c++)
            bl_lu_sub_scaled(col_ptr(m, lr1, j + c), cj + lr1, drow[c],
                             m->mloc - lr1);
    }
}

/* Recursive panel LU of columns [j0, j0 + w): left half, U12, A22 update
 * with DGEMM, right half. Most of the panel's flops go through DGEMM. */
static void panel_rec(bl_lu_mat *m, panel *pn, long j0, int w)
{
    int w1, w2;
    double *u12;
    long ldu, lr, lr2;
    if (w <= BL_LU_LEAF) {
        leaf(m, pn, j0, w);
        return;
    }
    w1 = w / 2;
    w2 = w - w1;
    panel_rec(m, pn, j0, w1);
    lr = bl_lu_layout_first(&m->rows, j0);
    if (m->myrow == pn->rd)
        bl_lu_dtrsm_lower_unit(w1, w2, col_ptr(m, lr, j0), (int)m->lld,
                               col_ptr(m, lr, j0 + w1), (int)m->lld);
    u12 = col_ptr(m, lr, j0 + w1);
    ldu = m->lld;
    if (m->p > 1) {
        /* the rows of U12 live on the diagonal's process row only */
        if (m->myrow == pn->rd)
            for (int c = 0; c < w2; c++)
                memcpy(m->wbuf + (size_t)c * w1, u12 + (size_t)c * m->lld,
                       (size_t)w1 * sizeof(double));
        bl_lu_sent_bcast_col(m, pn->rd, (double)w1 * w2 * sizeof(double));
        MPI_Bcast(m->wbuf, w1 * w2, MPI_DOUBLE, pn->rd, m->colcomm);
        u12 = m->wbuf;
        ldu = w1;
    }
    lr2 = bl_lu_layout_first(&m->rows, j0 + w1);
    bl_lu_dgemm((int)(m->mloc - lr2), w2, w1, -1.0, col_ptr(m, lr2, j0),
                (int)m->lld, u12, (int)ldu, col_ptr(m, lr2, j0 + w1),
                (int)m->lld);
    panel_rec(m, pn, j0 + w1, w2);
}

/* Panel buffer: [ipiv (jb) | L11 (jb x jb) | L21 (local rows, jb cols)]. */
static long panel_count(const bl_lu_mat *m, const panel *pn)
{
    long lr2 = bl_lu_layout_first(&m->rows, pn->k0 + pn->jb);
    return pn->jb + (long)pn->jb * pn->jb + (m->mloc - lr2) * pn->jb;
}

static void pack_panel(bl_lu_mat *m, const panel *pn)
{
    int jb = pn->jb;
    double *l11 = pn->buf + jb, *l21 = l11 + (size_t)jb * jb;
    long lr = bl_lu_layout_first(&m->rows, pn->k0);
    long lr2 = bl_lu_layout_first(&m->rows, pn->k0 + jb), m2 = m->mloc - lr2;
    for (int i = 0; i < jb; i++)
        pn->buf[i] = (double)pn->ipiv[i];
    if (m->myrow == pn->rd)
        for (int c = 0; c < jb; c++)
            memcpy(l11 + (size_t)c * jb, &BL_LU_A(m, lr, pn->lc + c),
                   (size_t)jb * sizeof(double));
    if (m->p > 1) {
        bl_lu_sent_bcast_col(m, pn->rd, (double)jb * jb * sizeof(double));
        MPI_Bcast(l11, jb * jb, MPI_DOUBLE, pn->rd, m->colcomm);
    }
    for (int c = 0; c < jb; c++)
        memcpy(l21 + (size_t)c * m2, &BL_LU_A(m, lr2, pn->lc + c),
               (size_t)m2 * sizeof(double));
}

static void unpack_ipiv(panel *pn)
{
    for (int i = 0; i < pn->jb; i++)
        pn->ipiv[i] = (long)pn->buf[i];
}

static void panel_init(const bl_lu_mat *m, panel *pn, long k0, long *ipiv,
                       double *buf, MPI_Request *req)
{
    pn->k0 = k0;
    pn->jb = (int)(m->n - k0 < m->nb ? m->n - k0 : m->nb);
    pn->pc = bl_lu_layout_owner(&m->cols, k0);
    pn->rd = bl_lu_layout_owner(&m->rows, k0);
    pn->lc = m->mycol == pn->pc ? bl_lu_layout_g2l(&m->cols, k0) : 0;
    pn->ipiv = ipiv;
    pn->buf = buf;
    pn->req = req;
}

/* The panel's buffer last carried panel k-2, whose broadcast this rank
 * may have sent and not completed (see panel_bcast_wait). */
static void buffer_free(bl_lu_mat *m, panel *pn)
{
    MPI_Wait(pn->req, MPI_STATUS_IGNORE);
    bl_lu_lap(m, &m->t.wait);
}

/* On the owning process column: factorise and pack the panel. */
static void panel_factor(bl_lu_mat *m, panel *pn, int test_hook)
{
    panel_rec(m, pn, pn->k0, pn->jb);
    /* BL_LU_HOOK_WRONG_PIVOT: the trailing matrix gets a different swap than the
     * panel, a wrong pivot the residual check must catch */
    if (test_hook == BL_LU_HOOK_WRONG_PIVOT && pn->k0 == 0 && m->n > 1)
        pn->ipiv[0] = (pn->ipiv[0] + 1) % m->n;
    bl_lu_lap(m, &m->t.panel);
    buffer_free(m, pn);
    pack_panel(m, pn);
    bl_lu_lap(m, &m->t.panel);
}

/* Every process of the row posts the broadcast; the owner's returns at
 * once and the owner goes on updating. */
static void panel_bcast_start(bl_lu_mat *m, panel *pn)
{
    buffer_free(m, pn);
    if (m->q > 1) {
        bl_lu_sent_bcast_row(m, pn->pc,
                             (double)panel_count(m, pn) * sizeof(double));
        MPI_Ibcast(pn->buf, (int)panel_count(m, pn), MPI_DOUBLE, pn->pc,
                   m->rowcomm, pn->req);
    }
    bl_lu_lap(m, &m->t.bcast);
}

/* The owner already has the panel: it does not wait for its own send to
 * complete (that would tie it to the slowest receiver at every step); it
 * completes it before the buffer carries the panel after next.
 * Only a test here, to let the broadcast progress. */
static void panel_bcast_wait(bl_lu_mat *m, panel *pn)
{
    if (m->mycol == pn->pc) {
        int done;
        MPI_Test(pn->req, &done, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(pn->req, MPI_STATUS_IGNORE);
        bl_lu_lap(m, &m->t.wait);
    }
    unpack_ipiv(pn);
    bl_lu_lap(m, &m->t.bcast);
}

/* Step k's trailing update with panel cur, and (when this process column
 * owns it) panel k+1, overlapped inside the rank: the master updates panel
 * k+1's columns, factorises panel k+1 (with one thread: its BLAS calls run
 * inside the parallel region) and starts its broadcast, while the other
 * threads update the rest of the trailing matrix; then the master joins
 * them. Without a next panel to factorise, every thread updates. */
static void step_update(bl_lu_mat *m, const panel *cur, panel *next,
                        int test_hook)
{
    long ltrail = bl_lu_layout_first(&m->cols, cur->k0 + cur->jb);
    long from = ltrail;
    bl_lu_update u = {m, cur, ltrail};
    bl_lu_update_swaps(&u);
    if (m->p > 1)
        bl_lu_lap(m, &m->t.swap);
    if (next && m->mycol == next->pc)
        /* panel k+1 lies in the first local block (with b when it is the
         * last, partial panel): the master updates that whole block */
        from = ltrail + m->nb;
    else if (next)
        panel_bcast_start(m, next); /* post this side of k+1's broadcast */
    memset(m->claim, 0, (size_t)m->threads * sizeof *m->claim);
#pragma omp parallel num_threads(m->threads)
    {
        if (omp_get_thread_num() == 0 && from > ltrail) {
            bl_lu_update_block(&u, ltrail / m->nb, ltrail, 1);
            panel_factor(m, next, test_hook);
            panel_bcast_start(m, next);
        }
        bl_lu_update_share(&u, from);
        if (omp_get_thread_num() == 0)
            bl_lu_lap(m, &m->t.update);
    }
    /* the master's wait for the others at the region's end */
    bl_lu_lap(m, &m->t.wait);
}

long bl_lu_factor(bl_lu_mat *m, int test_hook)
{
    long n = m->n, info;
    long ipiv[2][m->nb];
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    panel cur, next;
    memset(&m->t, 0, sizeof m->t);
    bl_lu_sent_reset(m);
    m->t0 = m->lap = bl_now_ns();
    m->info = -1;
    panel_init(m, &cur, 0, ipiv[0], m->pbuf[0], &req[0]);
    /* the first panel has nothing to overlap: the BLAS uses every thread */
    if (m->mycol == cur.pc)
        panel_factor(m, &cur, test_hook);
    panel_bcast_start(m, &cur);
    for (long k = 0; k * m->nb < n; k++) {
        long k1 = (k + 1) * m->nb;
        panel_bcast_wait(m, &cur);
        if (k1 >= n) {
            step_update(m, &cur, NULL, test_hook);
            break;
        }
        panel_init(m, &next, k1, ipiv[(k + 1) % 2], m->pbuf[(k + 1) % 2],
                   &req[(k + 1) % 2]);
        step_update(m, &cur, &next, test_hook);
        cur = next;
    }
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    info = m->info < 0 ? n : m->info;
    bl_lu_sent_share_all(m, sizeof info);
    MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_LONG, MPI_MIN, m->comm);
    bl_lu_lap(m, &m->t.wait);
    m->info = info < n ? info : -1;
    return m->info;
}
