/* The nodes of a run: which ranks share a host (by gethostname, the name
 * the rank rows record), each node's machine record built on that node
 * and sent to rank 0, and what each rank sent per step to ranks on its own
 * node and on the others (a kernel's traffic, bl_kernel.traffic). */
#ifndef BL_APP_NODES_H
#define BL_APP_NODES_H

#include <stddef.h>

#include <hwloc.h>
#include <mpi.h>

#include "h5/h5schema.h"
#include "kernel.h"

typedef struct bl_app_nodes {
    int n;             /* distinct hosts */
    int *node_of;      /* [nranks]: node index of each rank; node 0 is
                        * rank 0's, the others numbered in order of their
                        * lowest rank */
    int *leader;       /* [n]: the lowest rank of each node */
    int mine;          /* this rank's node */
} bl_app_nodes;

/* Collective: every rank's host name, gathered to all. 0, or -1 with err
 * (out of memory) on this rank. */
int bl_app_nodes_find(MPI_Comm comm, bl_app_nodes *nodes, bl_err *err);
void bl_app_nodes_free(bl_app_nodes *nodes);

/* Collective: the leader of every node describes its machine (topo: its
 * own topology) and sends it to rank 0, which gets all of them in node
 * order in *m (nodes->n records; free with bl_h5_nodes_free). The other
 * ranks get *m NULL. 0, or -1 with err on rank 0 (a record could not be
 * received or built: out of memory). */
int bl_app_nodes_machines(MPI_Comm comm, const bl_app_nodes *nodes,
                          hwloc_topology_t topo, bl_h5_machine **m,
                          bl_err *err);

/* Collective: the kernel's traffic (nothing when it has none: r keeps 0
 * rows) summed per rank into bytes and messages per step to its own node
 * and to other nodes, as /run/traffic rows on rank 0. 0, or -1 with err
 * on rank 0 when it could not allocate. */
int bl_app_nodes_traffic(MPI_Comm comm, const bl_app_nodes *nodes,
                         const bl_kernel *k, bl_kernel_ctx *ctx,
                         bl_h5_run *r, bl_err *err);

#endif
