/* A sweep's per-node topologies (--node-topologies DIR): each node of the
 * Slurm allocation checked against its own. Shared by sweep.c and
 * sweep_item.c; not a public interface. */
#ifndef BL_SWEEP_NODES_H
#define BL_SWEEP_NODES_H

#include <stdio.h>

#include "layout/layout.h"
#include "sweep/sweep_item.h"

/* Loads DIR/HOST.xml (or DIR/nodes/HOST/lstopo.xml, DIR/HOST/lstopo.xml)
 * for every host of c->alloc into c->node_topos; a host without one gets a
 * line on note and this machine's topology. dir NULL: nothing. 0, or -1
 * with err (no such directory, an XML hwloc cannot read). */
int bl_sweep_nodes_load(bl_sweep_ctx *c, const char *dir, FILE *note,
                        bl_err *err);

/* Node k's topology: its own when loaded, else this machine's. */
hwloc_topology_t bl_sweep_node_topo(const bl_sweep_ctx *c, int k);

/* bl_layout_validate, or with per-node topologies loaded, each of the
 * layout's nodes against its own (bl_layout_validate_nodes). */
int bl_sweep_nodes_validate(const bl_sweep_ctx *c, const bl_layout *l,
                            bl_layout_check *out, bl_err *err);

/* The CPUs the job may use on this node (common/allowed.h): c->job_topo
 * and c->job_cpus, against which a single-node layout is checked, so that
 * a layout needing more CPUs than the allocation allows is refused before
 * launching, the set named. 0, or -1 with err. */
int bl_sweep_nodes_load_job(bl_sweep_ctx *c, bl_err *err);

void bl_sweep_nodes_free(bl_sweep_ctx *c);

#endif
