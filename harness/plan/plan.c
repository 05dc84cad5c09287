/* A plan's memory and its rank numbers. */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

void bl_plan_free(bl_plan *p)
{
    for (int r = 0; p->rank_pus && r < p->nranks; r++)
        hwloc_bitmap_free(p->rank_pus[r]);
    for (size_t t = 0; p->threads && t < p->nthreads; t++)
        hwloc_bitmap_free(p->threads[t].pus);
    free(p->rank_pus);
    free(p->rank_bound);
    free(p->threads);
    free(p->rank_node);
    free(p->rank_id);
    memset(p, 0, sizeof *p);
}

int bl_plan_rank_here(const bl_plan *p, int r)
{
    return r >= 0 && r < p->nranks && p->rank_pus &&
           !hwloc_bitmap_iszero(p->rank_pus[r]);
}

int bl_plan_rank_number(const bl_plan *p, int r)
{
    return p->rank_id ? p->rank_id[r] : r;
}
