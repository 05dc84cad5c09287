/* Can a layout run on a node, and how does the installed Open MPI spell it.
 * The rules follow what Open MPI 4.1.4 does (checked with mpirun on a
 * 2-core node): a node has one slot per core; PE=n asks for n cores per
 * rank and cannot be used when mapping by core or hwthread; ppr:N:R places
 * at most N ranks on each R; binding more ranks than cores to one object
 * is refused unless overload is allowed. */
#include "layout/layout.h"
#include "sweep/noisy.h"

#include <stdio.h>
#include <string.h>

#include "topo.h"

typedef struct node {
    bl_topo_counts c;
    int pus_per_core;
} node;

static int count_of(const node *n, bl_res r)
{
    switch (r) {
    case BL_RES_HWTHREAD: return n->c.pus;
    case BL_RES_CORE: return n->c.cores;
    case BL_RES_L3CACHE: return n->c.l3_domains;
    case BL_RES_NUMA: return n->c.numa_nodes > 0 ? n->c.numa_nodes : 1;
    case BL_RES_PACKAGE: return n->c.packages > 0 ? n->c.packages : 1;
    default: return 1; /* node, slot: the whole node */
    }
}

static const char *plural(int v, const char *one, const char *many)
{
    return v == 1 ? one : many;
}

static const char *obj_word(bl_res r, int v)
{
    switch (r) {
    case BL_RES_HWTHREAD: return plural(v, "hwthread", "hwthreads");
    case BL_RES_CORE: return plural(v, "core", "cores");
    case BL_RES_L3CACHE: return plural(v, "L3 domain", "L3 domains");
    case BL_RES_NUMA: return plural(v, "NUMA node", "NUMA nodes");
    case BL_RES_PACKAGE: return plural(v, "package", "packages");
    default: return plural(v, "node", "nodes");
    }
}

/* Cores in one object of type r; a hwthread is part of one core. */
static int cores_in(const node *n, bl_res r)
{
    int k = count_of(n, r);
    if (r == BL_RES_HWTHREAD)
        return 1;
    return k > 0 ? n->c.cores / k : 0;
}

static int check_present(const node *n, bl_res r, const char *key,
                         const char *text, bl_err *err)
{
    if (r != BL_RES_NONE && count_of(n, r) == 0)
        return bl_err_set(err, "%s '%s': this node has no %s objects", key,
                          text, r == BL_RES_L3CACHE ? "L3 cache" : "such");
    return 0;
}

static int check_pe(const bl_layout *l, const node *n, int over, bl_err *err)
{
    const bl_mapby *m = &l->map;
    int per = cores_in(n, m->res);
    if (m->pe == 0)
        return 0;
    if (l->bind != BL_RES_CORE && l->bind != BL_RES_HWTHREAD &&
        l->bind != BL_RES_NONE)
        return bl_err_set(err,
                          "map_by '%s' with bind_to %s: Open MPI binds PE= "
                          "ranks to their cores; accepted with PE=: bind_to "
                          "core, hwthread or none",
                          l->map_by, l->bind_to);
    if ((m->res == BL_RES_CORE || m->res == BL_RES_HWTHREAD) && m->pe > 1)
        return bl_err_set(err,
                          "map_by '%s': PE=%d asks for %d cores per rank, "
                          "but one %s holds 1 core (with PE= map by slot, "
                          "l3cache, numa or package)",
                          l->map_by, m->pe, m->pe, bl_res_name(m->res));
    if (m->pe > per)
        return bl_err_set(err,
                          "map_by '%s': PE=%d cores per rank, but one %s "
                          "has %d %s",
                          l->map_by, m->pe, obj_word(m->res, 1), per,
                          plural(per, "core", "cores"));
    if (!over && (long)l->np * m->pe > n->c.cores)
        return bl_err_set(err,
                          "np %d x PE %d = %ld cores, but this node has %d "
                          "(add oversubscribe to share cores)",
                          l->np, m->pe, (long)l->np * m->pe, n->c.cores);
    return 0;
}

static int check_ppr(const bl_layout *l, const node *n, int over,
                     bl_err *err)
{
    const bl_mapby *m = &l->map;
    int k = count_of(n, m->res), per = cores_in(n, m->res);
    int pe = m->pe ? m->pe : 1;
    if (!m->ppr)
        return 0;
    if ((long)m->ppr * k < l->np)
        return bl_err_set(err,
                          "map_by '%s': %d per %s x %d %s = %ld %s, but np "
                          "is %d",
                          l->map_by, m->ppr, obj_word(m->res, 1), k,
                          obj_word(m->res, k), (long)m->ppr * k,
                          plural(m->ppr * k, "rank", "ranks"), l->np);
    if (!over && l->bind != BL_RES_NONE && (long)m->ppr * pe > per)
        return bl_err_set(err,
                          "map_by '%s': %d ranks x %d %s = %ld cores on "
                          "one %s, but it has %d (add oversubscribe to "
                          "share cores)",
                          l->map_by, m->ppr, pe, plural(pe, "core", "cores"),
                          (long)m->ppr * pe, obj_word(m->res, 1), per);
    return 0;
}

/* PUs one rank may run on. bind_to none shares the node among the ranks. */
static int pus_per_rank(const bl_layout *l, const node *n)
{
    int k;
    if (l->bind == BL_RES_NONE) {
        k = n->c.pus / l->np;
        return k > 0 ? k : 1;
    }
    if (l->map.pe)
        return l->bind == BL_RES_HWTHREAD ? l->map.pe
                                          : l->map.pe * n->pus_per_core;
    k = count_of(n, l->bind);
    return k > 0 ? n->c.pus / k : 0;
}

int bl_layout_validate_node(const bl_layout *l, hwloc_topology_t topo,
                            int oversubscribe, bl_layout_check *out,
                            bl_err *err)
{
    node n;
    bl_res rank;
    int over = oversubscribe || l->map.oversubscribe, pus, threads;

    bl_topo_counts_get(topo, &n.c);
    if (n.c.cores <= 0)
        n.c.cores = n.c.pus; /* some captures have no core objects */
    n.pus_per_core = n.c.cores > 0 ? n.c.pus / n.c.cores : 1;
    if (n.pus_per_core < 1)
        n.pus_per_core = 1;
    if (check_present(&n, l->map.res, "map_by", l->map_by, err) < 0 ||
        check_present(&n, l->bind, "bind_to", l->bind_to, err) < 0)
        return -1;
    if (l->noisy[0]) {  /* its pinned CPUs must be this node's */
        bl_noisy nz;
        if (bl_noisy_parse(l->noisy, &nz, err) < 0 ||
            bl_noisy_check(&nz, topo, err) < 0)
            return -1;
    }
    rank = BL_RES_NONE;
    if (l->rank_by[0]) {
        bl_mapby rm;
        if (bl_layout_parse_map_by(l->rank_by, &rm, err) < 0)
            return bl_err_prefix(err, "rank_by");
        rank = rm.res;
    }
    if (check_present(&n, rank, "rank_by", l->rank_by, err) < 0 ||
        check_ppr(l, &n, over, err) < 0 || check_pe(l, &n, over, err) < 0)
        return -1;
    /* Open MPI counts one slot per core, or per hwthread when it maps by
     * hwthread (it then takes hwthreads as its CPUs). */
    int by_pu = l->map.res == BL_RES_HWTHREAD && !l->map.ppr;
    int slots = by_pu ? n.c.pus : n.c.cores;
    if (!over && !l->map.pe && l->np > slots)
        return bl_err_set(err,
                          "np %d needs %d slots, but this node has %d (one "
                          "per %s; add oversubscribe to share %ss)",
                          l->np, l->np, slots, by_pu ? "hwthread" : "core",
                          by_pu ? "hwthread" : "core");
    pus = pus_per_rank(l, &n);
    threads = l->threads == BL_THREADS_FILL ? pus : l->threads;
    if (l->bind == BL_RES_NONE && !over &&
        (long)l->np * threads > n.c.pus)
        return bl_err_set(err,
                          "np %d x %d threads = %ld threads, but this node "
                          "has %d PUs (bind_to none: the ranks share the "
                          "node)",
                          l->np, threads, (long)l->np * threads, n.c.pus);
    if (l->bind != BL_RES_NONE && threads > pus) {
        char what[128];
        if (l->map.pe)
            snprintf(what, sizeof what, "%s, bind_to %s", l->map_by,
                     l->bind_to);
        else
            snprintf(what, sizeof what, "bind_to %s", l->bind_to);
        return bl_err_set(err,
                          "threads %d, but one rank's binding (%s) has %d %s",
                          threads, what, pus, plural(pus, "PU", "PUs"));
    }
    out->threads = threads;
    out->pus_per_rank = pus;
    return 0;
}

/* Across nodes every node is checked with the ranks it gets: ppr:K:node
 * puts K on each; any other mapping at most ceil(np / nodes) once the
 * slots of every node are used (Open MPI fills a node's slots before the
 * next when mapping by slot or core, and deals round robin by node). Every
 * node is assumed to have this topology (layout_nodes.c checks each node
 * against its own). */
int bl_layout_validate(const bl_layout *l, hwloc_topology_t topo,
                       int oversubscribe, bl_layout_check *out, bl_err *err)
{
    bl_layout per = *l;
    if (l->nodes <= 1)
        return bl_layout_validate_node(l, topo, oversubscribe, out, err);
    if (l->np < l->nodes)
        return bl_err_set(err, "np %d on nodes %d: %d %s would get no rank "
                          "(give np %d or more, or fewer nodes)", l->np,
                          l->nodes, l->nodes - l->np,
                          plural(l->nodes - l->np, "node", "nodes"), l->nodes);
    if (l->map.ppr && l->map.res == BL_RES_NODE) {
        if ((long)l->map.ppr * l->nodes < l->np)
            return bl_err_set(err, "map_by '%s': %d per node x %d nodes = "
                              "%ld ranks, but np is %d", l->map_by,
                              l->map.ppr, l->nodes,
                              (long)l->map.ppr * l->nodes, l->np);
        per.np = l->map.ppr < l->np ? l->map.ppr : l->np;
    } else {
        per.np = (l->np + l->nodes - 1) / l->nodes;
    }
    if (bl_layout_validate_node(&per, topo, oversubscribe, out, err) < 0)
        return bl_err_prefix(err, "np %d over %d nodes = %d per node", l->np,
                             l->nodes, per.np);
    return 0;
}

/* --- spelling ----------------------------------------------------------- */

static const char *spell(bl_res r, int major)
{
    if (r == BL_RES_PACKAGE)
        return major < 5 ? "socket" : "package";
    return r == BL_RES_NONE ? "none" : bl_res_name(r);
}

int bl_layout_translate(bl_layout *l, int major, int minor, bl_err *err)
{
    const bl_mapby *m = &l->map;
    char buf[96];
    int len = 0;

    if (major < 2 || minor < 0)
        return bl_err_set(err,
                          "Open MPI version %d.%d: accepted: 2.0 or later",
                          major, minor);
    if (m->ppr)
        len = snprintf(buf, sizeof buf, "ppr:%d:%s", m->ppr,
                       spell(m->res, major));
    else
        len = snprintf(buf, sizeof buf, "%s", spell(m->res, major));
    if (m->pe)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ":PE=%d", m->pe);
    if (m->oversubscribe)
        len += snprintf(buf + len, sizeof buf - (size_t)len,
                        ":OVERSUBSCRIBE");
    if (m->span)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ":SPAN");
    if ((size_t)len >= sizeof l->map_by_launcher)
        return bl_err_set(err, "map_by '%s': too long once translated",
                          l->map_by);
    strcpy(l->map_by_launcher, buf);
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "%s",
             spell(l->bind, major));
    l->rank_by_launcher[0] = '\0';
    if (l->rank_by[0]) {
        bl_mapby tmp;
        /* rank_by names one resource; reuse the map_by parser. */
        if (bl_layout_parse_map_by(l->rank_by, &tmp, err) < 0)
            return -1;
        snprintf(l->rank_by_launcher, sizeof l->rank_by_launcher, "%s",
                 spell(tmp.res, major));
    }
    return 0;
}
