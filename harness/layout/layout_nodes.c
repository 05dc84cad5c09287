/* A layout over nodes of different shapes: each node checked with the
 * ranks it gets against its own topology (bl_layout_validate assumes every
 * node is this machine). */
#include "layout/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects of type r on a node with counts c (0 when it has none). */
static int objs(const bl_topo_counts *c, bl_res r)
{
    switch (r) {
    case BL_RES_HWTHREAD: return c->pus;
    case BL_RES_CORE: return c->cores > 0 ? c->cores : c->pus;
    case BL_RES_L3CACHE: return c->l3_domains;
    case BL_RES_NUMA: return c->numa_nodes > 0 ? c->numa_nodes : 1;
    case BL_RES_PACKAGE: return c->packages > 0 ? c->packages : 1;
    default: return 1;
    }
}

/* The ranks a node with counts c takes before the next node is used: its
 * slots (one per core, PE cores per rank; one per hwthread when mapping by
 * hwthread, as on one node: layout_check.c), at most K per object with
 * ppr:K:obj. */
static int node_capacity(const bl_layout *l, const bl_topo_counts *c)
{
    int by_pu = l->map.res == BL_RES_HWTHREAD && !l->map.ppr;
    int slots = objs(c, by_pu ? BL_RES_HWTHREAD : BL_RES_CORE) /
                (l->map.pe > 1 ? l->map.pe : 1);
    if (l->map.ppr) {
        long k = (long)l->map.ppr * objs(c, l->map.res);
        if (k < slots)
            slots = (int)k;
    }
    return slots > 0 ? slots : 0;
}

void bl_layout_node_ranks(const bl_layout *l, const bl_topo_counts *c,
                          int nodes, int *ranks)
{
    int left = l->np;
    if (nodes < 1)
        return;
    for (int k = 0; k < nodes; k++)
        ranks[k] = 0;
    if (l->map.ppr && l->map.res == BL_RES_NODE) {
        for (int k = 0; k < nodes && left > 0; k++) {
            ranks[k] = left < l->map.ppr ? left : l->map.ppr;
            left -= ranks[k];
        }
    } else if (l->map.res == BL_RES_NODE) {
        for (int k = 0; k < nodes; k++)
            ranks[k] = l->np / nodes + (k < l->np % nodes);
        left = 0;
    } else {
        for (int k = 0; k < nodes && left > 0; k++) {
            int cap = node_capacity(l, &c[k]);
            ranks[k] = left < cap ? left : cap;
            left -= ranks[k];
        }
    }
    for (int k = 0; left > 0; k = (k + 1) % nodes, left--)
        ranks[k]++;
}

void bl_layout_node_name(hwloc_topology_t topo, const char *host, char *buf,
                         size_t len)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel")
                            : NULL;
    bl_topo_counts c;
    int n = model ? (int)strlen(model) : 0;
    bl_topo_counts_get(topo, &c);
    while (n > 0 && model[n - 1] == ' ')
        n--;
    if (n > 0)
        snprintf(buf, len, "%s (%.*s, %d cores)", host, n > 80 ? 80 : n,
                 model, objs(&c, BL_RES_CORE));
    else
        snprintf(buf, len, "%s (%d cores)", host, objs(&c, BL_RES_CORE));
}

int bl_layout_node_shares(const bl_layout *l, const hwloc_topology_t *topos,
                          int n, bl_layout_shares *s, bl_err *err)
{
    s->n = n;
    s->counts = calloc((size_t)n, sizeof *s->counts);
    s->ranks = calloc((size_t)n, sizeof *s->ranks);
    if (!s->counts || !s->ranks) {
        bl_layout_shares_free(s);
        return bl_err_set(err, "out of memory");
    }
    for (int k = 0; k < n; k++)
        bl_topo_counts_get(topos[k], &s->counts[k]);
    bl_layout_node_ranks(l, s->counts, n, s->ranks);
    return 0;
}

void bl_layout_shares_free(bl_layout_shares *s)
{
    free(s->counts);
    free(s->ranks);
    s->counts = NULL;
    s->ranks = NULL;
    s->n = 0;
}

int bl_layout_node_room(const bl_layout *l, const bl_layout_shares *s,
                        const hwloc_topology_t *topos,
                        const char *const *hosts, char *buf, size_t len)
{
    size_t used;
    long room = 0;
    int w;
    for (int k = 0; k < s->n; k++)
        room += node_capacity(l, &s->counts[k]);
    if (room >= l->np)
        return 0;
    w = snprintf(buf, len, "np %d over %d nodes, but they hold %ld ranks "
                 "with map_by '%s' (", l->np, s->n, room, l->map_by);
    used = w > 0 ? (size_t)w : 0;
    for (int k = 0; k < s->n && used < len; k++) {
        char name[256];
        bl_layout_node_name(topos[k], hosts[k], name, sizeof name);
        w = snprintf(buf + used, len - used, "%s%s: %d", k ? "; " : "", name,
                     node_capacity(l, &s->counts[k]));
        used += w > 0 ? (size_t)w : 0;
    }
    if (used < len)
        snprintf(buf + used, len - used, ")");
    return -1;
}

int bl_layout_validate_nodes(const bl_layout *l,
                             const hwloc_topology_t *topos,
                             const char *const *hosts, int oversubscribe,
                             bl_layout_check *out, bl_err *err)
{
    int nodes = l->nodes, rc = 0;
    bl_layout_shares s;
    char room[1024];
    if (nodes <= 1)
        return bl_layout_validate_node(l, topos[0], oversubscribe, out, err);
    if (l->np < nodes)  /* bl_layout_validate says why */
        return bl_layout_validate(l, topos[0], oversubscribe, out, err);
    if (l->map.ppr && l->map.res == BL_RES_NODE &&
        (long)l->map.ppr * nodes < l->np)
        return bl_layout_validate(l, topos[0], oversubscribe, out, err);
    if (bl_layout_node_shares(l, topos, nodes, &s, err) < 0)
        return -1;
    if (!oversubscribe && !l->map.oversubscribe && l->map.res != BL_RES_NODE &&
        bl_layout_node_room(l, &s, topos, hosts, room, sizeof room) < 0)
        rc = bl_err_set(err, "%s; give a smaller np, more nodes, or "
                        "oversubscribe", room);
    for (int k = 0; k < nodes && rc == 0; k++) {
        bl_layout per = *l;
        bl_layout_check chk;
        char name[160];
        if (s.ranks[k] == 0)
            continue;  /* a node left empty: nothing of it is used */
        per.np = s.ranks[k];
        per.nodes = 1;
        if (bl_layout_validate_node(&per, topos[k], oversubscribe, &chk,
                                    err) < 0) {
            bl_layout_node_name(topos[k], hosts[k], name, sizeof name);
            rc = bl_err_prefix(err, "node %s with %d of np %d over %d "
                               "nodes", name, s.ranks[k], l->np, nodes);
        } else if (k == 0) {
            *out = chk;
        }
    }
    bl_layout_shares_free(&s);
    return rc;
}
