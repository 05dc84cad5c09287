/* Plans of several nodes of one topology: the made-up hosts the launcher
 * maps onto (nothing is started on them), and the node each rank landed
 * on, read from the launcher's job map. */
#include "plan/plan_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
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

/* "[R] REST" -> R, *rest = REST; -1 for another line. */
static int labelled(const char *line, const char **rest)
{
    int r, n = 0;
    if (sscanf(line, "[%d] %n", &r, &n) != 1 || n == 0 || r < 0)
        return -1;
    *rest = line + n;
    return r;
}

/* One labelled line of Hydra's output: rank r's node, or the proxy's line
 * for its local process, kept as rank r's binding. */
static void hydra_line(const char *line, int nodes, int np, int *rank_node,
                       bl_strbuf *report)
{
    static const char host[] = "PMI_HOSTNAME=" BL_PLAN_HOST;
    const char *rest, *mask;
    int r, local;
    if ((r = labelled(line, &rest)) < 0 || r >= np)
        return;
    if (strncmp(rest, host, sizeof host - 1) == 0) {
        int k = atoi(rest + sizeof host - 1);
        rank_node[r] = k >= 1 && k <= nodes ? k - 1 : -1;
    } else if (sscanf(rest, "process %d binding:", &local) == 1 &&
               (mask = strchr(rest, ':')) != NULL)
        bl_strbuf_printf(report, "process %d binding:%s\n", r, mask + 1);
}

char *bl_plan_ranks_hydra_nodes(const char *text, int nodes, int np,
                                int *rank_node, bl_err *err)
{
    bl_strbuf report = {0};
    char *out;

    for (int r = 0; r < np; r++)
        rank_node[r] = -1;
    while (text && *text) {
        /* whole lines: a binding mask has a digit per PU (384 on a
         * two-socket EPYC 9654) */
        size_t n = strcspn(text, "\n");
        char *line = strndup(text, n);
        text += n + (text[n] == '\n');
        if (!line)
            report.failed = 1;
        else
            hydra_line(line, nodes, np, rank_node, &report);
        free(line);
    }
    if (!(out = bl_strbuf_take(&report))) {
        bl_err_set(err, "out of memory");
        return NULL;
    }
    for (int r = 0; r < np; r++)
        if (rank_node[r] < 0) {
            bl_err_set(err, "Hydra started rank %d on none of the %d nodes "
                            "(no PMI_HOSTNAME=%sK line)", r, nodes,
                       BL_PLAN_HOST);
            free(out);
            return NULL;
        }
    return out;
}

int bl_plan_ranks_impi_nodes(const bl_layout *l, hwloc_topology_t topo,
                             const bl_launcher_info *li, int nodes,
                             bl_plan *out, bl_err *err)
{
    int ppn = l->ppn_launcher, np = l->np;
    hwloc_bitmap_t *local;
    size_t len;

    if (nodes < 2 || ppn < 1)
        return bl_err_set(err, "nodes %d, -ppn %d: nothing to spread",
                          nodes, ppn);
    /* rank i of one node gets domain i: the model of np ranks on one node
     * holds every local index a node can have */
    if (bl_plan_ranks_impi_model(l, topo, li, out, err) < 0)
        return -1;
    local = out->rank_pus;
    out->rank_pus = calloc((size_t)np, sizeof *out->rank_pus);
    out->rank_node = calloc((size_t)np, sizeof *out->rank_node);
    if (!out->rank_pus || !out->rank_node) {
        free(out->rank_pus);
        out->rank_pus = local;
        return bl_err_set(err, "out of memory");
    }
    /* Hydra's -ppn: block b of ppn ranks on host b mod nodes, after the
     * ranks that host got from earlier blocks */
    for (int r = 0; r < np; r++) {
        int b = r / ppn, i = (b / nodes) * ppn + r % ppn;
        out->rank_node[r] = b % nodes;
        out->rank_pus[r] = hwloc_bitmap_dup(local[i]);
    }
    for (int r = 0; r < np; r++)
        hwloc_bitmap_free(local[r]);
    free(local);
    for (int r = 0; r < np; r++)
        if (!out->rank_pus[r])
            return bl_err_set(err, "out of memory");
    len = strlen(out->how);
    snprintf(out->how + len, sizeof out->how - len, "; over %d nodes by "
             "Hydra's -ppn %d (blocks of %d ranks to the hosts in turn, as "
             "MPICH's Hydra does)", nodes, ppn, ppn);
    return 0;
}
