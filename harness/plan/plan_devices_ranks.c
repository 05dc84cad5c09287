/* Which devices are near each rank of a plan and which it is given
 * (plan_devices.h). */
#include "plan/plan_devices.h"

#include <stdlib.h>
#include <string.h>

/* The topology's NUMA latency between the NUMA nodes of logical indexes a
 * and b, or 0 when it has no such matrix. */
static hwloc_uint64_t numa_latency(hwloc_topology_t topo, int a, int b)
{
    struct hwloc_distances_s *dist;
    unsigned nr = 1;
    hwloc_uint64_t v = 0, back;
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY,
                                    0) < 0 || nr == 0)
        return 0;
    hwloc_obj_t x = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                          (unsigned)a);
    hwloc_obj_t y = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                          (unsigned)b);
    if (x && y)
        (void)hwloc_distances_obj_pair_values(dist, x, y, &v, &back);
    hwloc_distances_release(topo, dist);
    return v;
}

/* The smallest latency from a NUMA node the rank's PUs reach to the
 * device's NUMA node; 0 when unknown. */
static hwloc_uint64_t rank_latency(hwloc_topology_t topo,
                                   hwloc_const_bitmap_t pus,
                                   const bl_plan_device *d)
{
    hwloc_uint64_t best = 0;
    hwloc_obj_t n = NULL;
    if (d->numa < 0)
        return 0;
    while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n))) {
        if (!n->cpuset || !hwloc_bitmap_intersects(n->cpuset, pus))
            continue;
        hwloc_uint64_t v = numa_latency(topo, (int)n->logical_index,
                                        d->numa);
        if (v && (!best || v < best))
            best = v;
    }
    return best;
}

/* Marks rank r's nearest devices of kind in near[]. */
static void mark_near(hwloc_topology_t topo, hwloc_const_bitmap_t pus,
                      const bl_plan_devices *d, bl_device_kind kind,
                      unsigned char *near)
{
    hwloc_uint64_t best = 0;
    int any = 0;
    for (int i = 0; i < d->n; i++)
        if (d->dev[i].kind == kind &&
            hwloc_bitmap_intersects(d->dev[i].cpus, pus))
            near[i] = 1, any = 1;
    if (any)
        return;
    for (int i = 0; i < d->n; i++) {
        hwloc_uint64_t v = d->dev[i].kind == kind
                               ? rank_latency(topo, pus, &d->dev[i]) : 0;
        if (v && (!best || v < best))
            best = v;
    }
    for (int i = 0; best && i < d->n; i++)
        if (d->dev[i].kind == kind &&
            rank_latency(topo, pus, &d->dev[i]) == best)
            near[i] = 1;
}

/* The bindings of the entries of entry r's node up to r, in order, into
 * local; returns r's local rank. */
static int node_bindings(const bl_plan *p, int r,
                         hwloc_const_bitmap_t *local)
{
    int lr = 0;
    for (int i = 0; i <= r; i++)
        if (bl_plan_rank_here(p, i) &&
            (!p->rank_node || p->rank_node[i] == p->rank_node[r]))
            local[lr++] = p->rank_pus[i];
    return lr - 1;
}

int bl_plan_rank_devices_make(hwloc_topology_t topo, const bl_plan *p,
                              const bl_plan_devices *d, bl_gpu_bind how,
                              int per_rank, bl_plan_rank_devices *out,
                              bl_err *err)
{
    size_t nr = p->nranks > 0 ? (size_t)p->nranks : 1;
    size_t ng = d->ngpus > 0 ? (size_t)d->ngpus : 1;
    hwloc_const_bitmap_t *gpu_cpus = calloc(ng, sizeof *gpu_cpus);
    hwloc_const_bitmap_t *local = calloc(nr, sizeof *local);

    memset(out, 0, sizeof *out);
    out->nranks = p->nranks;
    out->how = how;
    out->per_rank = per_rank;
    out->near = calloc(nr * (size_t)(d->n > 0 ? d->n : 1), 1);
    out->assigned = malloc(nr * ng * sizeof *out->assigned);
    if (!gpu_cpus || !local || !out->near || !out->assigned) {
        free(gpu_cpus);
        free(local);
        bl_plan_rank_devices_free(out);
        return bl_err_set(err, "devices: out of memory");
    }
    for (int g = 0; g < d->ngpus; g++)
        gpu_cpus[g] = d->dev[g].cpus;
    for (int r = 0; r < p->nranks; r++) {
        int *a = out->assigned + (size_t)r * ng, got = 0;
        if (bl_plan_rank_here(p, r)) {
            mark_near(topo, p->rank_pus[r], d, BL_DEVICE_GPU,
                      out->near + (size_t)r * (size_t)d->n);
            mark_near(topo, p->rank_pus[r], d, BL_DEVICE_NIC,
                      out->near + (size_t)r * (size_t)d->n);
            got = bl_gpu_assign(how, per_rank, node_bindings(p, r, local),
                                local, d->ngpus, gpu_cpus, a);
        }
        for (int j = got; j < (int)ng; j++)
            a[j] = -1;
    }
    free(gpu_cpus);
    free(local);
    return 0;
}

void bl_plan_rank_devices_free(bl_plan_rank_devices *rd)
{
    free(rd->near);
    free(rd->assigned);
    memset(rd, 0, sizeof *rd);
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? "," : "", s);
}

void bl_plan_rank_devices_text(const bl_plan_devices *d,
                               const bl_plan_rank_devices *rd, int r,
                               bl_device_kind kind, int assigned, char *buf,
                               size_t len)
{
    size_t ng = d->ngpus > 0 ? (size_t)d->ngpus : 1;
    buf[0] = '\0';
    if (assigned) {
        const int *a = rd->assigned + (size_t)r * ng;
        for (int j = 0; j < d->ngpus && a[j] >= 0; j++)
            append(buf, len, d->dev[a[j]].busid);
    } else {
        for (int i = 0; i < d->n; i++)
            if (d->dev[i].kind == kind && rd->near[(size_t)r * d->n + i])
                append(buf, len, d->dev[i].busid);
    }
    if (!buf[0])
        snprintf(buf, len, "-");
}
