/* KMP_AFFINITY's own placement, as libomp and Intel's runtime do it
 * (kmp_affinity.cpp, read for the rules): the rank's PUs get addresses
 * (package, core in package, PU in core); compact sorts them outermost
 * level first, scatter innermost level first; thread i takes entry
 * (i + offset) mod n, widened to its core or package by the granularity
 * (core by default), duplicates kept unless nodups. balanced fills cores
 * in order with T / ncores or one more threads each, consecutive thread
 * numbers together. explicit takes proclist's entries in turn.
 * KMP_HW_SUBSET (bl_omp_hw_subset) keeps the PUs whose socket, core and
 * thread numbers, counted among the rank's, fall in each item's range. */
#include "plan/plan_omp.h"

#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "plan/plan_kmp.h"

typedef struct pu_addr {
    int os, pkg, core, thr; /* core and thr: index in the parent */
    hwloc_obj_t core_obj, pkg_obj;
} pu_addr;

static int cmp_compact(const void *a, const void *b)
{
    const pu_addr *x = a, *y = b;
    if (x->pkg != y->pkg)
        return x->pkg < y->pkg ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->thr < y->thr ? -1 : x->thr > y->thr;
}

static int cmp_scatter(const void *a, const void *b)
{
    const pu_addr *x = a, *y = b;
    if (x->thr != y->thr)
        return x->thr < y->thr ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->pkg < y->pkg ? -1 : x->pkg > y->pkg;
}

/* Index of child among its parent's children of the same type that hold a
 * PU of the rank (libomp numbers the machine it is allowed to see). */
static int rank_index(hwloc_obj_t obj, hwloc_obj_t parent,
                      hwloc_const_bitmap_t rank_pus)
{
    int n = 0;
    for (hwloc_obj_t c = obj; c; c = c->prev_cousin) {
        if (c != obj && hwloc_bitmap_intersects(c->cpuset, rank_pus) &&
            (!parent || hwloc_bitmap_isincluded(c->cpuset, parent->cpuset)))
            n++;
    }
    return n;
}

static int addresses(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     pu_addr **out, int *n, bl_err *err)
{
    int w = hwloc_bitmap_weight(rank_pus), k = 0;
    unsigned os;
    pu_addr *a = calloc((size_t)(w > 0 ? w : 1), sizeof *a);
    if (!a)
        return bl_err_set(err, "out of memory for %d PUs", w);
    hwloc_bitmap_foreach_begin(os, rank_pus)
    {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, os);
        if (!pu)
            continue;
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
        a[k].os = (int)os;
        a[k].core_obj = core ? core : pu;
        a[k].pkg_obj = pkg ? pkg : hwloc_get_root_obj(topo);
        a[k].pkg = pkg ? rank_index(pkg, NULL, rank_pus) : 0;
        a[k].core = rank_index(a[k].core_obj, pkg, rank_pus);
        a[k].thr = core ? rank_index(pu, core, rank_pus) : 0;
        k++;
    }
    hwloc_bitmap_foreach_end();
    *out = a;
    *n = k;
    return 0;
}

/* The set thread's PU p is widened to. */
static hwloc_bitmap_t widen(const pu_addr *p, bl_kmp_gran g,
                            hwloc_const_bitmap_t rank_pus)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    if (!s)
        return NULL;
    if (g == BL_KMP_GRAN_THREAD)
        hwloc_bitmap_only(s, (unsigned)p->os);
    else
        hwloc_bitmap_and(s, g == BL_KMP_GRAN_SOCKET ? p->pkg_obj->cpuset
                                                    : p->core_obj->cpuset,
                         rank_pus);
    return s;
}

/* balanced: core of thread tid and its PU in that core (uniform cores). */
static int balanced_entry(int tid, int T, int ncores, int per_core)
{
    int chunk = T / ncores, big = T % ncores, big_nth = (chunk + 1) * big;
    int core, thr;
    if (tid < big_nth) {
        core = tid / (chunk + 1);
        thr = (tid % (chunk + 1)) % per_core;
    } else {
        core = big + (tid - big_nth) / chunk;
        thr = ((tid - big_nth) % chunk) % per_core;
    }
    return core * per_core + thr;
}

static int balanced(const bl_kmp_affinity *k, pu_addr *a, int n, int T,
                    hwloc_const_bitmap_t rank_pus, hwloc_bitmap_t *m,
                    bl_err *err)
{
    int ncores = 0, npkg = 0, per_core;
    qsort(a, (size_t)n, sizeof *a, cmp_compact);
    for (int i = 0; i < n; i++) {
        ncores += i == 0 || a[i].core_obj != a[i - 1].core_obj;
        npkg += i == 0 || a[i].pkg_obj != a[i - 1].pkg_obj;
    }
    per_core = n / ncores;
    /* one PU per core over several packages: the packages take the
     * cores' part (kmp_affinity.cpp, __kmp_balanced_affinity) */
    if (npkg > 1 && per_core == 1) {
        ncores = npkg;
        per_core = n / npkg;
    }
    if (per_core * ncores != n)
        return bl_err_set(err, "KMP_AFFINITY '%s': balanced over cores with "
                          "different numbers of the rank's PUs is not "
                          "modelled", "balanced");
    for (int i = 0; i < T; i++) {
        const pu_addr *p = &a[balanced_entry(i, T, ncores, per_core)];
        bl_kmp_gran g = k->gran == BL_KMP_GRAN_THREAD ? BL_KMP_GRAN_THREAD
                                                      : BL_KMP_GRAN_CORE;
        if (!(m[i] = widen(p, g, rank_pus)))
            return bl_err_set(err, "out of memory");
    }
    return 0;
}

/* compact and scatter: the sorted PUs, widened, duplicates dropped on
 * nodups; thread i takes entry (i + offset) mod n. */
static int sorted(const bl_kmp_affinity *k, pu_addr *a, int n, int T,
                  hwloc_const_bitmap_t rank_pus, hwloc_bitmap_t *m,
                  bl_err *err)
{
    hwloc_bitmap_t *e = calloc((size_t)n, sizeof *e);
    int ne = 0, rc = 0;
    if (!e)
        return bl_err_set(err, "out of memory");
    int scatter = k->type == BL_KMP_SCATTER || k->type == BL_KMP_PHYSICAL;
    qsort(a, (size_t)n, sizeof *a, scatter ? cmp_scatter : cmp_compact);
    bl_kmp_gran g = k->gran == BL_KMP_GRAN_DEFAULT ? BL_KMP_GRAN_CORE : k->gran;
    for (int i = 0; i < n && rc == 0; i++) {
        hwloc_bitmap_t s = widen(&a[i], g, rank_pus);
        int dup = 0;
        for (int j = 0; s && !k->dups && j < ne && !dup; j++)
            dup = hwloc_bitmap_isequal(e[j], s);
        if (!s)
            rc = bl_err_set(err, "out of memory");
        else if (dup)
            hwloc_bitmap_free(s);
        else
            e[ne++] = s;
    }
    for (int i = 0; i < T && rc == 0; i++)
        if (!(m[i] = hwloc_bitmap_dup(e[(i + k->offset) % ne])))
            rc = bl_err_set(err, "out of memory");
    bl_omp_places_free(e, ne);
    return rc;
}

/* explicit: proclist's entries (N, N-M one each, {a,b} one set), those
 * outside the rank dropped; -1 entries left means unbound (*ne 0). */
static int explicit_list(const bl_kmp_affinity *k, hwloc_topology_t topo,
                         hwloc_const_bitmap_t rank_pus, int T,
                         hwloc_bitmap_t *m, int *bound, bl_err *err)
{
    char places[300];
    hwloc_bitmap_t *pl = NULL;
    int np = 0, j = 0;
    /* proclist's syntax is OMP_PLACES' with braces optional on single
     * CPUs and N-M ranges: rewrite ranges and parse as places. */
    for (const char *p = k->proclist; *p && j < (int)sizeof places - 8; p++) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end != p && *end == '-') {
            long b = strtol(end + 1, &end, 10);
            /* strtol saturates: a range to LONG_MAX would never end */
            if (a < 0 || b > BL_CPUSET_MAX_INDEX)
                return bl_err_set(err, "KMP_AFFINITY proclist '%s': the "
                                  "range %ld-%ld goes past CPU %d, the "
                                  "highest bindlab reads",
                                  k->proclist, a, b, BL_CPUSET_MAX_INDEX);
            for (long c = a; c <= b && j < (int)sizeof places - 16; c++)
                j += snprintf(places + j, sizeof places - (size_t)j, "%s%ld",
                              c == a ? "" : ",", c);
            p = end - 1;
        } else {
            places[j++] = *p;
        }
    }
    places[j] = '\0';
    if (bl_omp_places(topo, rank_pus, places, &pl, &np, err) < 0)
        return -1;
    *bound = np > 0;
    for (int i = 0; i < T && np > 0; i++)
        if (!(m[i] = hwloc_bitmap_dup(pl[i % np]))) {
            bl_omp_places_free(pl, np);
            return bl_err_set(err, "out of memory");
        }
    bl_omp_places_free(pl, np);
    return 0;
}

int bl_omp_kmp_masks(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     const char *kmp_affinity, int nthreads,
                     hwloc_bitmap_t **masks, bl_err *err)
{
    bl_kmp_affinity k;
    pu_addr *a = NULL;
    int n = 0, rc = 0, bound = 1;
    hwloc_bitmap_t *m;
    *masks = NULL;
    if (bl_kmp_affinity_parse(kmp_affinity, &k, err) < 0)
        return -1;
    if (k.type == BL_KMP_NONE || k.type == BL_KMP_DISABLED ||
        k.type == BL_KMP_UNSET)
        return 0;
    if (k.permute != 0 || k.gran == BL_KMP_GRAN_TILE || k.gran == BL_KMP_GRAN_DIE)
        return bl_err_set(err, "KMP_AFFINITY '%s': permute and tile or die "
                          "granularity are not modelled", kmp_affinity);
    if (!(m = calloc((size_t)nthreads, sizeof *m)))
        return bl_err_set(err, "out of memory for %d threads", nthreads);
    if (k.type == BL_KMP_EXPLICIT)
        rc = explicit_list(&k, topo, rank_pus, nthreads, m, &bound, err);
    else if ((rc = addresses(topo, rank_pus, &a, &n, err)) == 0 && n == 0)
        rc = bl_err_set(err, "KMP_AFFINITY: the rank has no PU in the topology");
    else if (rc == 0 && k.type == BL_KMP_BALANCED)
        rc = balanced(&k, a, n, nthreads, rank_pus, m, err);
    else if (rc == 0)
        rc = sorted(&k, a, n, nthreads, rank_pus, m, err);
    free(a);
    if (rc < 0 || !bound) {
        bl_omp_places_free(m, nthreads);
        return rc;
    }
    *masks = m;
    return 0;
}

/* ---- KMP_HW_SUBSET ----------------------------------------------------- */

/* Cores counted per package by the model; the runtimes count them inside
 * any layer they detect between package and core (NUMA domain, die, L3 of
 * Intel's detection). Refused where such a layer splits the part of a
 * package the rank holds (a rank inside one NUMA node of a package sees
 * that layer as the package itself; a memory-only NUMA node splits
 * nothing). */
static int cores_numbered_in_packages(hwloc_topology_t topo,
                                      hwloc_const_bitmap_t rank_pus)
{
    static const hwloc_obj_type_t inner[] = {HWLOC_OBJ_NUMANODE, HWLOC_OBJ_DIE,
                                             HWLOC_OBJ_L3CACHE};
    int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), split = 0;
    hwloc_bitmap_t part = hwloc_bitmap_alloc(), in = hwloc_bitmap_alloc();
    for (int i = 0; part && in && !split && (i < npkg || (npkg == 0 && i == 0)); i++) {
        hwloc_obj_t pkg = npkg ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)i)
                               : hwloc_get_root_obj(topo);
        hwloc_bitmap_and(part, pkg->cpuset, rank_pus);
        for (size_t t = 0; !split && t < sizeof inner / sizeof inner[0]; t++) {
            int nobj = hwloc_get_nbobjs_by_type(topo, inner[t]);
            for (int j = 0; !split && j < nobj; j++) {
                hwloc_obj_t o = hwloc_get_obj_by_type(topo, inner[t], (unsigned)j);
                hwloc_bitmap_and(in, o->cpuset, part);
                split = !hwloc_bitmap_iszero(in) && !hwloc_bitmap_isequal(in, part);
            }
        }
    }
    hwloc_bitmap_free(part);
    hwloc_bitmap_free(in);
    return !split;
}

/* The items bindlab can model: sockets, cores, threads, each once, an
 * attribute only where the runtimes ignore it (no hybrid CPU). */
static int subset_modelled(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                           const char *text, const bl_kmp_hw_subset *h,
                           bl_err *err)
{
    int seen[BL_KMP_UNIT_THREAD + 1] = {0};
    for (int i = 0; i < h->n; i++) {
        const bl_kmp_subset_item *it = &h->item[i];
        if (it->unit != BL_KMP_UNIT_SOCKET && it->unit != BL_KMP_UNIT_CORE &&
            it->unit != BL_KMP_UNIT_THREAD)
            return bl_err_set(err, "KMP_HW_SUBSET '%s': %s units are not "
                              "modelled (bindlab models s, c and t, e.g. "
                              "1s,2c,1t)", text, bl_kmp_unit_name(it->unit));
        if (seen[it->unit]++)
            return bl_err_set(err, "KMP_HW_SUBSET '%s': %s named twice is not "
                              "modelled", text, bl_kmp_unit_name(it->unit));
        if (it->attr[0] && hwloc_cpukinds_get_nr(topo, 0) > 1)
            return bl_err_set(err, "KMP_HW_SUBSET '%s': core attributes on a "
                              "hybrid CPU are not modelled", text);
        if (it->unit == BL_KMP_UNIT_CORE && !cores_numbered_in_packages(topo, rank_pus))
            return bl_err_set(err, "KMP_HW_SUBSET '%s': cores per socket where "
                              "NUMA nodes, dies or L3 caches split the rank's "
                              "part of a package are not modelled (the "
                              "runtimes count cores inside those; bind the "
                              "rank to one of them, or use s and t only)",
                              text);
    }
    return 0;
}

static int sub_id(const pu_addr *p, bl_kmp_unit u)
{
    return u == BL_KMP_UNIT_SOCKET ? p->pkg : u == BL_KMP_UNIT_CORE ? p->core : p->thr;
}

int bl_omp_hw_subset(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     bl_omp_runtime rt, const char *kmp_hw_subset,
                     hwloc_bitmap_t kept, char *note, size_t note_len,
                     bl_err *err)
{
    bl_kmp_hw_subset h;
    pu_addr *a = NULL;
    int n = 0, max[BL_KMP_UNIT_THREAD + 1] = {0};
    char unused[1];
    if (!note || !note_len) { /* no note wanted */
        note = unused;
        note_len = sizeof unused;
    }
    note[0] = '\0';
    if (bl_kmp_hw_subset_parse(kmp_hw_subset, &h, err) < 0 ||
        hwloc_bitmap_copy(kept, rank_pus) < 0)
        return -1;
    if (rt == BL_OMP_RT_LIBGOMP && h.n > 0)
        (void)bl_textf(note, note_len, "libgomp ignores KMP_HW_SUBSET=%s", kmp_hw_subset);
    if (rt == BL_OMP_RT_LIBGOMP || h.n == 0)
        return 0;
    if (subset_modelled(topo, rank_pus, kmp_hw_subset, &h, err) < 0 ||
        addresses(topo, rank_pus, &a, &n, err) < 0)
        return -1;
    /* units per parent unit, at most: what an item may ask for */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < h.n; j++) {
            int id = sub_id(&a[i], h.item[j].unit);
            if (id + 1 > max[h.item[j].unit])
                max[h.item[j].unit] = id + 1;
        }
    /* libomp ignores the whole variable when an item asks for more units
     * than there are ("too many requested"); Intel's keeps what there is */
    for (int j = 0; rt == BL_OMP_RT_LIBOMP && j < h.n; j++)
        if (h.item[j].count && h.item[j].count + h.item[j].offset > max[h.item[j].unit]) {
            (void)bl_textf(note, note_len, "libomp ignores KMP_HW_SUBSET=%s (\"too "
                           "many requested\"): %ss per %s: at most %d here",
                           kmp_hw_subset, bl_kmp_unit_name(h.item[j].unit),
                           h.item[j].unit == BL_KMP_UNIT_SOCKET ? "machine"
                           : h.item[j].unit == BL_KMP_UNIT_CORE ? "socket" : "core",
                           max[h.item[j].unit]);
            free(a);
            return 0;
        }
    hwloc_bitmap_zero(kept);
    for (int i = 0; i < n; i++) {
        int keep = 1;
        for (int j = 0; j < h.n && keep; j++) {
            int id = sub_id(&a[i], h.item[j].unit);
            keep = id >= h.item[j].offset &&
                   (!h.item[j].count || id < h.item[j].offset + h.item[j].count);
        }
        if (keep)
            hwloc_bitmap_set(kept, (unsigned)a[i].os);
    }
    free(a);
    /* both ignore a subset that keeps nothing */
    if (hwloc_bitmap_iszero(kept)) {
        (void)bl_textf(note, note_len, "KMP_HW_SUBSET=%s keeps none of the CPUs: the "
            "runtime ignores it", kmp_hw_subset);
        hwloc_bitmap_copy(kept, rank_pus);
    }
    return 0;
}
