#include "plan.h"

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
    memset(p, 0, sizeof *p);
}
