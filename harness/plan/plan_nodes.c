/* A plan of several nodes, node by node (plan_nodes.h). */
#include "plan/plan_nodes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"


static int bound(const bl_plan *p, int r)
{
    return !p->rank_bound || p->rank_bound[r];
}

/* The hash of node k's share: what two alike nodes have in common. */
static uint64_t share_hash(const bl_plan *p, const bl_plan_nodes *ix, int k)
{
    uint64_t h = (uint64_t)(ix->first[k + 1] - ix->first[k]);
    for (int i = ix->first[k]; i < ix->first[k + 1]; i++) {
        int r = ix->rank[i];
        h = bl_cpuset_hash_mix(h, (uint64_t)bound(p, r));
        h = bl_cpuset_hash(h, p->rank_pus[r]);
        h = bl_cpuset_hash_mix(h, ix->row[r + 1] - ix->row[r]);
        for (size_t t = ix->row[r]; t < ix->row[r + 1]; t++) {
            const bl_plan_thread *x = &p->threads[t];
            h = bl_cpuset_hash_mix(h, (uint64_t)x->thread * 65599u +
                                          (uint64_t)(x->place + 1));
            h = bl_cpuset_hash(h, x->pus);
        }
    }
    return h;
}

static int threads_alike(const bl_plan *p, const bl_plan_nodes *ix, int ra,
                         int rb)
{
    size_t n = ix->row[ra + 1] - ix->row[ra];
    if (n != ix->row[rb + 1] - ix->row[rb])
        return 0;
    for (size_t i = 0; i < n; i++) {
        const bl_plan_thread *x = &p->threads[ix->row[ra] + i];
        const bl_plan_thread *y = &p->threads[ix->row[rb] + i];
        if (x->thread != y->thread || x->place != y->place ||
            !hwloc_bitmap_isequal(x->pus, y->pus))
            return 0;
    }
    return 1;
}

static int alike(const bl_plan *p, const bl_plan_nodes *ix, int a, int b)
{
    int n = ix->first[a + 1] - ix->first[a];
    if (n != ix->first[b + 1] - ix->first[b])
        return 0;
    for (int i = 0; i < n; i++) {
        int ra = ix->rank[ix->first[a] + i], rb = ix->rank[ix->first[b] + i];
        if (bound(p, ra) != bound(p, rb) ||
            !hwloc_bitmap_isequal(p->rank_pus[ra], p->rank_pus[rb]) ||
            !threads_alike(p, ix, ra, rb))
            return 0;
    }
    return 1;
}

/* Each node's share, through an open-addressing table of the shares met
 * so far keyed by their hash. */
static int find_shares(const bl_plan *p, bl_plan_nodes *ix, int fold)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)ix->nnodes)
        cap *= 2;
    int *slot = fold ? malloc(cap * sizeof *slot) : NULL;
    uint64_t *hash = fold ? malloc(cap * sizeof *hash) : NULL;

    if (fold && (!slot || !hash)) {
        free(slot);
        free(hash);
        return -1;
    }
    for (size_t i = 0; fold && i < cap; i++)
        slot[i] = -1;
    ix->nshares = 0;
    for (int k = 0; k < ix->nnodes; k++) {
        ix->share[k] = k;
        if (fold) {
            uint64_t h = share_hash(p, ix, k);
            size_t s = (size_t)h & (cap - 1);
            while (slot[s] >= 0 &&
                   (hash[s] != h || !alike(p, ix, slot[s], k)))
                s = (s + 1) & (cap - 1);
            if (slot[s] >= 0)
                ix->share[k] = slot[s];
            else {
                slot[s] = k;
                hash[s] = h;
            }
        }
        int first = ix->share[k];
        ix->nshares += first == k;
        ix->last[first] = k;
        ix->count[first]++;
    }
    free(slot);
    free(hash);
    return 0;
}

int bl_plan_nodes_index(const bl_plan *p, int fold, bl_plan_nodes *ix,
                        bl_err *err)
{
    int n = p->nnodes > 0 ? p->nnodes : 1, nr = p->nranks > 0 ? p->nranks : 0;
    int *fill = calloc((size_t)n, sizeof *fill);

    memset(ix, 0, sizeof *ix);
    ix->nnodes = n;
    ix->first = calloc((size_t)n + 1, sizeof *ix->first);
    ix->rank = calloc((size_t)nr + 1, sizeof *ix->rank);
    ix->row = calloc((size_t)nr + 1, sizeof *ix->row);
    ix->share = calloc((size_t)n, sizeof *ix->share);
    ix->last = calloc((size_t)n, sizeof *ix->last);
    ix->count = calloc((size_t)n, sizeof *ix->count);
    if (!fill || !ix->first || !ix->rank || !ix->row || !ix->share ||
        !ix->last || !ix->count) {
        free(fill);
        bl_plan_nodes_free(ix);
        return bl_err_set(err, "out of memory indexing %d nodes", n);
    }
    /* counting sort of the ranks by node: ascending on each node */
    for (int r = 0; r < nr; r++)
        ix->first[(p->rank_node ? p->rank_node[r] : 0) + 1]++;
    for (int k = 0; k < n; k++)
        ix->first[k + 1] += ix->first[k];
    for (int r = 0; r < nr; r++) {
        int k = p->rank_node ? p->rank_node[r] : 0;
        ix->rank[ix->first[k] + fill[k]++] = r;
    }
    free(fill);
    /* threads come ordered by rank */
    for (size_t t = 0; t < p->nthreads; t++)
        ix->row[p->threads[t].rank + 1]++;
    for (int r = 0; r < nr; r++)
        ix->row[r + 1] += ix->row[r];
    if (find_shares(p, ix, fold) < 0) {
        bl_plan_nodes_free(ix);
        return bl_err_set(err, "out of memory comparing %d nodes", n);
    }
    return 0;
}

int bl_plan_nodes_part(const bl_plan *p, const bl_plan_nodes *ix, int k,
                       bl_plan *out)
{
    int n = ix->first[k + 1] - ix->first[k];
    size_t rows = 0, m = 0;

    memcpy(out, p, sizeof *out);
    out->nranks = n;
    out->rank_pus = NULL;
    out->rank_bound = NULL;
    out->rank_id = NULL;
    out->threads = NULL;
    out->nthreads = 0;
    out->rank_node = NULL;
    out->nnodes = 1;
    for (int i = 0; i < n; i++) {
        int r = ix->rank[ix->first[k] + i];
        rows += ix->row[r + 1] - ix->row[r];
    }
    out->rank_pus = calloc((size_t)n + 1, sizeof *out->rank_pus);
    out->rank_bound = calloc((size_t)n + 1, sizeof *out->rank_bound);
    out->rank_id = calloc((size_t)n + 1, sizeof *out->rank_id);
    out->threads = calloc(rows + 1, sizeof *out->threads);
    if (!out->rank_pus || !out->rank_bound || !out->rank_id || !out->threads)
        goto oom;
    for (int i = 0; i < n; i++) {
        int r = ix->rank[ix->first[k] + i];
        out->rank_id[i] = bl_plan_rank_number(p, r);
        out->rank_bound[i] = bound(p, r);
        if (!(out->rank_pus[i] = hwloc_bitmap_dup(p->rank_pus[r])))
            goto oom;
        for (size_t t = ix->row[r]; t < ix->row[r + 1]; t++) {
            out->threads[m] = p->threads[t];
            out->threads[m].rank = i;
            if (!(out->threads[m].pus = hwloc_bitmap_dup(p->threads[t].pus)))
                goto oom;
            out->nthreads = ++m;
        }
    }
    return 0;
oom:
    bl_plan_free(out);
    return -1;
}

void bl_plan_nodes_list(const bl_plan_nodes *ix, int k, char *buf,
                        size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = k; a <= ix->last[k]; a++) {
        int b = a;
        if (ix->share[a] != k)
            continue;
        while (b + 1 <= ix->last[k] && ix->share[b + 1] == k)
            b++;
        if (used + 28 >= len) {
            snprintf(buf + used, len - used, ",...");
            return;
        }
        used += (size_t)(b > a ? snprintf(buf + used, len - used, "%s%d-%d",
                                          used ? "," : "", a + 1, b + 1)
                               : snprintf(buf + used, len - used, "%s%d",
                                          used ? "," : "", a + 1));
        a = b;
    }
}

void bl_plan_nodes_free(bl_plan_nodes *ix)
{
    free(ix->first);
    free(ix->rank);
    free(ix->row);
    free(ix->share);
    free(ix->last);
    free(ix->count);
    memset(ix, 0, sizeof *ix);
}
