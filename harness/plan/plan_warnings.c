/* The warnings of a placement plan (declared in plan_output.h): what an HPC
 * engineer would point at when looking at the plan, in plain words. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "plan/plan_output.h"
#include "topo.h"

/* A thread row, or a rank row when the plan has none. */
typedef struct wrow {
    int rank;
    hwloc_const_bitmap_t pus;
} wrow;

typedef struct ctx {
    hwloc_topology_t topo;
    const bl_plan *p;
    wrow *rows;
    size_t nrows;
    bl_plan_warning *w;
    size_t nw;
    hwloc_bitmap_t a, b, c;     /* scratch */
} ctx;

static void add(ctx *x, bl_plan_warning_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add(ctx *x, bl_plan_warning_kind kind, const char *fmt, ...)
{
    va_list ap;
    bl_plan_warning *w = &x->w[x->nw++];
    w->kind = kind;
    va_start(ap, fmt);
    vsnprintf(w->text, sizeof w->text, fmt, ap);
    va_end(ap);
}

/* A list of indexes, cut with "..." so that a warning stays one line. */
static void list_text(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    int need = bl_cpuset_format_list(set, buf, len);
    if (need >= (int)len && len > 4) {
        char *comma = strrchr(buf, ',');
        strcpy(comma && comma - buf < (long)len - 4 ? comma + 1
                                                    : buf + len - 4,
               "...");
    }
}

/* "rank 3" or "ranks 0-3,8". */
static void ranks_text(hwloc_const_bitmap_t ranks, char *buf, size_t len)
{
    char list[96];
    list_text(ranks, list, sizeof list);
    snprintf(buf, len, "%s %s", hwloc_bitmap_weight(ranks) == 1 ? "rank"
                                                                : "ranks",
             list);
}

static int is_bound(const bl_plan *p, int r)
{
    return !p->rank_bound || p->rank_bound[r];
}

/* Cores (or PUs without cores) that no row may run on. */
static void idle_cores(ctx *x)
{
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(x->topo, HWLOC_OBJ_CORE)
                                ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int n = hwloc_get_nbobjs_by_type(x->topo, type);
    char list[128];

    hwloc_bitmap_zero(x->a);
    for (size_t i = 0; i < x->nrows; i++)
        hwloc_bitmap_or(x->a, x->a, x->rows[i].pus);
    bl_topo_objs_touched(x->topo, x->a, type, x->b);
    hwloc_bitmap_zero(x->c);
    for (int i = 0; i < n; i++)
        if (!hwloc_bitmap_isset(x->b, (unsigned)i))
            hwloc_bitmap_set(x->c, (unsigned)i);
    if (hwloc_bitmap_iszero(x->c))
        return;
    list_text(x->c, list, sizeof list);
    add(x, BL_PLAN_W_IDLE_CORES,
        "%d of %d %s idle (no thread may run there): %s %s",
        hwloc_bitmap_weight(x->c), n,
        type == HWLOC_OBJ_CORE ? "cores are" : "PUs are",
        type == HWLOC_OBJ_CORE ? "cores" : "PUs", list);
}

/* Threads pinned inside one core: on distinct hardware threads (SMT), or
 * more of them than the core has PUs / on the same PU (time-sharing). */
static void core_sharing(ctx *x)
{
    hwloc_obj_t core = NULL;
    hwloc_bitmap_t smt = x->b, shared = x->c;
    char list[128];
    int nsmt, nshared;

    hwloc_bitmap_zero(smt);
    hwloc_bitmap_zero(shared);
    while ((core = hwloc_get_next_obj_by_type(x->topo, HWLOC_OBJ_CORE,
                                              core)) != NULL) {
        int k = 0, same_pu = 0;
        hwloc_bitmap_zero(x->a);
        for (size_t i = 0; i < x->nrows; i++) {
            hwloc_const_bitmap_t s = x->rows[i].pus;
            if (!hwloc_bitmap_isincluded(s, core->cpuset))
                continue;
            k++;
            /* Two threads each pinned to one PU, the same one. */
            if (hwloc_bitmap_weight(s) == 1 && hwloc_bitmap_intersects(x->a, s))
                same_pu = 1;
            if (hwloc_bitmap_weight(s) == 1)
                hwloc_bitmap_or(x->a, x->a, s);
        }
        if (same_pu || k > hwloc_bitmap_weight(core->cpuset))
            hwloc_bitmap_set(shared, core->logical_index);
        else if (k >= 2)
            hwloc_bitmap_set(smt, core->logical_index);
    }
    nsmt = hwloc_bitmap_weight(smt);
    nshared = hwloc_bitmap_weight(shared);
    if (nsmt) {
        list_text(smt, list, sizeof list);
        add(x, BL_PLAN_W_SMT_SHARED,
            "threads share a core through SMT on %d %s (its hardware threads "
            "compete for one core's execution units and caches): cores %s",
            nsmt, nsmt == 1 ? "core" : "cores", list);
    }
    if (nshared) {
        list_text(shared, list, sizeof list);
        add(x, BL_PLAN_W_PU_SHARED,
            "%d %s more threads pinned than hardware threads, so threads "
            "take turns on one PU: cores %s",
            nshared, nshared == 1 ? "core has" : "cores have", list);
    }
}

/* A rank with more threads than PUs, and the node as a whole. */
static void overloaded(ctx *x)
{
    int total_pus = hwloc_get_nbobjs_by_type(x->topo, HWLOC_OBJ_PU);
    int first = -1, first_t = 0, first_p = 0;
    char ranks[256] = "", node[96] = "";

    if (!x->p->nthreads)
        return;
    hwloc_bitmap_zero(x->a);
    /* threads come ordered by rank: one pass counts each rank's */
    for (size_t i = 0; i < x->p->nthreads;) {
        int r = x->p->threads[i].rank, t = 0;
        int pus = hwloc_bitmap_weight(x->p->rank_pus[r]);
        for (; i < x->p->nthreads && x->p->threads[i].rank == r; i++)
            t++;
        if (pus > 0 && t > pus) {
            hwloc_bitmap_set(x->a, (unsigned)bl_plan_rank_number(x->p, r));
            if (first < 0) {
                first = bl_plan_rank_number(x->p, r);
                first_t = t;
                first_p = pus;
            }
        }
    }
    if (first >= 0) {
        char who[120];
        ranks_text(x->a, who, sizeof who);
        snprintf(ranks, sizeof ranks,
                 "%s %s more threads than PUs (rank %d: %d threads on %d "
                 "PU%s)", who, hwloc_bitmap_weight(x->a) == 1 ? "has" : "have",
                 first, first_t, first_p, first_p == 1 ? "" : "s");
    }
    if ((int)x->p->nthreads > total_pus)
        snprintf(node, sizeof node, "the node runs %zu threads on %d PUs",
                 x->p->nthreads, total_pus);
    if (*ranks || *node)
        add(x, BL_PLAN_W_OVERLOADED, "%s%s%s, so threads take turns on a PU",
            ranks, *ranks && *node ? "; " : "", node);
}

static void unbound(ctx *x)
{
    char who[120];
    hwloc_bitmap_zero(x->a);
    for (int r = 0; r < x->p->nranks; r++)
        if (!is_bound(x->p, r) && bl_plan_rank_here(x->p, r))
            hwloc_bitmap_set(x->a, (unsigned)bl_plan_rank_number(x->p, r));
    if (hwloc_bitmap_iszero(x->a))
        return;
    ranks_text(x->a, who, sizeof who);
    add(x, BL_PLAN_W_UNBOUND,
        "%s %s not bound by the launcher (bind-to none): the OS scheduler "
        "places and moves %s unless OMP_PLACES pins the threads",
        who, hwloc_bitmap_weight(x->a) == 1 ? "is" : "are",
        hwloc_bitmap_weight(x->a) == 1 ? "it" : "them");
}

/* Bound ranks whose binding covers two or more objects of type. */
static void spans(ctx *x, hwloc_obj_type_t type, bl_plan_warning_kind kind,
                  const char *name, const char *why)
{
    int first = -1;
    char who[120], objs[96] = "";

    if (hwloc_get_nbobjs_by_type(x->topo, type) < 2)
        return;
    hwloc_bitmap_zero(x->a);
    for (int r = 0; r < x->p->nranks; r++) {
        if (!is_bound(x->p, r))
            continue;
        bl_topo_objs_touched(x->topo, x->p->rank_pus[r], type, x->b);
        if (hwloc_bitmap_weight(x->b) < 2)
            continue;
        hwloc_bitmap_set(x->a, (unsigned)bl_plan_rank_number(x->p, r));
        if (first < 0) {
            first = bl_plan_rank_number(x->p, r);
            list_text(x->b, objs, sizeof objs);
        }
    }
    if (first < 0)
        return;
    ranks_text(x->a, who, sizeof who);
    add(x, kind, "%s %s several %ss (rank %d: %s %s): %s", who,
        hwloc_bitmap_weight(x->a) == 1 ? "spans" : "span", name, first, name,
        objs, why);
}

/* Bound ranks per object of type, counting the ranks that lie within one
 * object; uneven when the counts differ. */
static void uneven(ctx *x, hwloc_obj_type_t type, bl_plan_warning_kind kind,
                   const char *name)
{
    int n = hwloc_get_nbobjs_by_type(x->topo, type), lo, hi, counted = 0;
    int here = 0;
    int *count;
    char counts[200];
    size_t len = 0;

    if (n < 2 || x->p->nranks < 2 || !(count = calloc((size_t)n, sizeof *count)))
        return;
    for (int r = 0; r < x->p->nranks; r++) {
        /* a rank on another node (plan of several nodes) is not here */
        here += bl_plan_rank_here(x->p, r);
        if (!is_bound(x->p, r))
            continue;
        bl_topo_objs_touched(x->topo, x->p->rank_pus[r], type, x->b);
        if (hwloc_bitmap_weight(x->b) == 1) {
            count[hwloc_bitmap_first(x->b)]++;
            counted++;
        }
    }
    lo = hi = count[0];
    for (int i = 1; i < n; i++) {
        lo = count[i] < lo ? count[i] : lo;
        hi = count[i] > hi ? count[i] : hi;
    }
    counts[0] = '\0';
    for (int i = 0; i < n && len + 8 < sizeof counts; i++)
        len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%d",
                                i ? "," : "", count[i]);
    if (counted >= 2 && lo != hi)
        add(x, kind,
            "ranks are spread unevenly over the %d %ss (ranks per %s 0-%d: "
            "%s)%s", n, name, name, n - 1, counts,
            counted < here ? " (ranks spanning several, or unbound, "
                                     "not counted)" : "");
    free(count);
}

/* L3 domains that two or more bound ranks may run in. */
static void l3_shared(ctx *x)
{
    hwloc_obj_t l3 = NULL;
    int first = -1;
    char list[128], who[120] = "";

    hwloc_bitmap_zero(x->c);
    while ((l3 = hwloc_get_next_obj_by_type(x->topo, HWLOC_OBJ_L3CACHE,
                                            l3)) != NULL) {
        hwloc_bitmap_zero(x->a);
        for (int r = 0; r < x->p->nranks; r++)
            if (is_bound(x->p, r) &&
                hwloc_bitmap_intersects(x->p->rank_pus[r], l3->cpuset))
                hwloc_bitmap_set(x->a, (unsigned)bl_plan_rank_number(x->p, r));
        if (hwloc_bitmap_weight(x->a) < 2)
            continue;
        hwloc_bitmap_set(x->c, l3->logical_index);
        if (first < 0) {
            first = (int)l3->logical_index;
            ranks_text(x->a, who, sizeof who);
        }
    }
    if (first < 0)
        return;
    list_text(x->c, list, sizeof list);
    add(x, BL_PLAN_W_L3_SHARED,
        "%d L3 %s shared by two or more ranks, which compete for the cache "
        "(L3 %d: %s): L3 %s", hwloc_bitmap_weight(x->c),
        hwloc_bitmap_weight(x->c) == 1 ? "domain is" : "domains are", first,
        who, list);
}

int bl_plan_warnings(hwloc_topology_t topo, const bl_plan *p,
                     bl_plan_warning **out, size_t *n, bl_err *err)
{
    ctx x = {topo, p, NULL, 0, NULL, 0, NULL, NULL, NULL};
    size_t nr = p->nthreads ? p->nthreads
                            : (size_t)(p->nranks > 0 ? p->nranks : 0);
    int rc = 0;

    *out = NULL;
    *n = 0;
    x.rows = calloc(nr ? nr : 1, sizeof *x.rows);
    x.w = calloc(BL_PLAN_W_L3_SHARED + 1, sizeof *x.w);
    x.a = hwloc_bitmap_alloc();
    x.b = hwloc_bitmap_alloc();
    x.c = hwloc_bitmap_alloc();
    if (!x.rows || !x.w || !x.a || !x.b || !x.c)
        rc = bl_err_set(err, "plan warnings: out of memory");
    for (size_t i = 0; rc == 0 && i < nr; i++) {
        x.rows[i].rank = p->nthreads ? p->threads[i].rank : (int)i;
        x.rows[i].pus = p->nthreads ? p->threads[i].pus : p->rank_pus[i];
    }
    x.nrows = nr;
    if (rc == 0 && p->nranks > 0) {
        idle_cores(&x);
        core_sharing(&x);
        overloaded(&x);
        unbound(&x);
        spans(&x, HWLOC_OBJ_NUMANODE, BL_PLAN_W_SPANS_NUMA, "NUMA node",
              "threads on one node reach memory first-touched on another "
              "at remote latency and bandwidth");
        spans(&x, HWLOC_OBJ_PACKAGE, BL_PLAN_W_SPANS_PACKAGE, "package",
              "threads in one rank talk across the inter-socket link");
        uneven(&x, HWLOC_OBJ_PACKAGE, BL_PLAN_W_UNEVEN_PACKAGES, "package");
        uneven(&x, HWLOC_OBJ_NUMANODE, BL_PLAN_W_UNEVEN_NUMA, "NUMA node");
        l3_shared(&x);
    }
    hwloc_bitmap_free(x.a);
    hwloc_bitmap_free(x.b);
    hwloc_bitmap_free(x.c);
    free(x.rows);
    if (rc < 0 || x.nw == 0) {
        free(x.w);
        return rc;
    }
    *out = x.w;
    *n = x.nw;
    return 0;
}
