/* OMP_PLACES into a list of places (plan_omp.h; the binding policy and the
 * thread assignment are in plan_omp.c, the syntax in common/omp_syntax.c).
 * The place order follows libgomp (config/linux/affinity.c). */
#include "plan/plan_omp.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "grow.h"

/* ---- abstract names ---------------------------------------------------- */

/* The last-level cache above pu: its highest-level cache ancestor. */
static hwloc_obj_t last_cache(hwloc_obj_t pu)
{
    hwloc_obj_t best = NULL;
    for (hwloc_obj_t o = pu->parent; o; o = o->parent)
        if (hwloc_obj_type_is_cache(o->type) &&
            (!best || o->attr->cache.depth >= best->attr->cache.depth))
            best = o;
    return best;
}

/* The object whose PUs make one place around pu, or NULL. As on Linux
 * without the object (no core, no package), the PU stands alone / the whole
 * machine is one package. */
static hwloc_obj_t group_of(hwloc_topology_t topo, hwloc_obj_t pu, bl_omp_level lv)
{
    hwloc_obj_t o;
    switch (lv) {
    case BL_OMP_LEVEL_THREADS:
    case BL_OMP_LEVEL_CORES:
        o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        return o ? o : pu;
    case BL_OMP_LEVEL_SOCKETS:
        o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
        return o ? o : hwloc_get_root_obj(topo);
    case BL_OMP_LEVEL_LL_CACHES:
        return last_cache(pu);
    default:
        return NULL;
    }
}

/* libgomp walks the CPUs in ascending order and makes a place of the first
 * CPU's core (package, cache) not yet used, so places are ordered by their
 * lowest CPU; "threads" lists the PUs core by core. NUMA domains come in
 * node number order. */
/* The PU objects by OS index (NULL where none): hwloc's own lookup walks
 * every PU, too slow once per core of a 16,384-PU node. */
static hwloc_obj_t *pus_by_os(hwloc_topology_t topo)
{
    int last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo));
    hwloc_obj_t *by_os = calloc((size_t)(last > 0 ? last : 0) + 1,
                                sizeof *by_os), pu = NULL;
    while (by_os &&
           (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) != NULL)
        if ((int)pu->os_index <= last)
            by_os[pu->os_index] = pu;
    return by_os;
}

static int abstract_places(hwloc_topology_t topo, hwloc_const_bitmap_t mask,
                           bl_omp_level lv, long count, bl_omp_place_list *l, bl_err *err)
{
    if (lv == BL_OMP_LEVEL_NUMA) {
        unsigned prev = 0;
        for (int first = 1; l->n < count; first = 0) {
            hwloc_obj_t node = NULL, o = NULL; /* next node by number */
            while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)))
                if ((first || o->os_index > prev) && (!node || o->os_index < node->os_index))
                    node = o;
            if (!node)
                break;
            prev = node->os_index;
            hwloc_bitmap_t p = hwloc_bitmap_dup(node->cpuset);
            if (!p)
                return bl_err_set(err, "out of memory");
            hwloc_bitmap_and(p, p, mask);
            if (hwloc_bitmap_iszero(p))
                hwloc_bitmap_free(p);
            else if (bl_omp_place_push(l, p) < 0)
                return bl_err_set(err, "out of memory");
        }
        return 0;
    }
    hwloc_bitmap_t left = hwloc_bitmap_dup(mask);
    int cpu, rc = 0;
    hwloc_obj_t *by_os = pus_by_os(topo);
    if (!left || !by_os) {
        hwloc_bitmap_free(left);
        free(by_os);
        return bl_err_set(err, "out of memory");
    }
    hwloc_bitmap_and(left, left, hwloc_topology_get_topology_cpuset(topo));
    while (rc == 0 && l->n < count && (cpu = hwloc_bitmap_first(left)) >= 0) {
        hwloc_obj_t pu = by_os[cpu];
        hwloc_obj_t g = pu ? group_of(topo, pu, lv) : NULL;
        if (!g) { /* libgomp drops a CPU whose cache it cannot read */
            hwloc_bitmap_clr(left, (unsigned)cpu);
            continue;
        }
        hwloc_bitmap_t set = hwloc_bitmap_dup(g->cpuset);
        if (!set) {
            rc = bl_err_set(err, "out of memory");
            break;
        }
        hwloc_bitmap_and(set, set, left);
        hwloc_bitmap_andnot(left, left, set);
        if (lv != BL_OMP_LEVEL_THREADS) {
            if (bl_omp_place_push(l, set) < 0)
                rc = bl_err_set(err, "out of memory");
            continue;
        }
        int i;
        hwloc_bitmap_foreach_begin(i, set) {
            if (rc == 0 && l->n < count) {
                hwloc_bitmap_t one = hwloc_bitmap_alloc();
                if (one)
                    hwloc_bitmap_only(one, (unsigned)i);
                if (bl_omp_place_push(l, one) < 0)
                    rc = bl_err_set(err, "out of memory");
            }
        } hwloc_bitmap_foreach_end();
        hwloc_bitmap_free(set);
    }
    hwloc_bitmap_free(left);
    free(by_os);
    if (rc == 0 && l->n == 0 && lv == BL_OMP_LEVEL_LL_CACHES)
        return bl_err_set(err, "OMP_PLACES 'll_caches': the topology shows no cache above "
                               "the rank's PUs; use cores, sockets or numa_domains");
    return rc;
}

int bl_omp_places(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, hwloc_bitmap_t **places,
                  int *nplaces, bl_err *err)
{
    bl_omp_place_list l = {0};
    bl_omp_level lv;
    long count;
    int named, rc;

    *places = NULL;
    *nplaces = 0;
    if (!rank_pus || hwloc_bitmap_iszero(rank_pus))
        return bl_err_set(err, "OMP_PLACES: the rank's cpuset is empty");
    named = bl_omp_places_name(omp_places, &lv, &count, err);
    if (named < 0)
        return -1;
    if (named) {
        rc = abstract_places(topo, rank_pus, lv, count, &l, err);
    } else {
        int n = 0;
        rc = bl_omp_places_explicit(omp_places, &l.v, &n, err);
        l.n = n;
    }
    if (rc < 0) {
        bl_omp_places_free(l.v, l.n);
        return -1;
    }
    /* libgomp keeps only the CPUs the process may use and drops places
     * left empty (affinity.c, gomp_affinity_finalize_place_list). */
    int kept = 0;
    for (int i = 0; i < l.n; i++) {
        hwloc_bitmap_and(l.v[i], l.v[i], rank_pus);
        if (hwloc_bitmap_iszero(l.v[i]))
            hwloc_bitmap_free(l.v[i]);
        else
            l.v[kept++] = l.v[i];
    }
    if (kept == 0) {
        free(l.v);
        return 0;
    }
    *places = l.v;
    *nplaces = kept;
    return 0;
}
