/* Plans over nodes of different shapes: bindlab deals the ranks to the
 * nodes, the launcher's own mapper places each node's share on that node's
 * topology. Open MPI 4.1's mapper cannot be asked about several shapes at
 * once: without launching it gives every made-up host mpirun's topology,
 * and its node simulator (ras simulator with one topology per node) reads
 * garbage slot counts and binds nothing. See plan_ranks.h. */
#include "plan/plan_ranks.h"
#include "plan/plan_ranks_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/launcher.h"
#include "layout/layout.h"
#include "topo.h"

/* The layouts whose deal to the nodes is not modelled, as a refusal (""
 * when it is). */
static void not_modelled(const bl_layout *l, const bl_layout_shares *s,
                         const hwloc_topology_t *topos,
                         const char *const *hosts, char *buf, size_t len)
{
    int n = s->n;
    buf[0] = '\0';
    if (strcmp(l->rank_by, "node") == 0 || l->map.span) {
        snprintf(buf, len, "%s over nodes of different shapes is not "
                 "modelled (each node's ranks must be consecutive or round "
                 "robin; plan each shape alone with -np its share)",
                 l->map.span ? "map_by ...:span" : "--rank-by node");
        return;
    }
    if (l->map.ppr && l->map.res == BL_RES_NODE) {
        if ((long)l->map.ppr * n < l->np)
            snprintf(buf, len, "np %d over %d nodes, but map_by '%s' puts "
                     "%d on each: %ld ranks; give np %ld or less, or more "
                     "nodes", l->np, n, l->map_by, l->map.ppr,
                     (long)l->map.ppr * n, (long)l->map.ppr * n);
        return;
    }
    if (l->map.res != BL_RES_NODE &&
        bl_layout_node_room(l, s, topos, hosts, buf, len) < 0) {
        size_t used = strlen(buf);
        if (used < len)
            snprintf(buf + used, len - used, "; give a smaller np or more "
                     "nodes");
    }
}

/* The global rank of node k's local rank i, given each node's share. */
static int global_rank(const bl_layout *l, int n, const int *ranks, int k,
                       int i)
{
    int before = 0;
    if (l->map.res == BL_RES_NODE && !l->map.ppr)
        return i * n + k; /* round robin */
    for (int j = 0; j < k; j++)
        before += ranks[j];
    return before + i;
}

static void describe_split(const bl_layout *l, int n, const int *ranks,
                           bl_plan *out)
{
    size_t used;
    if (l->map.res == BL_RES_NODE && !l->map.ppr)
        used = (size_t)snprintf(out->split, sizeof out->split, "round robin "
                                "by node (rank r on node r mod %d)", n);
    else if (l->map.res == BL_RES_NODE)
        used = (size_t)snprintf(out->split, sizeof out->split, "%d "
                                "consecutive ranks on each node in turn",
                                l->map.ppr);
    else
        used = (size_t)snprintf(out->split, sizeof out->split, "each node "
                                "filled in turn with consecutive ranks, up "
                                "to its cores%s%s",
                                l->map.pe > 1 ? " / PE" : "",
                                l->map.ppr ? " and ppr x its objects" : "");
    /* a run of 3 or more nodes with the same count as "8 x 10000" */
    for (int k = 0, j; k < n && used < sizeof out->split; k = j) {
        for (j = k + 1; j < n && ranks[j] == ranks[k]; j++)
            ;
        if (j - k < 3)
            j = k + 1;
        used += (size_t)(j - k >= 3
                             ? snprintf(out->split + used,
                                        sizeof out->split - used, "%s%d x %d",
                                        k ? "+" : ": ", ranks[k], j - k)
                             : snprintf(out->split + used,
                                        sizeof out->split - used, "%s%d",
                                        k ? "+" : ": ", ranks[k]));
    }
}

/* Node k's share planned alone, its ranks copied into out. 1 when the
 * launcher refused it (out->refusal names the node), 0, -1 with err. */
static int plan_node(const bl_plan_request *req, const bl_layout *l,
                     const bl_plan_node *node, int k, int n,
                     const int *ranks, const char *preload, bl_plan *out,
                     bl_err *err)
{
    bl_plan_request one = *req;
    bl_plan part;
    char name[256];
    memset(&part, 0, sizeof part);
    one.topology = node->xml;
    one.np = ranks[k];
    one.nodes = 0;
    if (bl_plan_ranks_one(&one, node->topo, preload, 0, &part, err) < 0) {
        bl_plan_free(&part);
        return bl_err_prefix(err, "node %d (%s)", k + 1, node->host);
    }
    snprintf(out->launcher, sizeof out->launcher, "%s", part.launcher);
    if (part.refusal[0] || part.nranks != ranks[k]) {
        bl_layout_node_name(node->topo, node->host, name, sizeof name);
        snprintf(out->refusal, sizeof out->refusal, "node %d, %s, with %d "
                 "of np %d over %d nodes:\n%.1600s", k + 1, name, ranks[k], l->np,
                 n, part.refusal[0] ? part.refusal : "no binding for every "
                 "rank");
        bl_plan_free(&part);
        return 1;
    }
    for (int i = 0; i < ranks[k]; i++) {
        int g = global_rank(l, n, ranks, k, i);
        out->rank_pus[g] = part.rank_pus[i];
        part.rank_pus[i] = NULL;
        out->rank_bound[g] = part.rank_bound[i];
        out->rank_node[g] = k;
    }
    bl_plan_free(&part);
    return 0;
}

/* An earlier node with node k's topology and share, or -1: its answer is
 * node k's too (N nodes of one shape cost one launcher call a share). */
static int same_as(const bl_plan_node *nodes, const int *ranks, int k)
{
    for (int j = 0; j < k; j++)
        if (ranks[j] == ranks[k] && nodes[j].topo == nodes[k].topo)
            return j;
    return -1;
}

/* Node k's ranks placed as node j's (same_as). */
static int copy_node(const bl_layout *l, int n, const int *ranks, int j,
                     int k, bl_plan *out, bl_err *err)
{
    for (int i = 0; i < ranks[k]; i++) {
        int from = global_rank(l, n, ranks, j, i);
        int g = global_rank(l, n, ranks, k, i);
        if (!(out->rank_pus[g] = hwloc_bitmap_dup(out->rank_pus[from])))
            return bl_err_set(err, "out of memory");
        out->rank_bound[g] = out->rank_bound[from];
        out->rank_node[g] = k;
    }
    return 0;
}

/* The nodes' topologies and names, as bl_layout_node_shares takes them. */
static int node_lists(const bl_plan_node *nodes, int n,
                      hwloc_topology_t **topos, const char ***hosts,
                      bl_err *err)
{
    *topos = calloc((size_t)n, sizeof **topos);
    *hosts = calloc((size_t)n, sizeof **hosts);
    if (!*topos || !*hosts)
        return bl_err_set(err, "out of memory");
    for (int k = 0; k < n; k++) {
        (*topos)[k] = nodes[k].topo;
        (*hosts)[k] = nodes[k].host;
    }
    return 0;
}

/* out emptied but for its refusal, launcher and modelled flag. */
static void keep_refusal(bl_plan *out)
{
    char keep[sizeof out->refusal], who[sizeof out->launcher];
    int modelled = out->modelled;
    memcpy(keep, out->refusal, sizeof keep);
    memcpy(who, out->launcher, sizeof who);
    bl_plan_free(out);
    memcpy(out->refusal, keep, sizeof keep);
    memcpy(out->launcher, who, sizeof who);
    out->modelled = modelled;
}

int bl_plan_ranks_each(const bl_plan_request *req, const bl_plan_node *nodes,
                       int n, const char *preload_path, bl_plan *out,
                       bl_err *err)
{
    const bl_launcher_ops *ops;
    bl_layout l;
    bl_layout_shares s = {0};
    hwloc_topology_t *topos = NULL;
    const char **hosts = NULL;
    int *ranks, rc = 0;

    memset(out, 0, sizeof *out);
    if (n < 2 || req->np < 1)
        return bl_err_set(err, "nodes %d, np %d: nothing to spread", n,
                          req->np);
    ops = req->launcher_info ? bl_launcher_ops_of(req->launcher_info) : NULL;
    if (req->launcher_info && (!ops || !ops->plan_shapes)) {
        snprintf(out->refusal, sizeof out->refusal, "nodes of different "
                 "shapes are planned with Open MPI's mapper only (each "
                 "node's share on its own topology); plan each shape alone "
                 "with -np its share");
        out->modelled = 1;
        return 0;
    }
    if (bl_plan_request_layout(req, n, &l, err) < 0)
        return -1;
    if (node_lists(nodes, n, &topos, &hosts, err) < 0 ||
        bl_layout_node_shares(&l, topos, n, &s, err) < 0) {
        rc = -1;
        goto done;
    }
    not_modelled(&l, &s, topos, hosts,
                 out->refusal, sizeof out->refusal);
    if (out->refusal[0]) {
        out->modelled = 1; /* bindlab's refusal, not the launcher's */
        goto done;
    }
    ranks = s.ranks;
    out->nranks = l.np;
    out->nnodes = n;
    out->rank_pus = calloc((size_t)l.np, sizeof *out->rank_pus);
    out->rank_bound = calloc((size_t)l.np, sizeof *out->rank_bound);
    out->rank_node = calloc((size_t)l.np, sizeof *out->rank_node);
    if (!out->rank_pus || !out->rank_bound || !out->rank_node) {
        rc = bl_err_set(err, "out of memory");
        goto done;
    }
    for (int k = 0; k < n && rc == 0; k++) {
        int j = same_as(nodes, ranks, k);
        if (ranks[k] == 0)
            continue; /* a node left empty */
        rc = j >= 0 ? copy_node(&l, n, ranks, j, k, out, err)
                    : plan_node(req, &l, &nodes[k], k, n, ranks, preload_path,
                                out, err);
    }
    if (rc == 1) {
        rc = 0;
        goto done;
    }
    for (int r = 0; rc == 0 && r < l.np; r++)
        if (!out->rank_pus[r])
            rc = bl_err_set(err, "rank %d was planned on no node", r);
    if (rc == 0) {
        describe_split(&l, n, ranks, out);
        snprintf(out->how, sizeof out->how, "%s's own mapper on each node's "
                 "own topology (--do-not-launch, HWLOC_XMLFILE), given the "
                 "ranks that node gets; which ranks go to which node: "
                 "modelled by bindlab (%.200s)", out->launcher, out->split);
    }
done:
    if (out->refusal[0] || rc < 0)
        keep_refusal(out);
    bl_layout_shares_free(&s);
    free(topos);
    free(hosts);
    return rc;
}

int bl_plan_ranks_alike(const bl_plan_request *req, hwloc_topology_t topo,
                        const bl_launcher_info *li, const char *program,
                        const char *preload_path, bl_plan *out, bl_err *err)
{
    bl_plan_request each = *req;
    bl_plan_node *nodes = calloc((size_t)req->nodes, sizeof *nodes);
    char (*hosts)[32] = calloc((size_t)req->nodes, sizeof *hosts);
    int rc;

    memset(out, 0, sizeof *out);
    if (!nodes || !hosts) {
        free(nodes);
        free(hosts);
        return bl_err_set(err, "out of memory");
    }
    for (int k = 0; k < req->nodes; k++) {
        snprintf(hosts[k], sizeof hosts[k], "%s%d", BL_PLAN_HOST, k + 1);
        nodes[k].host = hosts[k];
        nodes[k].xml = req->topology;
        nodes[k].topo = topo;
    }
    each.launcher_info = li;
    each.launcher_program = program;
    rc = bl_plan_ranks_each(&each, nodes, req->nodes, preload_path, out, err);
    if (rc == 0 && out->refusal[0] && out->modelled) {
        bl_plan_free(out); /* not modelled node by node */
        memset(out, 0, sizeof *out);
        rc = 1;
    }
    free(nodes);
    free(hosts);
    return rc;
}

/* A plan over several nodes asked node by node when the launcher's dry run
 * of the whole job would not be what a real launch does (the launcher's
 * plan_node_by_node); else one call for the whole job. */
static int plan_ranks(const bl_plan_request *req, hwloc_topology_t topo,
                      const char *preload_path, int launched, bl_plan *out,
                      bl_err *err)
{
    const bl_launcher_ops *ops;
    bl_launcher_info li;
    const char *program;
    int rc;

    if (req && topo && out && req->nodes > 1 && !launched) {
        if (bl_plan_ranks_launcher(req, &li, &program, err) < 0)
            return -1;
        ops = bl_launcher_ops_of(&li);
        if (ops && ops->plan_node_by_node &&
            bl_launcher_plan_way(ops, &li) == BL_PLAN_DRY_RUN &&
            (rc = bl_plan_ranks_alike(req, topo, &li, program, preload_path,
                                      out, err)) <= 0)
            return rc;
    }
    return bl_plan_ranks_one(req, topo, preload_path, launched, out, err);
}

int bl_plan_ranks(const bl_plan_request *req, hwloc_topology_t topo,
                  const char *preload_path, bl_plan *out, bl_err *err)
{
    return plan_ranks(req, topo, preload_path, 0, out, err);
}

int bl_plan_ranks_launched(const bl_plan_request *req, hwloc_topology_t topo,
                           const char *preload_path, bl_plan *out,
                           bl_err *err)
{
    return plan_ranks(req, topo, preload_path, 1, out, err);
}
