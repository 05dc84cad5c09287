/* Open MPI layouts spelled for MPICH's Hydra and for Intel MPI, checked on
 * real launches (tests/fixtures/bindreport/hydra-*.txt, impi-*.txt):
 *   Hydra -map-by socket -bind-to core      = --map-by package --bind-to core
 *   Hydra -map-by core:P -bind-to core:P    = --map-by core:PE=P
 *     (with -map-by core, core:P groups would overlap: rank 1 starts at
 *     core 1)
 *   Hydra -map-by socket -bind-to core:P    = --map-by package:PE=P
 *   Hydra -map-by core -bind-to socket      = --map-by core --bind-to package
 * Intel MPI gives each rank one pinning domain: a domain of the layout's
 * binding level when the mapping is the same level, or P cores' PUs
 * (compact) for core:PE=P. What neither launcher does the same way is
 * refused with the reason. */
#include "launcher/layout_hydra.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/argv_build.h"
#include "bindreport/bindreport.h"

int bl_launcher_is_hydra(const bl_launcher_info *li)
{
    return li->kind == BL_LAUNCHER_MPICH || li->kind == BL_LAUNCHER_INTELMPI;
}

static const char *who(const bl_launcher_info *li)
{
    return li->kind == BL_LAUNCHER_INTELMPI ? "Intel MPI" : "MPICH";
}

/* Hydra's name of a level; NULL for what it has no object for. */
static const char *hydra_obj(bl_res r)
{
    switch (r) {
    case BL_RES_HWTHREAD: return "hwthread";
    case BL_RES_CORE:
    case BL_RES_SLOT: return "core"; /* Open MPI's slots are cores */
    case BL_RES_L3CACHE: return "l3cache";
    case BL_RES_NUMA: return "numa";
    case BL_RES_PACKAGE: return "socket";
    default: return NULL;
    }
}

/* What both launchers refuse alike: ranking, span, ppr below the node. */
static int common_check(const bl_layout *l, const bl_launcher_info *li,
                        bl_err *err)
{
    const bl_mapby *m = &l->map;
    if (l->rank_by[0])
        return bl_err_set(err, "rank_by '%s': %s has no --rank-by (ranks "
                          "are numbered in mapping order); remove rank_by "
                          "for this launcher", l->rank_by, who(li));
    if (m->span)
        return bl_err_set(err, "map_by '%s': %s has no :span; remove it "
                          "for this launcher", l->map_by, who(li));
    if (m->ppr && m->res != BL_RES_NODE)
        return bl_err_set(err, "map_by '%s': %s has no ppr over %s (its "
                          "-ppn counts processes per node); use map_by %s "
                          "(round robin over them) or ppr:N:node",
                          l->map_by, who(li), bl_res_name(m->res),
                          bl_res_name(m->res));
    if (!m->ppr && m->res == BL_RES_NODE && l->nodes < 1)
        return bl_err_set(err, "map_by node: %s maps inside a node by an "
                          "object; use map_by core (or ppr:N:node), or "
                          "give nodes", who(li));
    /* Across nodes Open MPI gives a node as many ranks as it has slots
     * (cores); with PE=n it refuses map_by core:PE=n there and would
     * count cores per rank otherwise, which -ppn cannot say. */
    if (l->nodes > 0 && m->pe && !(m->ppr && m->res == BL_RES_NODE))
        return bl_err_set(err, "map_by '%s' with nodes %d: %s spreads "
                          "ranks over nodes with -ppn, which counts ranks, "
                          "not cores; give ppr:N:node:PE=%d", l->map_by,
                          l->nodes, who(li), m->pe);
    return 0;
}

/* -ppn for a layout with nodes, as Open MPI spreads it over hosts of C
 * slots (C = cores per node): ppr:K:node puts K on each node, map_by node
 * one at a time round robin (Hydra's -ppn 1 starts over at the first host
 * when every host has one), anything else fills a node's C slots before
 * the next (-ppn C). */
static int ppn_of(const bl_layout *l, hwloc_topology_t topo)
{
    int cores = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) : 0;
    if (l->nodes < 1)
        return 0;
    if (l->map.ppr && l->map.res == BL_RES_NODE)
        return l->map.ppr;
    if (l->map.res == BL_RES_NODE)
        return 1;
    return cores > 0 ? cores
                     : (topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)
                             : 0);
}

static int mpich_translate(bl_layout *l, const bl_launcher_info *li,
                           bl_err *err)
{
    const bl_mapby *m = &l->map;
    /* ppr:N:node fills the node's cores in order, as -ppn N does; so does
     * map_by node inside each node */
    bl_res map = m->ppr || m->res == BL_RES_SLOT || m->res == BL_RES_NODE
                     ? BL_RES_CORE : m->res;
    const char *mo = hydra_obj(map);

    if (common_check(l, li, err) < 0)
        return -1;
    if (!mo)
        return bl_err_set(err, "map_by '%s': MPICH's -map-by has no such "
                          "object", l->map_by);
    if (l->bind == BL_RES_NONE) {
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "none");
        snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s", mo);
        return 0;
    }
    if (m->pe) {
        if (l->bind != BL_RES_CORE)
            return bl_err_set(err, "map_by '%s' with bind_to %s: MPICH "
                              "binds PE groups as cores only (-bind-to "
                              "core:%d); use bind_to core", l->map_by,
                              l->bind_to, m->pe);
        if (map == BL_RES_HWTHREAD)
            return bl_err_set(err, "map_by '%s': MPICH cannot give cores "
                              "to ranks mapped by hwthread; use map_by "
                              "core:PE=%d", l->map_by, m->pe);
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
                 "core:%d", m->pe);
        if (map == BL_RES_CORE)
            snprintf(l->map_by_launcher, sizeof l->map_by_launcher,
                     "core:%d", m->pe);
        else
            snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s",
                     mo);
        return 0;
    }
    if (!hydra_obj(l->bind))
        return bl_err_set(err, "bind_to '%s': MPICH's -bind-to has no such "
                          "object", l->bind_to);
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "%s",
             hydra_obj(l->bind));
    snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s", mo);
    return 0;
}

/* Intel MPI's domain for a rank bound to one object of level r. */
static const char *impi_domain(bl_res r)
{
    switch (r) {
    case BL_RES_CORE: return "core";
    case BL_RES_L3CACHE: return "cache3";
    case BL_RES_NUMA: return "numa";
    case BL_RES_PACKAGE: return "socket";
    default: return NULL;
    }
}

static int impi_translate(bl_layout *l, const bl_launcher_info *li,
                          hwloc_topology_t topo, bl_err *err)
{
    const bl_mapby *m = &l->map;
    bl_res map = m->ppr ? BL_RES_CORE : m->res;

    if (map == BL_RES_SLOT || map == BL_RES_NODE)
        map = BL_RES_CORE;
    if (common_check(l, li, err) < 0)
        return -1;
    if (l->bind == BL_RES_NONE) {
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
                 "I_MPI_PIN=0");
        snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "-");
        return 0;
    }
    if (m->pe) {
        int cores = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) : 0;
        int pus = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) : 0;
        if (l->bind != BL_RES_CORE || map != BL_RES_CORE)
            return bl_err_set(err, "map_by '%s' bind_to %s: Intel MPI "
                              "forms domains of consecutive cores only; use "
                              "map_by core:PE=%d with bind_to core",
                              l->map_by, l->bind_to, m->pe);
        if (cores < 1 || pus % cores != 0)
            return bl_err_set(err, "map_by '%s': cores of unequal PU counts "
                              "on this node; Intel MPI's domain size cannot "
                              "say %d cores", l->map_by, m->pe);
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
                 "I_MPI_PIN_DOMAIN=%d:compact", m->pe * (pus / cores));
        snprintf(l->map_by_launcher, sizeof l->map_by_launcher,
                 "I_MPI_PIN_ORDER=compact");
        return 0;
    }
    if (l->bind == BL_RES_HWTHREAD)
        return bl_err_set(err, "bind_to hwthread: bindlab has no Intel MPI "
                          "spelling checked to place ranks per hardware "
                          "thread as Open MPI does; use bind_to core, or "
                          "set I_MPI_PIN_PROCESSOR_LIST yourself");
    if (map != l->bind || !impi_domain(l->bind))
        return bl_err_set(err, "map_by %s with bind_to %s: Intel MPI gives "
                          "each rank its own %s domain in order (it has no "
                          "round robin of one level over another); use "
                          "map_by %s", l->map_by, l->bind_to,
                          impi_domain(l->bind) ? impi_domain(l->bind) : "",
                          bl_res_name(l->bind));
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
             "I_MPI_PIN_DOMAIN=%s", impi_domain(l->bind));
    /* core domains: neighbours first (Open MPI's logical order); larger
     * domains by number */
    snprintf(l->map_by_launcher, sizeof l->map_by_launcher,
             "I_MPI_PIN_ORDER=%s", l->bind == BL_RES_CORE ? "compact"
                                                          : "range");
    return 0;
}

int bl_layout_translate_for(bl_layout *l, const bl_launcher_info *li,
                            hwloc_topology_t topo, bl_err *err)
{
    l->rank_by_launcher[0] = '\0';
    l->ppn_launcher = 0;
    if (li->kind == BL_LAUNCHER_MPICH || li->kind == BL_LAUNCHER_INTELMPI) {
        int rc = li->kind == BL_LAUNCHER_MPICH
                     ? mpich_translate(l, li, err)
                     : impi_translate(l, li, topo, err);
        if (rc == 0)
            l->ppn_launcher = ppn_of(l, topo);
        if (rc == 0 && l->nodes > 0 && l->ppn_launcher < 1)
            return bl_err_set(err, "nodes %d: no topology to count the "
                              "cores per node for -ppn", l->nodes);
        return rc;
    }
    return bl_layout_translate(l, li->major, li->minor, err);
}

/* ---- the command line ------------------------------------------------ */

/* -genv NAME VALUE: one variable for every rank */
static void genv(bl_argv_build *b, const char *name, const char *value)
{
    bl_argv_add(b, "-genv");
    bl_argv_add(b, name);
    bl_argv_add(b, value);
}

char **bl_layout_hydra_argv(const bl_layout *l, const bl_kernel_spec *k,
                            const bl_layout_argv_opts *o,
                            const bl_launcher_info *li, bl_err *err)
{
    bl_argv_build b = {0};
    int intel = li->kind == BL_LAUNCHER_INTELMPI;
    char threads[16];

    if (!o->app || !o->out_file || o->threads < 1) {
        bl_err_set(err, "launch options: app, out file and threads are "
                        "needed");
        return NULL;
    }
    if (!l->map_by_launcher[0] || !l->bind_to_launcher[0]) {
        bl_err_set(err, "layout %s: not translated for %s (call "
                        "bl_layout_translate_for first)", l->run_id, who(li));
        return NULL;
    }
    if (!intel) {
        bl_argv_add(&b, "env");
        bl_argv_add(&b, "HYDRA_TOPO_DEBUG=1");
    }
    bl_argv_add(&b, o->launcher ? o->launcher : "mpiexec");
    if (o->hosts) {
        /* Across nodes each proxy numbers its binding lines by the rank's
         * index on its node; -l labels them with the rank */
        if (!intel)
            bl_argv_add(&b, "-l");
        /* the hosts are the Slurm allocation's; given -hosts, Intel MPI
         * would start its proxies by ssh instead of through Slurm */
        if (intel) {
            bl_argv_add(&b, "-bootstrap");
            bl_argv_add(&b, "slurm");
        }
        bl_argv_add(&b, "-hosts");
        bl_argv_add(&b, o->hosts);
    }
    bl_argv_add(&b, "-np");
    bl_argv_addf(&b, "%d", l->np);
    if (l->ppn_launcher > 0 || l->map.ppr) {
        bl_argv_add(&b, "-ppn");
        bl_argv_addf(&b, "%d", l->ppn_launcher > 0 ? l->ppn_launcher
                                                   : l->map.ppr);
    }
    if (!intel) {
        bl_argv_add(&b, "-bind-to");
        bl_argv_add(&b, l->bind_to_launcher);
        if (l->bind != BL_RES_NONE) {
            bl_argv_add(&b, "-map-by");
            bl_argv_add(&b, l->map_by_launcher);
        }
    } else {
        /* "I_MPI_PIN_DOMAIN=core" -> -genv I_MPI_PIN_DOMAIN core */
        const char *kv[] = {l->bind_to_launcher, l->map_by_launcher};
        for (int i = 0; i < 2; i++) {
            const char *eq = strchr(kv[i], '=');
            char name[32];
            if (!eq || (size_t)(eq - kv[i]) >= sizeof name)
                continue;
            memcpy(name, kv[i], (size_t)(eq - kv[i]));
            name[eq - kv[i]] = '\0';
            genv(&b, name, eq + 1);
        }
        genv(&b, "I_MPI_DEBUG", "4");
    }
    snprintf(threads, sizeof threads, "%d", o->threads);
    genv(&b, "OMP_NUM_THREADS", threads);
    if (l->omp_places[0])
        genv(&b, "OMP_PLACES", l->omp_places);
    if (l->omp_proc_bind[0])
        genv(&b, "OMP_PROC_BIND", l->omp_proc_bind);
    genv(&b, "OMP_DISPLAY_AFFINITY", "true");
    genv(&b, "OMP_AFFINITY_FORMAT", BL_OMP_AFFINITY_FORMAT);
    bl_argv_add(&b, o->app);
    bl_argv_add(&b, "--kernel");
    bl_argv_add(&b, k->name);
    for (int i = 0; i < k->nargs; i++)
        bl_argv_add(&b, k->args[i]);
    bl_argv_add(&b, "--init");
    bl_argv_add(&b, l->serial_init ? "serial" : "parallel");
    if (l->mem_policy[0]) {
        bl_argv_add(&b, "--mem-policy");
        bl_argv_add(&b, l->mem_policy);
    }
    bl_argv_add(&b, "--out");
    bl_argv_add(&b, o->out_file);
    return bl_argv_take(&b, err);
}
