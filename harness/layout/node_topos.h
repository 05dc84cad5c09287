/* Where the topology of each node lies in a --node-topologies DIR (the
 * same DIR for bindlab sweep and bindlab plan): DIR/HOST.xml (hwloc XML,
 * lstopo-no-graphics --of xml on that node), or what a `bindlab slurm` job
 * of several nodes saves: DIR/nodes/HOST/lstopo.xml (DIR the job's record)
 * or DIR/HOST/lstopo.xml (DIR its nodes/). */
#ifndef BL_NODE_TOPOS_H
#define BL_NODE_TOPOS_H

#include <stddef.h>

#include "err.h"

/* Node HOST's file in dir: 0 with its path in buf, -1 when none of the
 * three forms exists (or the path does not fit). */
int bl_node_topos_path(const char *dir, const char *host, char *buf,
                       size_t len);

/* Every host dir has a topology for, in name order with numbers compared
 * as numbers (bl2 before bl10, the order of a Slurm node range): *hosts
 * malloc'ed (free with bl_node_topos_hosts_free). 0, or -1 with err (no
 * such directory, no topology in it, out of memory). */
int bl_node_topos_hosts(const char *dir, char ***hosts, int *n, bl_err *err);
void bl_node_topos_hosts_free(char **hosts, int n);

#endif
