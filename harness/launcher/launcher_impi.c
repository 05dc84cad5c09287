/* Intel MPI: Hydra underneath, but pinning through I_MPI_PIN_DOMAIN /
 * I_MPI_PIN_ORDER, with I_MPI_DEBUG=4 for its pinning table. Each rank
 * gets one pinning domain: a domain of the layout's binding level when the
 * mapping is the same level, or P cores' PUs (compact) for core:PE=P.
 * What it does not do the same way is refused with the reason. It pins
 * inside MPI_Init from its own CPU detection, so it cannot be asked about
 * another node: bindlab plan models it (plan/plan_ranks_impi.c). */
#include "launcher/launcher_priv.h"

#include <stdio.h>
#include <string.h>

#define WHO "Intel MPI"

/* "Intel(R) MPI Library for Linux* OS, Version 2021.8 Build 20221129 ..."
 * or "... Version 2019 Update 2 Build ...". */
static int parse_version(const char *text, bl_launcher_info *out)
{
    const char *line = bl_launcher_line_with(text, "Intel(R) MPI Library");
    const char *p, *eol, *u;
    int update;
    if (!line)
        return -1;
    p = strstr(line, "Version ");
    eol = line + strcspn(line, "\n");
    if (!p || p > eol || bl_launcher_parse_numbers(p + 8, out) != 0)
        return -1;
    u = p + 8 + strlen(out->version);
    if (out->minor == 0 && sscanf(u, " Update %d", &update) == 1) {
        out->minor = update;
        snprintf(out->version, sizeof out->version, "%d Update %d",
                 out->major, update);
    }
    out->kind = BL_LAUNCHER_INTELMPI;
    return 0;
}

/* Intel MPI's domain for a rank bound to one object of level r. */
static const char *domain_of(bl_res r)
{
    switch (r) {
    case BL_RES_CORE: return "core";
    case BL_RES_L3CACHE: return "cache3";
    case BL_RES_NUMA: return "numa";
    case BL_RES_PACKAGE: return "socket";
    default: return NULL;
    }
}

/* core:PE=P: domains of P cores' PUs. */
static int pe_domains(bl_layout *l, bl_res map, hwloc_topology_t topo,
                      bl_err *err)
{
    const bl_mapby *m = &l->map;
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

static int spell(bl_layout *l, bl_res map, hwloc_topology_t topo,
                 bl_err *err)
{
    if (l->bind == BL_RES_NONE) {
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
                 "I_MPI_PIN=0");
        snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "-");
        return 0;
    }
    if (l->map.pe)
        return pe_domains(l, map, topo, err);
    if (l->bind == BL_RES_HWTHREAD)
        return bl_err_set(err, "bind_to hwthread: bindlab has no Intel MPI "
                          "spelling checked to place ranks per hardware "
                          "thread as Open MPI does; use bind_to core, or "
                          "set I_MPI_PIN_PROCESSOR_LIST yourself");
    if (map != l->bind || !domain_of(l->bind))
        return bl_err_set(err, "map_by %s with bind_to %s: Intel MPI gives "
                          "each rank its own %s domain in order (it has no "
                          "round robin of one level over another); use "
                          "map_by %s", l->map_by, l->bind_to,
                          domain_of(l->bind) ? domain_of(l->bind) : "",
                          bl_res_name(l->bind));
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher,
             "I_MPI_PIN_DOMAIN=%s", domain_of(l->bind));
    /* core domains: neighbours first (Open MPI's logical order); larger
     * domains by number */
    snprintf(l->map_by_launcher, sizeof l->map_by_launcher,
             "I_MPI_PIN_ORDER=%s", l->bind == BL_RES_CORE ? "compact"
                                                          : "range");
    return 0;
}

static int translate(bl_layout *l, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_err *err)
{
    bl_res map = l->map.ppr ? BL_RES_CORE : l->map.res;
    (void)li;
    if (map == BL_RES_SLOT || map == BL_RES_NODE)
        map = BL_RES_CORE;
    if (bl_hydra_common_check(l, WHO, err) < 0 ||
        spell(l, map, topo, err) < 0)
        return -1;
    return bl_hydra_set_ppn(l, topo, err);
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    (void)li;
    (void)err;
    bl_cmd_add(c, o->launcher ? o->launcher : "mpiexec");
    if (o->hosts) {
        /* the hosts are the Slurm allocation's; given -hosts, Intel MPI
         * would start its proxies by ssh instead of through Slurm */
        bl_cmd_add(c, "-bootstrap");
        bl_cmd_add(c, "slurm");
        bl_cmd_add(c, "-hosts");
        bl_cmd_add(c, o->hosts);
    }
    bl_hydra_counts(c, l);
    /* "I_MPI_PIN_DOMAIN=core" -> -genv I_MPI_PIN_DOMAIN core */
    bl_hydra_genv_pair(c, l->bind_to_launcher);
    bl_hydra_genv_pair(c, l->map_by_launcher);
    bl_hydra_genv(c, "I_MPI_DEBUG", "4");
    bl_hydra_omp(c, l, o);
    return 0;
}

const bl_launcher_ops bl_launcher_impi = {
    .name = "impi",
    .title = "Intel MPI",
    .family = "Intel MPI",
    .kind = BL_LAUNCHER_INTELMPI,
    .program = "mpiexec",
    .record_as = "mpirun",
    .parse_version = parse_version,
    .translate = translate,
    .translate_refuses = 1,
    .command = command,
    .hosts = BL_HOSTS_NAMES,
    .report_format = "impi",
    .plan_way = BL_PLAN_MODELLED,
};
