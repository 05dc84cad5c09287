/* --node-topologies DIR: the topology of each node of the allocation, so
 * that a layout with nodes is checked against every node's own shape. */
#include "sweep/sweep_nodes.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "allowed.h"
#include "layout/node_topos.h"
#include "topo.h"

int bl_sweep_nodes_load(bl_sweep_ctx *c, const char *dir, FILE *note,
                        bl_err *err)
{
    if (!dir)
        return 0;
    if (access(dir, X_OK) != 0)
        return bl_err_set(err, "--node-topologies %s: no such directory "
                          "(give the directory holding HOST.xml for each "
                          "node, or a bindlab slurm job's record with "
                          "nodes/HOST/lstopo.xml)", dir);
    if (c->alloc.n == 0) {
        if (note)
            fprintf(note, "bindlab sweep: --node-topologies: not inside a "
                    "Slurm allocation (SLURM_JOB_NODELIST unset): every node "
                    "is checked with this machine's topology\n");
        return 0;
    }
    c->node_topos = calloc((size_t)c->alloc.n, sizeof *c->node_topos);
    if (!c->node_topos)
        return bl_err_set(err, "out of memory");
    for (int k = 0; k < c->alloc.n; k++) {
        char path[PATH_MAX];
        if (bl_node_topos_path(dir, c->alloc.hosts[k], path, sizeof path) < 0) {
            if (note)
                fprintf(note, "bindlab sweep: --node-topologies: no %s/%s.xml "
                        "(nor nodes/%s/lstopo.xml): node %s is checked with "
                        "this machine's topology\n", dir, c->alloc.hosts[k],
                        c->alloc.hosts[k], c->alloc.hosts[k]);
            continue;
        }
        if (bl_topo_load(path, &c->node_topos[k], err) < 0)
            return bl_err_prefix(err, "--node-topologies: node %s (%s)",
                                 c->alloc.hosts[k], path);
    }
    return 0;
}

hwloc_topology_t bl_sweep_node_topo(const bl_sweep_ctx *c, int k)
{
    if (c->node_topos && k >= 0 && k < c->alloc.n && c->node_topos[k])
        return c->node_topos[k];
    return c->topo;
}

int bl_sweep_nodes_validate(const bl_sweep_ctx *c, const bl_layout *l,
                            bl_layout_check *out, bl_err *err)
{
    hwloc_topology_t *topos;
    int rc;
    /* more nodes than the allocation has: check_nodes says so */
    if (l->nodes <= 1 && c->job_topo) {
        if (bl_layout_validate(l, c->job_topo, c->o->oversubscribe, out,
                               err) == 0)
            return 0;
        return bl_err_prefix(err, "inside the allowed CPUs %s", c->job_cpus);
    }
    if (!c->node_topos || l->nodes <= 1 || l->nodes > c->alloc.n)
        return bl_layout_validate(l, c->topo, c->o->oversubscribe, out, err);
    topos = calloc((size_t)l->nodes, sizeof *topos);
    if (!topos)
        return bl_err_set(err, "out of memory");
    for (int k = 0; k < l->nodes; k++)
        topos[k] = bl_sweep_node_topo(c, k);
    rc = bl_layout_validate_nodes(l, topos,
                                  (const char *const *)c->alloc.hosts,
                                  c->o->oversubscribe, out, err);
    free(topos);
    return rc;
}

int bl_sweep_nodes_load_job(bl_sweep_ctx *c, bl_err *err)
{
    bl_allowed a;
    char list[256], from[256];
    int rc = bl_allowed_gather(&a, NULL, err);
    if (rc == 0)
        rc = bl_allowed_restrict(&a, c->topo, &c->job_topo, err);
    if (rc == 0) {
        bl_allowed_list(&a, list, sizeof list);
        bl_allowed_sources(&a, from, sizeof from);
        bl_textf(c->job_cpus, sizeof c->job_cpus, "%s (%s)", list, from);
    }
    bl_allowed_free(&a);
    return rc < 0 ? bl_err_prefix(err, "the CPUs this job may use") : 0;
}

void bl_sweep_nodes_free(bl_sweep_ctx *c)
{
    if (c->job_topo)
        hwloc_topology_destroy(c->job_topo);
    c->job_topo = NULL;
    for (int k = 0; c->node_topos && k < c->alloc.n; k++)
        if (c->node_topos[k])
            hwloc_topology_destroy(c->node_topos[k]);
    free(c->node_topos);
    c->node_topos = NULL;
}
