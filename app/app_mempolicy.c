#include "app_mempolicy.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpuset.h"
#include "placement_check.h"

/* Linux allows at most 1024 NUMA nodes (CONFIG_NODES_SHIFT 10). */
#define NODE_BITS 1024
#define LONG_BITS (8 * sizeof(unsigned long))

/* The nodes the policy names, OS indexes, into set. */
static int policy_nodes(const bl_mempol *p, hwloc_topology_t topo,
                        hwloc_const_bitmap_t rank_cpus, hwloc_bitmap_t set,
                        bl_err *err)
{
    hwloc_const_nodeset_t allowed = hwloc_topology_get_allowed_nodeset(topo);
    if (p->kind == BL_MEMPOL_BIND_LOCAL) {
        hwloc_cpuset_to_nodeset(topo, rank_cpus, set);
        hwloc_bitmap_and(set, set, allowed);
        if (hwloc_bitmap_iszero(set))
            return bl_err_set(err, "--mem-policy bind:local-to-rank: the "
                              "rank's CPUs have no NUMA node with memory "
                              "this process may use");
        return 0;
    }
    if (p->kind == BL_MEMPOL_INTERLEAVE && !p->nodes[0]) {
        hwloc_bitmap_copy(set, allowed);
        return 0;
    }
    bl_cpuset_parse_list(p->nodes, set, NULL);
    if (!hwloc_bitmap_isincluded(set, allowed)) {
        char have[256];
        bl_cpuset_format_list(allowed, have, sizeof have);
        return bl_err_set(err, "--mem-policy %s: this process may use NUMA "
                          "node%s %s only (numactl --hardware lists them)",
                          p->asked, hwloc_bitmap_weight(allowed) == 1 ? "" : "s",
                          have);
    }
    return 0;
}

static long set_policy(int mode, const unsigned long *mask)
{
    return syscall(SYS_set_mempolicy, mode, mask, (unsigned long)NODE_BITS + 1);
}

int bl_mempol_apply(const bl_mempol *p, hwloc_topology_t topo,
                    hwloc_const_bitmap_t rank_cpus, bl_err *err)
{
    static const int modes[] = {
        [BL_MEMPOL_INTERLEAVE] = BL_MPOL_INTERLEAVE,
        [BL_MEMPOL_BIND] = BL_MPOL_BIND,
        [BL_MEMPOL_BIND_LOCAL] = BL_MPOL_BIND,
        [BL_MEMPOL_PREFERRED] = BL_MPOL_PREFERRED,
    };
    unsigned long mask[NODE_BITS / LONG_BITS] = {0};
    if (p->kind == BL_MEMPOL_FIRSTTOUCH)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return bl_err_set(err, "--mem-policy: out of memory");
    int rc = policy_nodes(p, topo, rank_cpus, set, err);
    if (rc == 0) {
        int n;
        hwloc_bitmap_foreach_begin(n, set)
            mask[(unsigned)n / LONG_BITS] |= 1UL << ((unsigned)n % LONG_BITS);
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(set);
    if (rc < 0)
        return -1;
    /* Every thread that will first-touch needs the policy: set it in the
     * master (new threads inherit it) and in the threads that exist. */
    int mode = modes[p->kind], failed_errno = 0;
    if (set_policy(mode, mask) != 0)
        failed_errno = errno;
#pragma omp parallel reduction(max : failed_errno)
    if (set_policy(mode, mask) != 0)
        failed_errno = errno;
    if (failed_errno)
        return bl_err_set(err, "--mem-policy %s: set_mempolicy failed: %s",
                          p->asked, strerror(failed_errno));
    return 0;
}

void bl_mempol_kernel_text(char *buf, size_t len)
{
    unsigned long mask[NODE_BITS / LONG_BITS] = {0};
    int mode = -1;
    if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)NODE_BITS,
                NULL, 0UL) != 0) {
        snprintf(buf, len, "unknown (get_mempolicy: %s)", strerror(errno));
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (unsigned i = 0; set && i < NODE_BITS; i++)
        if (mask[i / LONG_BITS] & (1UL << (i % LONG_BITS)))
            hwloc_bitmap_set(set, i);
    char nodes[256] = "";
    if (set)
        bl_cpuset_format_list(set, nodes, sizeof nodes);
    hwloc_bitmap_free(set);
    /* The flags (static/relative nodes) sit above bit 12. */
    snprintf(buf, len, "%s%s%s", bl_pcheck_policy_name(mode & 0xfff),
             nodes[0] ? ":" : "", nodes);
}
