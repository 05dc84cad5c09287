/* What MPICH's Hydra and Intel MPI (Hydra underneath) share: the layouts
 * both refuse, -ppn across nodes, and the -np / -ppn / -genv words.
 * Spellings checked on real launches
 * (tests/fixtures/bindreport/hydra-*.txt, impi-*.txt). */
#include "launcher/launcher_priv.h"

#include <stdio.h>
#include <string.h>


const char *bl_hydra_obj(bl_res r)
{
    switch (r) {
    case BL_RES_HWTHREAD: return "hwthread";
    case BL_RES_CORE:
    case BL_RES_SLOT: return "core"; /* Open MPI's slots are cores */
    case BL_RES_L3CACHE: return "l3cache";
    case BL_RES_NUMA: return "numa";
    case BL_RES_PACKAGE: return "socket";
    default: return NULL;
    }
}

int bl_hydra_common_check(const bl_layout *l, const char *who, bl_err *err)
{
    const bl_mapby *m = &l->map;
    if (l->rank_by[0])
        return bl_err_set(err, "rank_by '%s': %s has no --rank-by (ranks "
                          "are numbered in mapping order); remove rank_by "
                          "for this launcher", l->rank_by, who);
    if (m->span)
        return bl_err_set(err, "map_by '%s': %s has no :span; remove it "
                          "for this launcher", l->map_by, who);
    if (m->ppr && m->res != BL_RES_NODE)
        return bl_err_set(err, "map_by '%s': %s has no ppr over %s (its "
                          "-ppn counts processes per node); use map_by %s "
                          "(round robin over them) or ppr:N:node",
                          l->map_by, who, bl_res_name(m->res),
                          bl_res_name(m->res));
    if (!m->ppr && m->res == BL_RES_NODE && l->nodes < 1)
        return bl_err_set(err, "map_by node: %s maps inside a node by an "
                          "object; use map_by core (or ppr:N:node), or "
                          "give nodes", who);
    /* Across nodes Open MPI gives a node as many ranks as it has slots
     * (cores); with PE=n it refuses map_by core:PE=n there and would
     * count cores per rank otherwise, which -ppn cannot say. */
    if (l->nodes > 0 && m->pe && !(m->ppr && m->res == BL_RES_NODE))
        return bl_err_set(err, "map_by '%s' with nodes %d: %s spreads "
                          "ranks over nodes with -ppn, which counts ranks, "
                          "not cores; give ppr:N:node:PE=%d", l->map_by,
                          l->nodes, who, m->pe);
    return 0;
}

/* -ppn for a layout with nodes, as Open MPI spreads it over hosts of C
 * slots (C = cores per node): ppr:K:node puts K on each node, map_by node
 * one at a time round robin (Hydra's -ppn 1 starts over at the first host
 * when every host has one), anything else fills a node's C slots before
 * the next (-ppn C). */
static int ppn_of(const bl_layout *l, hwloc_topology_t topo)
{
    int cores = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) : 0;
    if (l->nodes < 1)
        return 0;
    if (l->map.ppr && l->map.res == BL_RES_NODE)
        return l->map.ppr;
    if (l->map.res == BL_RES_NODE)
        return 1;
    return cores > 0 ? cores
                     : (topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)
                             : 0);
}

int bl_hydra_set_ppn(bl_layout *l, hwloc_topology_t topo, bl_err *err)
{
    l->ppn_launcher = ppn_of(l, topo);
    if (l->nodes > 0 && l->ppn_launcher < 1)
        return bl_err_set(err, "nodes %d: no topology to count the cores "
                          "per node for -ppn", l->nodes);
    return 0;
}

void bl_hydra_genv(bl_cmd *c, const char *name, const char *value)
{
    bl_cmd_add(c, "-genv");
    bl_cmd_add(c, name);
    bl_cmd_add(c, value);
}

void bl_hydra_genv_pair(bl_cmd *c, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char name[32];
    if (!eq || (size_t)(eq - kv) >= sizeof name)
        return;
    memcpy(name, kv, (size_t)(eq - kv));
    name[eq - kv] = '\0';
    bl_hydra_genv(c, name, eq + 1);
}

void bl_hydra_counts(bl_cmd *c, const bl_layout *l)
{
    bl_cmd_add(c, "-np");
    bl_cmd_addf(c, "%d", l->np);
    /* across nodes, the ranks of each (bl_hydra_set_ppn); on one node,
     * ppr:N:node's N */
    if (l->ppn_launcher > 0 || l->map.ppr) {
        bl_cmd_add(c, "-ppn");
        bl_cmd_addf(c, "%d", l->ppn_launcher > 0 ? l->ppn_launcher
                                                 : l->map.ppr);
    }
}

static void genv(void *c, const char *name, const char *value)
{
    bl_hydra_genv(c, name, value);
}

void bl_hydra_omp(bl_cmd *c, const bl_layout *l, const bl_layout_argv_opts *o)
{
    bl_launcher_omp_env(l, o, genv, c);
}
