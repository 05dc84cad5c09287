/* A plan's devices shown: the text section and the warnings
 * (plan_devices.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "plan/plan_devices.h"

static const char *kind_name(bl_device_kind k)
{
    return k == BL_DEVICE_GPU ? "gpu" : "nic";
}

static int given(const bl_plan_devices *d, const bl_plan_rank_devices *rd,
                 int r, int dev)
{
    size_t ng = d->ngpus > 0 ? (size_t)d->ngpus : 1;
    const int *a = rd->assigned + (size_t)r * ng;
    for (int j = 0; j < d->ngpus && a[j] >= 0; j++)
        if (a[j] == dev)
            return 1;
    return 0;
}

/* The rank numbers near device dev (assigned 0) or given it (1), as a
 * list ("0-3,8"), "-" for none. */
static void device_ranks(const bl_plan *p, const bl_plan_devices *d,
                         const bl_plan_rank_devices *rd, int dev,
                         int assigned, char *buf, size_t len)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    for (int r = 0; s && r < p->nranks; r++)
        if (assigned ? given(d, rd, r, dev)
                     : rd->near[(size_t)r * (size_t)d->n + (size_t)dev])
            hwloc_bitmap_set(s, (unsigned)bl_plan_rank_number(p, r));
    if (!s || hwloc_bitmap_iszero(s) ||
        bl_cpuset_format_list(s, buf, len) < 0)
        snprintf(buf, len, "-");
    hwloc_bitmap_free(s);
}

static void where_text(int numa, int package, char *buf, size_t len)
{
    char n[16] = "-", k[16] = "-";
    if (numa >= 0)
        snprintf(n, sizeof n, "%d", numa);
    if (package >= 0)
        snprintf(k, sizeof k, "%d", package);
    snprintf(buf, len, "numa %s package %s", n, k);
}

int bl_plan_devices_write(FILE *f, const bl_plan *p,
                          const bl_plan_devices *d,
                          const bl_plan_rank_devices *rd)
{
    char near[256], gets[256], where[48], idx[16];
    fprintf(f, "devices (GPUs numbered per vendor in PCI bus order; "
               "gpu-bind %s, %d per rank):\n",
            bl_gpu_bind_name(rd->how), rd->per_rank);
    for (int i = 0; i < d->n; i++) {
        const bl_plan_device *v = &d->dev[i];
        snprintf(idx, sizeof idx, v->index >= 0 ? "%d" : "-", v->index);
        where_text(v->numa, v->package, where, sizeof where);
        device_ranks(p, d, rd, i, 0, near, sizeof near);
        device_ranks(p, d, rd, i, 1, gets, sizeof gets);
        fprintf(f, "  %s %-3s %s  %04x  %-14s %s  near ranks %s",
                kind_name(v->kind), idx, v->busid, v->vendor,
                v->names[0] ? v->names : "-", where, near);
        if (v->kind == BL_DEVICE_GPU && rd->how != BL_GPU_BIND_NONE)
            fprintf(f, "  given to %s", gets);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* --- warnings --------------------------------------------------------- */

static int add(bl_plan_warning **w, size_t *n, bl_plan_warning_kind kind,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add(bl_plan_warning **w, size_t *n, bl_plan_warning_kind kind,
               const char *fmt, ...)
{
    va_list ap;
    bl_plan_warning *grown = realloc(*w, (*n + 1) * sizeof **w);
    if (!grown)
        return -1;
    *w = grown;
    grown[*n].kind = kind;
    va_start(ap, fmt);
    vsnprintf(grown[*n].text, sizeof grown[*n].text, fmt, ap);
    va_end(ap);
    (*n)++;
    return 0;
}

/* "rank 3" or "ranks 0-3,8". */
static void ranks_text(hwloc_const_bitmap_t ranks, char *buf, size_t len)
{
    char list[128];
    if (bl_cpuset_format_list(ranks, list, sizeof list) >= (int)sizeof list)
        snprintf(list + sizeof list - 4, 4, "...");
    snprintf(buf, len, "%s %s",
             hwloc_bitmap_weight(ranks) == 1 ? "rank" : "ranks", list);
}

/* The logical indexes of the objects of type that pus meets ("0,1"). */
static void objs_text(hwloc_topology_t topo, hwloc_obj_type_t type,
                      hwloc_const_bitmap_t pus, char *buf, size_t len)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    hwloc_obj_t o = NULL;
    while (s && (o = hwloc_get_next_obj_by_type(topo, type, o)))
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, pus))
            hwloc_bitmap_set(s, o->logical_index);
    if (!s || hwloc_bitmap_iszero(s) ||
        bl_cpuset_format_list(s, buf, len) < 0)
        snprintf(buf, len, "-");
    hwloc_bitmap_free(s);
}

/* Ranks of the plan with no device of kind local to their cores. */
static int no_local(hwloc_topology_t topo, const bl_plan *p,
                    const bl_plan_devices *d, bl_device_kind kind,
                    bl_plan_warning **w, size_t *n)
{
    hwloc_bitmap_t ranks = hwloc_bitmap_alloc();
    char who[160], numa[64];
    int have = 0, first = -1, rc = 0;
    for (int i = 0; i < d->n; i++)
        have |= d->dev[i].kind == kind;
    for (int r = 0; ranks && have && r < p->nranks; r++) {
        int local = 0;
        if (!bl_plan_rank_here(p, r))
            continue;
        for (int i = 0; i < d->n; i++)
            local |= d->dev[i].kind == kind &&
                     hwloc_bitmap_intersects(d->dev[i].cpus, p->rank_pus[r]);
        if (!local) {
            hwloc_bitmap_set(ranks, (unsigned)bl_plan_rank_number(p, r));
            first = first < 0 ? r : first;
        }
    }
    if (!ranks)
        return -1;
    if (first >= 0) {
        ranks_text(ranks, who, sizeof who);
        objs_text(topo, HWLOC_OBJ_NUMANODE, p->rank_pus[first], numa,
                  sizeof numa);
        rc = add(w, n, kind == BL_DEVICE_GPU ? BL_PLAN_W_NO_LOCAL_GPU
                                             : BL_PLAN_W_NO_LOCAL_NIC,
                 "%s: no %s is attached near their cores (rank %d's are on "
                 "NUMA node %s): every transfer crosses to another NUMA node",
                 who, kind == BL_DEVICE_GPU ? "GPU" : "network card",
                 bl_plan_rank_number(p, first), numa);
    }
    hwloc_bitmap_free(ranks);
    return rc;
}

/* Ranks given a GPU not local to their cores. */
static int remote(hwloc_topology_t topo, const bl_plan *p,
                  const bl_plan_devices *d, const bl_plan_rank_devices *rd,
                  bl_plan_warning **w, size_t *n)
{
    hwloc_bitmap_t ranks = hwloc_bitmap_alloc();
    char who[160], numa[64], pkg[64], where[48];
    int fr = -1, fd = -1, rc = 0;
    for (int r = 0; ranks && r < p->nranks; r++)
        for (int g = 0; g < d->ngpus; g++)
            if (given(d, rd, r, g) &&
                !hwloc_bitmap_intersects(d->dev[g].cpus, p->rank_pus[r])) {
                hwloc_bitmap_set(ranks, (unsigned)bl_plan_rank_number(p, r));
                if (fr < 0)
                    fr = r, fd = g;
            }
    if (!ranks)
        return -1;
    if (fr >= 0) {
        ranks_text(ranks, who, sizeof who);
        objs_text(topo, HWLOC_OBJ_NUMANODE, p->rank_pus[fr], numa,
                  sizeof numa);
        objs_text(topo, HWLOC_OBJ_PACKAGE, p->rank_pus[fr], pkg, sizeof pkg);
        where_text(d->dev[fd].numa, d->dev[fd].package, where, sizeof where);
        rc = add(w, n, BL_PLAN_W_GPU_REMOTE,
                 "%s given a GPU on another NUMA node or package than their "
                 "cores: rank %d (numa %s package %s) gets %s (%s)", who,
                 bl_plan_rank_number(p, fr), numa, pkg, d->dev[fd].busid,
                 where);
    }
    hwloc_bitmap_free(ranks);
    return rc;
}

/* A GPU given to two ranks or more while another is given to none. */
static int shared(const bl_plan *p, const bl_plan_devices *d,
                  const bl_plan_rank_devices *rd, bl_plan_warning **w,
                  size_t *n)
{
    int busy = -1, idle = -1, users = 0;
    for (int g = 0; g < d->ngpus; g++) {
        int k = 0;
        for (int r = 0; r < p->nranks; r++)
            k += given(d, rd, r, g);
        if (k == 0 && idle < 0)
            idle = g;
        if (k > 1 && busy < 0)
            busy = g, users = k;
    }
    if (busy < 0 || idle < 0)
        return 0;
    return add(w, n, BL_PLAN_W_GPU_SHARED,
               "GPU %s is given to %d ranks while GPU %s is given to none",
               d->dev[busy].busid, users, d->dev[idle].busid);
}

int bl_plan_devices_warnings(hwloc_topology_t topo, const bl_plan *p,
                             const bl_plan_devices *d,
                             const bl_plan_rank_devices *rd,
                             bl_plan_warning **w, size_t *n, bl_err *err)
{
    if (no_local(topo, p, d, BL_DEVICE_GPU, w, n) < 0 ||
        no_local(topo, p, d, BL_DEVICE_NIC, w, n) < 0 ||
        remote(topo, p, d, rd, w, n) < 0 || shared(p, d, rd, w, n) < 0)
        return bl_err_set(err, "device warnings: out of memory");
    return 0;
}
