/* Plans of several nodes of one topology: the made-up hosts the launcher
 * maps onto (nothing is started on them), and the node each rank landed
 * on, read from the launcher's job map. */
#include "plan_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

int bl_plan_ranks_hosts(hwloc_topology_t topo, int nodes, char *buf,
                        size_t len)
{
    bl_topo_counts c;
    size_t used = 0;
    bl_topo_counts_get(topo, &c);
    if (nodes < 1 || len == 0)
        return -1;
    buf[0] = '\0';
    for (int k = 0; k < nodes; k++) {
        int n = snprintf(buf + used, len - used, "%s" BL_PLAN_HOST "%d:%d",
                         k ? "," : "", k + 1, c.cores > 0 ? c.cores : c.pus);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

/* "Data for node: plan-node2 ..." -> 1; -1 for a line of another kind or
 * a host that is not one of ours. */
static int node_line(const char *line, int nodes)
{
    static const char tag[] = "Data for node: " BL_PLAN_HOST;
    const char *p = strstr(line, tag);
    char *end;
    long k;
    if (!p)
        return -1;
    k = strtol(p + sizeof tag - 1, &end, 10);
    if (end == p + sizeof tag - 1 || k < 1 || k > nodes)
        return -1;
    return (int)k - 1;
}

/* The rank a job map line names: Open MPI 4 "... Process rank: 3 ...",
 * Open MPI 5 "Data for proc: [prterun-host-123@1,3]"; -1 otherwise. */
static int rank_line(const char *line)
{
    const char *p = strstr(line, "Process rank: ");
    int r;
    if (p)
        return sscanf(p + 14, "%d", &r) == 1 ? r : -1;
    if ((p = strstr(line, "Data for proc: [")) != NULL) {
        const char *close = strchr(p, ']');
        const char *comma = NULL;
        for (const char *q = p; close && q < close; q++)
            if (*q == ',')
                comma = q;
        if (comma && sscanf(comma + 1, "%d", &r) == 1)
            return r;
    }
    return -1;
}

int bl_plan_ranks_nodes_read(const char *text, int nodes, int np,
                             int *rank_node, bl_err *err)
{
    int node = -1;
    for (int r = 0; r < np; r++)
        rank_node[r] = -1;
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        char line[512];
        int k, r;
        snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), text);
        if ((k = node_line(line, nodes)) >= 0)
            node = k;
        else if ((r = rank_line(line)) >= 0 && node >= 0) {
            if (r >= np)
                return bl_err_set(err, "the launcher's job map names rank "
                                       "%d, but -np is %d", r, np);
            rank_node[r] = node;
        }
        text += n + (text[n] == '\n');
    }
    for (int r = 0; r < np; r++)
        if (rank_node[r] < 0)
            return bl_err_set(err, "the launcher's job map puts rank %d on "
                                   "none of the %d nodes", r, nodes);
    return 0;
}
