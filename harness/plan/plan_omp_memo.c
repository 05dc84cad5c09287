/* The places model once per distinct rank binding (plan_omp.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "grow.h"
#include "plan/plan_omp.h"

/* A rank placed by the model: where its rows are in the plan. */
typedef struct memo_entry {
    uint64_t hash;
    hwloc_topology_t topo;
    int nthreads;
    hwloc_bitmap_t pus;
    size_t row;         /* its first thread row */
} memo_entry;

struct bl_omp_memo {
    memo_entry *e;
    size_t n, cap;
    int *slot;          /* open addressing over e, -1 empty */
    size_t nslots;
};

bl_omp_memo *bl_omp_memo_new(void)
{
    return calloc(1, sizeof(bl_omp_memo));
}

void bl_omp_memo_free(bl_omp_memo *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        hwloc_bitmap_free(m->e[i].pus);
    if (m) {
        free(m->e);
        free(m->slot);
    }
    free(m);
}

static uint64_t key(hwloc_topology_t topo, int nthreads,
                    hwloc_const_bitmap_t pus)
{
    uint64_t h = bl_cpuset_hash_mix((uint64_t)(uintptr_t)topo,
                                    (uint64_t)nthreads);
    return bl_cpuset_hash(h, pus);
}

/* The table at twice the entries, rebuilt. -1 when out of memory. */
static int rehash(bl_omp_memo *m)
{
    size_t n = m->nslots ? 2 * m->nslots : 64;
    int *slot = malloc(n * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < n; i++)
        slot[i] = -1;
    for (size_t i = 0; i < m->n; i++) {
        size_t s = (size_t)m->e[i].hash & (n - 1);
        while (slot[s] >= 0)
            s = (s + 1) & (n - 1);
        slot[s] = (int)i;
    }
    free(m->slot);
    m->slot = slot;
    m->nslots = n;
    return 0;
}

/* The entry like (topo, nthreads, pus), or -1. */
static int find(const bl_omp_memo *m, uint64_t h, hwloc_topology_t topo,
                int nthreads, hwloc_const_bitmap_t pus)
{
    for (size_t s = (size_t)h & (m->nslots - 1); m->nslots && m->slot[s] >= 0;
         s = (s + 1) & (m->nslots - 1)) {
        const memo_entry *e = &m->e[m->slot[s]];
        if (e->hash == h && e->topo == topo && e->nthreads == nthreads &&
            hwloc_bitmap_isequal(e->pus, pus))
            return m->slot[s];
    }
    return -1;
}

/* Rank's rows copied from an earlier rank's, from row on. */
static int copy_rows(bl_plan *plan, int rank, size_t row, int nthreads,
                     bl_err *err)
{
    bl_plan_thread *t = realloc(plan->threads, (plan->nthreads +
                                                (size_t)nthreads) * sizeof *t);
    if (!t)
        return bl_err_set(err, "out of memory for %d thread rows", nthreads);
    plan->threads = t;
    for (int i = 0; i < nthreads; i++) {
        bl_plan_thread *to = &t[plan->nthreads + (size_t)i];
        *to = t[row + (size_t)i];
        to->rank = rank;
        if (!(to->pus = hwloc_bitmap_dup(t[row + (size_t)i].pus))) {
            while (i-- > 0)
                hwloc_bitmap_free(t[plan->nthreads + (size_t)i].pus);
            return bl_err_set(err, "out of memory for %d thread rows",
                              nthreads);
        }
    }
    plan->nthreads += (size_t)nthreads;
    return 0;
}

int bl_omp_assign_memo(bl_omp_memo *m, hwloc_topology_t topo, int rank,
                       hwloc_const_bitmap_t rank_pus, const bl_omp_env *env,
                       int nthreads, bl_plan *plan, bl_err *err)
{
    uint64_t h = key(topo, nthreads, rank_pus);
    int hit = m && rank_pus ? find(m, h, topo, nthreads, rank_pus) : -1;
    size_t row = plan->nthreads;

    if (hit >= 0)
        return copy_rows(plan, rank, m->e[hit].row, nthreads, err);
    if (bl_omp_assign_env(topo, rank, rank_pus, env, nthreads, plan, err) < 0)
        return -1;
    /* remembering is an optimisation: out of memory here only forgets */
    if (!m || ((m->n + 1) * 2 > m->nslots && rehash(m) < 0) ||
        bl_grow(&m->e, sizeof *m->e, m->n, &m->cap, 64) < 0)
        return 0;
    memo_entry *e = &m->e[m->n];
    if (!(e->pus = hwloc_bitmap_dup(rank_pus)))
        return 0;
    e->hash = h;
    e->topo = topo;
    e->nthreads = nthreads;
    e->row = row;
    size_t s = (size_t)h & (m->nslots - 1);
    while (m->slot[s] >= 0)
        s = (s + 1) & (m->nslots - 1);
    m->slot[s] = (int)m->n++;
    return 0;
}
