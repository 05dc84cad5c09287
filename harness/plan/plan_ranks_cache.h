/* The rank part of plans (Open MPI's mapper on the node, bl_plan_ranks),
 * computed once per distinct rank layout (np, map_by, bind_to, rank_by)
 * and reused for every thread setting of a sweep; the distinct ones are
 * launched in parallel, up to the cores this process may use. The plans
 * are the ones bl_plan_ranks gives, byte for byte. */
#ifndef BL_PLAN_RANKS_CACHE_H
#define BL_PLAN_RANKS_CACHE_H

#include "plan/plan.h"

typedef struct bl_plan_ranks_entry {
    char key[600];
    int rc;                     /* what bl_plan_ranks returned */
    char errmsg[1024];          /* its err when rc < 0 */
    bl_plan plan;               /* its rank part */
} bl_plan_ranks_entry;

typedef struct bl_plan_ranks_cache {
    bl_plan_ranks_entry *e;
    size_t n;
} bl_plan_ranks_cache;

/* Plans the distinct rank layouts of reqs[0..n), with up to `jobs` mpirun
 * at a time (<= 1: one after the other, in this process). -1 with err
 * only when the cache itself cannot be made (out of memory, fork). */
int bl_plan_ranks_cache_fill(bl_plan_ranks_cache *c,
                             const bl_plan_request *reqs, size_t n,
                             hwloc_topology_t topo, const char *preload,
                             int jobs, bl_err *err);
/* The rank plan of req (as bl_plan_ranks would fill out): its return
 * value, err set when < 0. 1 when req's layout is not in the cache. */
int bl_plan_ranks_cache_get(const bl_plan_ranks_cache *c,
                            const bl_plan_request *req, bl_plan *out,
                            bl_err *err);
void bl_plan_ranks_cache_free(bl_plan_ranks_cache *c);
/* The cores this process may use (sched_getaffinity), at least 1. */
int bl_plan_jobs(void);

#endif
