/* --mem-policy: where a rank's memory comes from, set with set_mempolicy(2)
 * in every OpenMP thread of the rank before the first touch, and what the
 * kernel then reports (get_mempolicy) for the run file. The value and its
 * parser are in common/mempol.h (the sweep file's mem_policy uses it too).
 * NUMA nodes are Linux (OS) numbers, as numactl uses them. */
#ifndef BL_APP_MEMPOLICY_H
#define BL_APP_MEMPOLICY_H

#include <stddef.h>

#include <hwloc.h>
#include <mpi.h>

#include "err.h"
#include "h5/h5schema.h"
#include "mempol.h"

/* Sets the policy in the calling thread and in every thread of an OpenMP
 * parallel region (threads keep their own policy; later threads inherit
 * the master's). rank_cpus: the rank's binding, for local-to-rank. A node
 * this process may not use is bad input (-1, message naming the nodes it
 * may use); firsttouch does nothing. */
int bl_mempol_apply(const bl_mempol *p, hwloc_topology_t topo,
                    hwloc_const_bitmap_t rank_cpus, bl_err *err);

/* The calling thread's policy as the kernel reports it: "default",
 * "local", "bind:0-1", "interleave:0-3", "preferred:1", ... */
void bl_mempol_kernel_text(char *buf, size_t len);

#endif
