#include "lu/lu_layout.h"

long bl_lu_layout_count(long n, int nb, int me, int nprocs)
{
    long nblocks = n / nb, extra = n % nb;
    long count = (nblocks / nprocs) * nb;
    long rest = nblocks % nprocs;
    if (me < rest)
        count += nb;
    else if (me == rest)
        count += extra;
    return count;
}

int bl_lu_layout_owner(const bl_lu_layout *l, long g)
{
    return (int)((g / l->nb) % l->nprocs);
}

long bl_lu_layout_g2l(const bl_lu_layout *l, long g)
{
    long block = g / l->nb;
    return (block / l->nprocs) * l->nb + g % l->nb;
}

long bl_lu_layout_l2g(const bl_lu_layout *l, long li)
{
    long lblock = li / l->nb;
    return (lblock * l->nprocs + l->me) * l->nb + li % l->nb;
}

long bl_lu_layout_first(const bl_lu_layout *l, long g)
{
    long block, lblocks;
    if (g >= l->n)
        return bl_lu_layout_count(l->n, l->nb, l->me, l->nprocs);
    block = g / l->nb;
    /* local blocks of me that lie wholly before block */
    lblocks = block / l->nprocs + (block % l->nprocs > l->me ? 1 : 0);
    if (block % l->nprocs == l->me)
        return lblocks * l->nb + g % l->nb;
    return lblocks * l->nb;
}

int bl_lu_layout_grid(int nranks, const long *grid, int dims, int *p, int *q,
                      bl_err *err)
{
    if (dims == 0) {
        int best = 1;
        for (int d = 1; (long)d * d <= nranks; d++)
            if (nranks % d == 0)
                best = d;
        *p = best;
        *q = nranks / best;
        return 0;
    }
    if (dims != 2)
        return bl_err_set(err, "--grid: lu takes a process grid PxQ (e.g. "
                          "2x2), got %d numbers", dims);
    if (grid[0] < 1 || grid[1] < 1)
        return bl_err_set(err, "--grid: %ldx%ld: P and Q must be at least 1",
                          grid[0], grid[1]);
    /* each factor must fit before the product is formed (no overflow) */
    if (grid[0] > nranks || grid[1] > nranks || grid[0] * grid[1] != nranks)
        return bl_err_set(err, "--grid: %ldx%ld does not match the run's %d "
                          "ranks; P x Q must equal the rank count",
                          grid[0], grid[1], nranks);
    *p = (int)grid[0];
    *q = (int)grid[1];
    return 0;
}
