/* bindlab plan over several nodes: one block per share of nodes placed
 * alike ("nodes 1-10000"), or every node with --all-nodes; the TSV has
 * every row whatever the folding, streamed node by node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"
#include "plan/plan_devices.h"
#include "plan/plan_nodes.h"
#include "plan/plan_output.h"
#include "plan/plan_tsv.h"

/* Rank numbers of node k, as "0,2" or "0-127" (runs of consecutive ranks
 * as ranges; "..." when it does not fit). */
static void ranks_on(const bl_plan *p, const bl_plan_nodes *ix, int k,
                     char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = ix->first[k]; i < ix->first[k + 1]; i++) {
        int j = i, r = bl_plan_rank_number(p, ix->rank[i]);
        while (j + 1 < ix->first[k + 1] &&
               bl_plan_rank_number(p, ix->rank[j + 1]) == r + (j + 1 - i))
            j++;
        if (used + 32 >= len) {
            snprintf(buf + used, len - used, ",...");
            return;
        }
        used += (size_t)(j > i ? snprintf(buf + used, len - used, "%s%d-%d",
                                          used ? "," : "", r, r + j - i)
                               : snprintf(buf + used, len - used, "%s%d",
                                          used ? "," : "", r));
        i = j;
    }
}

/* m*k + c for node k (1-based) as people write it: "8(k-1)", "k", "4k+2". */
static void node_expr(int m, int c, char *buf, size_t len)
{
    char mk[24];
    snprintf(mk, sizeof mk, "%.0d%s", m == 1 ? 0 : m, "k");
    if (c == -m)
        snprintf(buf, len, m == 1 ? "k-1" : "%d(k-1)", m);
    else if (c == 0)
        snprintf(buf, len, "%s", mk);
    else
        snprintf(buf, len, "%s%+d", mk, c);
}

/* How the ranks of the share node k starts follow from the node number:
 * every node's ranks an arithmetic run (step s), each node's first rank
 * m further than the last node's. 0 and the text, or -1 when they do not. */
static int rank_rule(const bl_plan *p, const bl_plan_nodes *ix, int k,
                     char *buf, size_t len)
{
    int n = ix->first[k + 1] - ix->first[k], s = 0, m = 0, prev = -1;
    int r0 = bl_plan_rank_number(p, ix->rank[ix->first[k]]);
    char e[48];

    if (n > 1)
        s = bl_plan_rank_number(p, ix->rank[ix->first[k] + 1]) - r0;
    for (int j = k; j <= ix->last[k]; j++) {
        if (ix->share[j] != k)
            continue;
        int b = bl_plan_rank_number(p, ix->rank[ix->first[j]]);
        if (prev >= 0 && m == 0)
            m = (b - r0) / (j - k);
        if (prev >= 0 && b != r0 + m * (j - k))
            return -1;
        for (int i = 1; i < n; i++)
            if (bl_plan_rank_number(p, ix->rank[ix->first[j] + i]) !=
                b + s * i)
                return -1;
        prev = j;
    }
    if (m <= 0)
        return -1;
    node_expr(m, r0 - m * (k + 1), e, sizeof e);
    if (n == 1)
        snprintf(buf, len, "node k holds rank %s", e);
    else if (s == 1)
        snprintf(buf, len, "node k holds ranks %s to %s+%d", e, e, n - 1);
    else
        snprintf(buf, len, "node k holds ranks %s, %s+%d, ... (%d ranks, %d "
                 "apart)", e, e, s, n, s);
    return 0;
}

/* The heading of the block of node k: alone, or the share it starts. */
static void heading(const bl_plan_cli *o, const bl_plan *p,
                    const bl_plan_nodes *ix, int k, int folded,
                    hwloc_topology_t t)
{
    char ranks[1024], name[300] = "", nodes[200], rule[200];
    const char *what;

    ranks_on(p, ix, k, ranks, sizeof ranks);
    what = !ranks[0] ? "no rank" : strpbrk(ranks, ",-") ? "ranks " : "rank ";
    if (o->nodes && p->split[0]) {
        name[0] = ',';
        name[1] = ' ';
        bl_layout_node_name(t, o->nodes[k].host, name + 2, sizeof name - 2);
    }
    if (!folded) {
        printf("%s-- node %d of %d%s: %s%s\n\n", k ? "\n" : "", k + 1,
               p->nnodes, name, what, ranks);
        return;
    }
    bl_plan_nodes_list(ix, k, nodes, sizeof nodes);
    printf("%s-- nodes %s of %d (%d placed alike)", k ? "\n" : "", nodes,
           p->nnodes, ix->count[k]);
    if (!ranks[0])
        printf(": no rank\n\n");
    else if (rank_rule(p, ix, k, rule, sizeof rule) == 0)
        printf(": %s; shown: node %d, %s%s\n", rule, k + 1, what, ranks);
    else
        printf(": shown: node %d, %s%s (--all-nodes: every node's)\n", k + 1,
               what, ranks);
    if (ranks[0])
        printf("   a row per rank, its threads in the map (--all-nodes: a "
               "row per thread of every node)\n");
    printf("\n");
}

/* Node k's block: heading (text), then its table, map and warnings. */
static int show_block(const bl_plan_cli *o, hwloc_topology_t t,
                      const bl_plan *p, const bl_plan_nodes *ix, int k,
                      int folded, const char *run_id, const char *what)
{
    bl_plan part;
    char where[220];
    int rc = BL_EXIT_OK, n = ix->first[k + 1] - ix->first[k];

    if (folded) {
        memcpy(where, "nodes ", 6);
        bl_plan_nodes_list(ix, k, where + 6, sizeof where - 6);
    } else
        snprintf(where, sizeof where, "node %d", k + 1);
    if (!o->tsv)
        heading(o, p, ix, k, folded, t);
    else if (!n)
        fprintf(stderr, "bindlab plan: %s%s%s: no rank\n",
                run_id ? run_id : "", run_id ? ": " : "", where);
    if (bl_plan_nodes_part(p, ix, k, &part) < 0) {
        fprintf(stderr, "bindlab plan: out of memory\n");
        return BL_EXIT_FAILED;
    }
    bl_plan_cli_part pt = {k + 1, where, 0, folded};
    if (n)
        rc = bl_plan_cli_show_part(o, t, &part, run_id, what, &pt);
    else if (!o->tsv && bl_plan_write_map(stdout, t, &part, o->width) < 0)
        rc = BL_EXIT_FAILED; /* a node with no rank: its map, all idle */
    bl_plan_free(&part);
    return rc;
}

/* 1 when topo has a GPU or a NIC. */
static int has_devices(hwloc_topology_t topo)
{
    bl_plan_devices d;
    bl_err err;
    int n = bl_plan_devices_find(topo, &d, &err) == 0 ? d.n : 0;
    bl_plan_devices_free(&d);
    return n > 0;
}

/* The TSV rows of every node, after the header when first; the device
 * columns when some node has devices or GPU options were given, as for
 * one node. */
static int write_rows(const bl_plan_cli *o, hwloc_topology_t topo,
                      const hwloc_topology_t *node_topo, const bl_plan *p,
                      const bl_plan_nodes *ix, const char *run_id, int first)
{
    bl_plan_tsv_gpus gpus = {o->gpu_bind, o->gpus_per_rank};
    int shown = o->gpu_bind != BL_GPU_BIND_NONE || has_devices(topo);
    bl_err err;
    for (int k = 0; !shown && node_topo && k < ix->nnodes; k++)
        shown = has_devices(node_topo[k]);
    if (first)
        printf("%snode\trank\tthread\tpus\tcore\tl3\tnuma\tpackage%s\n",
               run_id ? "run_id\t" : "",
               shown ? "\tgpus\tnear_gpus\tnear_nics" : "");
    if (bl_plan_write_tsv_nodes(stdout, topo, node_topo, p, ix, run_id,
                                shown ? &gpus : NULL, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    return BL_EXIT_OK;
}

int bl_plan_cli_show_nodes(const bl_plan_cli *o, hwloc_topology_t topo,
                           const bl_plan *plan, const char *run_id,
                           const char *what, int first)
{
    int split = o->nodes && plan->split[0], rc = BL_EXIT_OK;
    hwloc_topology_t *node_topo = NULL;
    bl_plan_nodes ix;
    bl_err err;

    if (bl_plan_nodes_index(plan, !split, &ix, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    if (split && !(node_topo = calloc((size_t)ix.nnodes, sizeof *node_topo)))
        rc = BL_EXIT_FAILED;
    for (int k = 0; split && node_topo && k < ix.nnodes; k++)
        node_topo[k] = o->nodes[k].topo;
    if (rc == BL_EXIT_OK && o->tsv)
        rc = write_rows(o, topo, node_topo, plan, &ix, run_id, first);
    for (int k = 0; rc != BL_EXIT_FAILED && k < ix.nnodes; k++) {
        int folded = !o->all_nodes && ix.count[ix.share[k]] > 1;
        if (folded && ix.share[k] != k)
            continue;
        rc = bl_plan_cli_worst(rc, show_block(o, split ? node_topo[k] : topo,
                                              plan, &ix, k, folded, run_id,
                                              what));
    }
    free(node_topo);
    bl_plan_nodes_free(&ix);
    return rc;
}
