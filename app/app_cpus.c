#include "app_cpus.h"

#include <stdlib.h>

#include "topo.h"

static size_t largest_cache_above(hwloc_obj_t pu)
{
    size_t best = 0;
    for (hwloc_obj_t o = pu; o; o = o->parent)
        if (hwloc_obj_type_is_dcache(o->type) && o->attr &&
            o->attr->cache.size > best)
            best = (size_t)o->attr->cache.size;
    return best;
}

int bl_app_kernel_cpus(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                       bl_kernel_cpu **out, int *n, size_t *llc, bl_err *err)
{
    int count = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set,
                                                       HWLOC_OBJ_PU);
    bl_kernel_cpu *c = calloc((size_t)(count > 0 ? count : 1), sizeof *c);
    hwloc_obj_t pu = NULL;
    int k = 0;
    *out = NULL;
    *n = 0;
    *llc = 0;
    if (!c)
        return bl_err_set(err, "out of memory for %d PUs", count);
    while (k < count &&
           (pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set,
                                                          HWLOC_OBJ_PU, pu))) {
        bl_pu_where w;
        if (bl_topo_pu_where(topo, (int)pu->os_index, &w, err) < 0) {
            free(c);
            return -1;
        }
        c[k].os = w.pu_os;
        c[k].pu = w.pu;
        c[k].core = w.core;
        c[k].l3 = w.l3;
        c[k].numa = w.numa;
        c[k].package = w.package;
        if (k == 0)
            *llc = largest_cache_above(pu);
        k++;
    }
    *out = c;
    *n = k;
    return 0;
}
