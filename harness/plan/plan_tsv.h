/* The TSV of a plan of several nodes, written node by node as it is made:
 * never held whole in memory, and a node placed like an earlier one (the
 * same share, plan_nodes.h) costs only the writing of its rows. */
#ifndef BL_PLAN_TSV_H
#define BL_PLAN_TSV_H

#include <stdio.h>

#include <hwloc.h>

#include "err.h"
#include "gpu_assign.h"
#include "plan/plan.h"
#include "plan/plan_nodes.h"

/* How GPUs are dealt for the device columns. */
typedef struct bl_plan_tsv_gpus {
    bl_gpu_bind bind;
    int per_rank;
} bl_plan_tsv_gpus;

/* Every row of every node of p (ix indexes p), no header: "RUN_ID\t" when
 * run_id is not NULL, the node (1-based), then bl_plan_write_tsv's
 * columns, then, when gpus is not NULL, the device columns gpus,
 * near_gpus, near_nics of the rank on its node (plan_devices.h). Nodes in
 * order, each node's ranks ascending. node_topo[k]: node k's topology, or
 * NULL for topo on every node. -1 with err when out of memory or f
 * reports a write error. */
int bl_plan_write_tsv_nodes(FILE *f, hwloc_topology_t topo,
                            const hwloc_topology_t *node_topo,
                            const bl_plan *p, const bl_plan_nodes *ix,
                            const char *run_id, const bl_plan_tsv_gpus *gpus,
                            bl_err *err);

#endif
