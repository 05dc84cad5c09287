#include "lu/lu_mat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "kernel.h"
#include "lu/lu_matgen.h"

struct sizes {
    long mloc, nloc, lld, nlblocks;
    size_t a, pbuf, ubuf, sbuf, gbuf, wbuf;
};

static struct sizes sizes_of(long n, int nb, int p, int q, int myrow,
                             int mycol)
{
    struct sizes s;
    s.mloc = bl_lu_layout_count(n, nb, myrow, p);
    s.nloc = bl_lu_layout_count(n + 1, nb, mycol, q);
    s.lld = s.mloc > 0 ? s.mloc : 1;
    s.nlblocks = (s.nloc + nb - 1) / nb;
    /* whole blocks, so that every thread's share is a whole region */
    s.a = (size_t)s.lld * (size_t)(s.nlblocks * nb) * sizeof(double);
    /* one panel: pivots, L11, local L21; allocated twice (look-ahead) */
    s.pbuf = (size_t)nb + (size_t)nb * nb + (size_t)s.mloc * nb;
    /* the row swaps with P > 1 gather at most 2 NB rows of the trailing
     * columns (the NB pivot rows and the NB rows they replace) */
    s.ubuf = p > 1 ? (size_t)nb * s.nloc : 0;
    s.sbuf = p > 1 ? 2 * (size_t)nb * s.nloc : 0;
    s.gbuf = s.sbuf;
    s.wbuf = (size_t)nb * nb + 4 * (size_t)nb;
    return s;
}

size_t bl_lu_mat_bytes(long n, int nb, int p, int q, int myrow, int mycol)
{
    struct sizes s = sizes_of(n, nb, p, q, myrow, mycol);
    return s.a + (2 * s.pbuf + s.ubuf + s.sbuf + s.gbuf + s.wbuf + (size_t)n
                  + (size_t)s.nloc) * sizeof(double)
           + (size_t)(s.mloc + s.nloc) * sizeof(long);
}

static double *dalloc(size_t count)
{
    return malloc((count ? count : 1) * sizeof(double));
}

int bl_lu_mat_init(bl_lu_mat *m, MPI_Comm comm, long n, int nb, int p, int q,
                   bl_err *err)
{
    int rank;
    struct sizes s;
    memset(m, 0, sizeof *m);
    MPI_Comm_rank(comm, &rank);
    m->comm = comm;
    m->p = p;
    m->q = q;
    m->myrow = rank / q;
    m->mycol = rank % q;
    m->n = n;
    m->nb = nb;
    m->info = -1;
    m->rows = (bl_lu_layout){n, nb, p, m->myrow};
    m->cols = (bl_lu_layout){n + 1, nb, q, m->mycol};
    s = sizes_of(n, nb, p, q, m->myrow, m->mycol);
    m->mloc = s.mloc;
    m->nloc = s.nloc;
    m->lld = s.lld;
    m->nlblocks = s.nlblocks;
    /* MPI counts are int: the largest message is a gathered set of rows */
    if (s.pbuf > INT_MAX || s.gbuf > INT_MAX)
        return bl_err_set(err, "--n: %ld with --nb %d makes MPI messages of "
                          "more than %d elements; use a smaller N or NB or "
                          "more ranks", n, nb, INT_MAX);
    MPI_Comm_split(comm, m->myrow, m->mycol, &m->rowcomm);
    MPI_Comm_split(comm, m->mycol, m->myrow, &m->colcomm);
    m->a_bytes = s.a;
    m->a = bl_untouched_alloc(s.a);
    m->grow = malloc((size_t)(s.mloc + 1) * sizeof(long));
    m->gcol = malloc((size_t)(s.nloc + 1) * sizeof(long));
    m->x = dalloc((size_t)n);
    m->xl = dalloc((size_t)s.nloc);
    m->pbuf[0] = dalloc(s.pbuf);
    m->pbuf[1] = dalloc(s.pbuf);
    m->ubuf = dalloc(s.ubuf);
    m->sbuf = dalloc(s.sbuf);
    m->gbuf = dalloc(s.gbuf);
    m->wbuf = dalloc(s.wbuf);
    m->threads = omp_get_max_threads();
    m->claim = calloc((size_t)m->threads, sizeof *m->claim);
    MPI_Comm_size(comm, &m->nranks);
    m->sent_bytes = calloc((size_t)m->nranks, sizeof *m->sent_bytes);
    m->sent_msgs = calloc((size_t)m->nranks, sizeof *m->sent_msgs);
    if (!m->sent_bytes || !m->sent_msgs || !m->a || !m->grow || !m->gcol || !m->x || !m->xl || !m->pbuf[0]
        || !m->pbuf[1] || !m->ubuf || !m->sbuf || !m->gbuf || !m->wbuf
        || !m->claim) {
        bl_lu_mat_free(m);
        return bl_err_set(err, "--n: %ld: out of memory allocating this "
                          "rank's %zu-byte share", n,
                          bl_lu_mat_bytes(n, nb, p, q, rank / q, rank % q));
    }
    for (long r = 0; r < s.mloc; r++)
        m->grow[r] = bl_lu_layout_l2g(&m->rows, r);
    for (long c = 0; c < s.nloc; c++)
        m->gcol[c] = bl_lu_layout_l2g(&m->cols, c);
    return 0;
}

void bl_lu_sent_reset(bl_lu_mat *m)
{
    memset(m->sent_bytes, 0, (size_t)m->nranks * sizeof *m->sent_bytes);
    memset(m->sent_msgs, 0, (size_t)m->nranks * sizeof *m->sent_msgs);
}

void bl_lu_sent_to(bl_lu_mat *m, int row, int col, double bytes)
{
    int r = row * m->q + col;
    if (r == m->myrow * m->q + m->mycol || r < 0 || r >= m->nranks)
        return;
    m->sent_bytes[r] += bytes;
    m->sent_msgs[r] += 1;
}

void bl_lu_sent_bcast_col(bl_lu_mat *m, int root, double bytes)
{
    if (m->myrow == root)
        bl_lu_sent_share_col(m, bytes);
}

void bl_lu_sent_bcast_row(bl_lu_mat *m, int root, double bytes)
{
    if (m->mycol != root)
        return;
    for (int c = 0; c < m->q; c++)
        bl_lu_sent_to(m, m->myrow, c, bytes);
}

void bl_lu_sent_bcast_all(bl_lu_mat *m, int root, double bytes)
{
    if (m->myrow * m->q + m->mycol == root)
        bl_lu_sent_share_all(m, bytes);
}

void bl_lu_sent_share_col(bl_lu_mat *m, double bytes)
{
    for (int r = 0; r < m->p; r++)
        bl_lu_sent_to(m, r, m->mycol, bytes);
}

void bl_lu_sent_share_all(bl_lu_mat *m, double bytes)
{
    for (int r = 0; r < m->p; r++)
        for (int c = 0; c < m->q; c++)
            bl_lu_sent_to(m, r, c, bytes);
}

void bl_lu_mat_free(bl_lu_mat *m)
{
    if (m->rowcomm != MPI_COMM_NULL && m->rowcomm)
        MPI_Comm_free(&m->rowcomm);
    if (m->colcomm != MPI_COMM_NULL && m->colcomm)
        MPI_Comm_free(&m->colcomm);
    bl_untouched_free(m->a, m->a_bytes);
    free(m->grow);
    free(m->gcol);
    free(m->x);
    free(m->xl);
    free(m->pbuf[0]);
    free(m->pbuf[1]);
    free(m->ubuf);
    free(m->sbuf);
    free(m->gbuf);
    free(m->wbuf);
    free(m->sent_bytes);
    free(m->sent_msgs);
    free(m->claim);
    memset(m, 0, sizeof *m);
}

static void generate_block(bl_lu_mat *m, uint64_t seed, long lb)
{
    long c0 = lb * m->nb, c1 = c0 + m->nb;
    for (long c = c0; c < c1; c++) {
        double *col = &BL_LU_A(m, 0, c);
        if (c >= m->nloc) {
            /* padding up to a whole block: touched by its owner too */
            memset(col, 0, (size_t)m->lld * sizeof(double));
            continue;
        }
        for (long r = 0; r < m->mloc; r++)
            col[r] = bl_lu_matgen(seed, m->grow[r], m->gcol[c]);
    }
}

void bl_lu_mat_generate(bl_lu_mat *m, uint64_t seed, int serial)
{
    long nlb = m->nlblocks;
    /* Round-robin blocks: the trailing update shrinks from the left, so a
     * blocked split would leave the owners of the left columns idle. */
#pragma omp parallel for schedule(static, 1) if (!serial)
    for (long lb = 0; lb < nlb; lb++)
        generate_block(m, seed, lb);
}
