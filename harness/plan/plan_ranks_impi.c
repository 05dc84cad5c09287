/* Intel MPI's rank placement, modelled by bindlab. Intel MPI pins each rank
 * inside MPI_Init, from its own CPU detection: under HWLOC_XMLFILE and the
 * affinity-recording preload it still saw this machine's CPUs (every rank
 * on all PUs of the fake node, or on this VM's two cores with
 * I_MPI_HYDRA_TOPOLIB=hwloc), so it cannot be asked about another node.
 * The model, for the variables bindlab passes (layout_hydra.c):
 *   I_MPI_PIN=0                  every rank unbound (the whole node);
 *   I_MPI_PIN_DOMAIN=N:compact   domains of N consecutive PUs in hwloc's
 *                                logical order (SMT siblings together);
 *   I_MPI_PIN_DOMAIN=core|cache3|numa|socket
 *                                one domain per core, L3, NUMA node or
 *                                package; I_MPI_PIN_ORDER=compact orders
 *                                them as hwloc's logical order (neighbours
 *                                first), range by number (the OS index of
 *                                the NUMA node or package, the lowest PU
 *                                of an L3);
 * rank i gets domain i, wrapping around past the last domain. On the
 * development VM (1 package, 2 cores) the real Intel MPI 2021.19 agreed
 * for every domain kind with 1 to 3 ranks, wrap-around included
 * (tests/integration/test_plan_hydra.sh); on larger nodes the order is
 * the model's, and the plan says so. */
#include "plan/plan_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    hwloc_obj_type_t type;
} domain_kinds[] = {
    {"core", HWLOC_OBJ_CORE},       {"cache3", HWLOC_OBJ_L3CACHE},
    {"numa", HWLOC_OBJ_NUMANODE},   {"socket", HWLOC_OBJ_PACKAGE},
};

/* The key of an object in "range" order: its number. */
static unsigned range_key(hwloc_obj_t o)
{
    if (o->type == HWLOC_OBJ_NUMANODE || o->type == HWLOC_OBJ_PACKAGE)
        return o->os_index;
    return (unsigned)hwloc_bitmap_first(o->cpuset);
}

static int by_range(const void *pa, const void *pb)
{
    unsigned a = range_key(*(hwloc_obj_t const *)pa);
    unsigned b = range_key(*(hwloc_obj_t const *)pb);
    return (a > b) - (a < b);
}

/* "I_MPI_PIN_DOMAIN=core" -> "core" */
static const char *value_of(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? eq + 1 : kv;
}

static int alloc_ranks(bl_plan *out, int np, bl_err *err)
{
    out->rank_pus = calloc((size_t)np, sizeof *out->rank_pus);
    out->rank_bound = calloc((size_t)np, sizeof *out->rank_bound);
    if (!out->rank_pus || !out->rank_bound)
        return bl_err_set(err, "out of memory");
    out->nranks = np;
    for (int r = 0; r < np; r++)
        if (!(out->rank_pus[r] = hwloc_bitmap_alloc()))
            return bl_err_set(err, "out of memory");
    return 0;
}

/* N:compact: PUs in logical order, N at a time. */
static int pu_domains(const bl_layout *l, hwloc_topology_t topo, int n,
                      bl_plan *out, bl_err *err)
{
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int ndom = n > 0 ? npus / n : 0;
    if (ndom < 1)
        return bl_err_set(err, "I_MPI_PIN_DOMAIN=%d:compact: the node has "
                          "only %d PUs", n, npus);
    for (int r = 0; r < l->np; r++) {
        int d = r % ndom;
        for (int k = 0; k < n; k++) {
            hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU,
                                                   (unsigned)(d * n + k));
            hwloc_bitmap_set(out->rank_pus[r], pu->os_index);
        }
        out->rank_bound[r] = 1;
    }
    return 0;
}

static int obj_domains(const bl_layout *l, hwloc_topology_t topo,
                       hwloc_obj_type_t type, int range, bl_plan *out,
                       bl_err *err)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    hwloc_obj_t *objs;
    if (n < 1)
        return bl_err_set(err, "the node has no %s objects for Intel MPI's "
                          "domains", hwloc_obj_type_string(type));
    if (!(objs = calloc((size_t)n, sizeof *objs)))
        return bl_err_set(err, "out of memory");
    for (int i = 0; i < n; i++)
        objs[i] = hwloc_get_obj_by_type(topo, type, (unsigned)i);
    if (range)
        qsort(objs, (size_t)n, sizeof *objs, by_range);
    for (int r = 0; r < l->np; r++) {
        hwloc_bitmap_copy(out->rank_pus[r], objs[r % n]->cpuset);
        out->rank_bound[r] = 1;
    }
    free(objs);
    return 0;
}

int bl_plan_ranks_impi_model(const bl_layout *l, hwloc_topology_t topo,
                             const bl_launcher_info *li, bl_plan *out,
                             bl_err *err)
{
    const char *domain = value_of(l->bind_to_launcher);
    const char *order = value_of(l->map_by_launcher);
    int n = 0;
    char extra;

    snprintf(out->launcher, sizeof out->launcher, "Intel MPI %s",
             li->version);
    if (l->bind == BL_RES_NONE)
        snprintf(out->how, sizeof out->how, "modelled by bindlab, not "
                 "computed by Intel MPI: %s, no rank pinned",
                 l->bind_to_launcher);
    else
        snprintf(out->how, sizeof out->how, "modelled by bindlab, not "
                 "computed by Intel MPI (it pins from its own CPU detection "
                 "and ignores HWLOC_XMLFILE): %s, %s: rank i gets domain i "
                 "in that order, wrapping around past the last",
                 l->bind_to_launcher, l->map_by_launcher);
    out->modelled = 1;
    if (alloc_ranks(out, l->np, err) < 0)
        return -1;
    if (l->bind == BL_RES_NONE) {
        for (int r = 0; r < l->np; r++)
            hwloc_bitmap_copy(out->rank_pus[r],
                              hwloc_topology_get_topology_cpuset(topo));
        return 0;
    }
    if (sscanf(domain, "%d:compact%c", &n, &extra) == 1)
        return pu_domains(l, topo, n, out, err);
    for (size_t i = 0; i < sizeof domain_kinds / sizeof domain_kinds[0]; i++)
        if (strcmp(domain, domain_kinds[i].name) == 0)
            return obj_domains(l, topo, domain_kinds[i].type,
                               strcmp(order, "range") == 0, out, err);
    return bl_err_set(err, "I_MPI_PIN_DOMAIN=%s: bindlab has no model of "
                      "it", domain);
}
