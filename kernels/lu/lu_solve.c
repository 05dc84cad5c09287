/* Back substitution U x = b' after bl_lu_factor, and HPL's residual check
 * against a freshly generated A and b. */
#include "lu/lu_step.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lu/lu_blas.h"
#include "lu/lu_matgen.h"

/* Block rows from the bottom up: the process row holding block row R sums
 * b'_R - U(R, right of R) x over its columns, the sums meet on the
 * diagonal block's owner, which solves with U_RR and broadcasts x_R. */
void bl_lu_solve(bl_lu_mat *m)
{
    long n = m->n, lb = bl_lu_layout_first(&m->cols, n);
    double *part = m->wbuf, *sum = m->wbuf + m->nb;
    for (long r0 = (n - 1) / m->nb * m->nb; r0 >= 0; r0 -= m->nb) {
        int jb = (int)(n - r0 < m->nb ? n - r0 : m->nb);
        int rr = bl_lu_layout_owner(&m->rows, r0);
        int cc = bl_lu_layout_owner(&m->cols, r0);
        if (m->myrow == rr) {
            long lr = bl_lu_layout_g2l(&m->rows, r0);
            long c0 = bl_lu_layout_first(&m->cols, r0 + jb);
            memset(part, 0, (size_t)jb * sizeof(double));
            if (m->mycol == bl_lu_layout_owner(&m->cols, n))
                memcpy(part, &BL_LU_A(m, lr, lb), (size_t)jb * sizeof(double));
            if (lb > c0)
                bl_lu_dgemm(jb, 1, (int)(lb - c0), -1.0, &BL_LU_A(m, lr, c0),
                            (int)m->lld, m->xl + c0, (int)(lb - c0), part, jb);
            if (m->q > 1) {
                bl_lu_sent_to(m, rr, cc, (double)jb * sizeof(double));
                MPI_Reduce(part, sum, jb, MPI_DOUBLE, MPI_SUM, cc, m->rowcomm);
            } else
                memcpy(sum, part, (size_t)jb * sizeof(double));
            if (m->mycol == cc)
                bl_lu_dtrsv_upper(jb, &BL_LU_A(m, lr,
                                               bl_lu_layout_g2l(&m->cols, r0)),
                                  (int)m->lld, sum);
        }
        bl_lu_sent_bcast_all(m, rr * m->q + cc, (double)jb * sizeof(double));
        MPI_Bcast(sum, jb, MPI_DOUBLE, rr * m->q + cc, m->comm);
        memcpy(m->x + r0, sum, (size_t)jb * sizeof(double));
        if (m->mycol == cc)
            memcpy(m->xl + bl_lu_layout_g2l(&m->cols, r0), sum,
                   (size_t)jb * sizeof(double));
    }
    bl_lu_lap(m, &m->t.solve);
}

/* max that lets a NaN through, so that a NaN solution fails the check */
static double nanmax(double acc, double v)
{
    return v <= acc ? acc : v;
}

double bl_lu_residual(const bl_lu_mat *m, uint64_t seed, double norms[4])
{
    long n = m->n, ncols = bl_lu_layout_first(&m->cols, n);
    double *ax = calloc(2 * (size_t)n, sizeof(double)), *arow = ax + n;
    double rmax = 0.0, amax = 0.0, xmax = 0.0, bmax = 0.0, eps, scaled;
    if (!ax)
        return NAN;
    /* rows to threads: each thread sums whole rows, so no two write one
     * element of ax */
#pragma omp parallel for schedule(static)
    for (long r = 0; r < m->mloc; r++) {
        long gi = m->grow[r];
        double s = 0.0, sa = 0.0;
        for (long c = 0; c < ncols; c++) {
            double a = bl_lu_matgen(seed, gi, m->gcol[c]);
            s += a * m->x[m->gcol[c]];
            sa += fabs(a);
        }
        ax[gi] = s;
        arow[gi] = sa;
    }
    MPI_Allreduce(MPI_IN_PLACE, ax, 2 * (int)n, MPI_DOUBLE, MPI_SUM, m->comm);
    for (long i = 0; i < n; i++) {
        double b = bl_lu_matgen(seed, i, n);
        rmax = nanmax(rmax, fabs(ax[i] - b));
        amax = nanmax(amax, arow[i]);
        xmax = nanmax(xmax, fabs(m->x[i]));
        bmax = nanmax(bmax, fabs(b));
    }
    free(ax);
    /* HPL's eps is the unit roundoff, half of DBL_EPSILON */
    eps = DBL_EPSILON / 2;
    scaled = rmax / (eps * (amax * xmax + bmax) * (double)n);
    if (norms) {
        norms[0] = rmax;
        norms[1] = amax;
        norms[2] = xmax;
        norms[3] = bmax;
    }
    return scaled;
}
