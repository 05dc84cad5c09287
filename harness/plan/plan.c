/* A plan's memory, and the part of a plan of several nodes on one node. */
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
    memset(p, 0, sizeof *p);
}

int bl_plan_rank_here(const bl_plan *p, int r)
{
    return r >= 0 && r < p->nranks && p->rank_pus &&
           !hwloc_bitmap_iszero(p->rank_pus[r]);
}

static int on_node(const bl_plan *p, int r, int k)
{
    return !p->rank_node || p->rank_node[r] == k;
}

int bl_plan_node_part(const bl_plan *p, int k, bl_plan *out)
{
    size_t n = 0;

    memcpy(out, p, sizeof *out);
    out->rank_pus = NULL;
    out->rank_bound = NULL;
    out->threads = NULL;
    out->nthreads = 0;
    out->rank_node = NULL;
    out->nnodes = 1;
    if (p->nranks > 0) {
        out->rank_pus = calloc((size_t)p->nranks, sizeof *out->rank_pus);
        out->rank_bound = calloc((size_t)p->nranks, sizeof *out->rank_bound);
        if (!out->rank_pus || !out->rank_bound)
            goto oom;
    }
    for (int r = 0; r < p->nranks; r++) {
        out->rank_pus[r] = on_node(p, r, k) ? hwloc_bitmap_dup(p->rank_pus[r])
                                            : hwloc_bitmap_alloc();
        out->rank_bound[r] = p->rank_bound ? p->rank_bound[r] : 1;
        if (!out->rank_pus[r])
            goto oom;
    }
    if (p->nthreads &&
        !(out->threads = calloc(p->nthreads, sizeof *out->threads)))
        goto oom;
    for (size_t t = 0; t < p->nthreads; t++) {
        if (!on_node(p, p->threads[t].rank, k))
            continue;
        out->threads[n] = p->threads[t];
        if (!(out->threads[n].pus = hwloc_bitmap_dup(p->threads[t].pus)))
            goto oom;
        out->nthreads = ++n;
    }
    return 0;
oom:
    bl_plan_free(out);
    return -1;
}
