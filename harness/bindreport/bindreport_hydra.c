/* MPICH Hydra's binding debug lines (HYDRA_TOPO_DEBUG=1 with -bind-to):
 *   process N binding: 0011100010000000
 * one character per PU, position i standing for hwloc cpuset bit i, i.e.
 * OS index i, over all PUs of the node. Older Hydra printed the same as
 * "0 0 1 1 " (a digit and a space per PU); both are read. N is the index
 * Hydra's proxy binds by: the rank on a single-node run, the rank's index
 * on its node across nodes, where mpiexec -l labels each line with the
 * rank it is about ("[5] process 2 binding: ..."): then the label is the
 * rank. */
#include "bindreport/bindreport_priv.h"

#include <string.h>

int bl_bindreport_hydra_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason)
{
    const char *p = line;
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int pos = 0;
    long n, label = -1;

    if (*p == '[') {
        p++;
        if ((label = bl_line_number(&p)) < 0 || !(p = bl_line_skip(p, "] ")))
            return BL_LINE_OTHER;
    }
    if (!(p = bl_line_skip(p, "process ")) || (n = bl_line_number(&p)) < 0 ||
        !(p = bl_line_skip(p, " binding:")))
        return BL_LINE_OTHER;
    for (; *p; p++) {
        if (*p == ' ')
            continue;
        if (*p != '0' && *p != '1')
            return bl_line_bad(reason, "'%c' in the bit string (expected 0 "
                               "or 1 per PU)", *p);
        if (*p == '1')
            hwloc_bitmap_set(b->cpus, (unsigned)pos);
        pos++;
    }
    if (pos != npus)
        return bl_line_bad(reason, "%d positions in the bit string but the "
                           "topology has %d PUs (truncated, or pass "
                           "--topology for the node that printed it)",
                           pos, npus);
    if (hwloc_bitmap_iszero(b->cpus))
        return bl_line_bad(reason, "the bit string binds no PU");
    b->rank = (int)(label >= 0 ? label : n);
    return bl_line_check_pus(topo, b->cpus, reason);
}
