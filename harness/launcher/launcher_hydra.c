/* MPICH's Hydra (also MVAPICH's): mpiexec -bind-to / -map-by / -ppn.
 * Open MPI layouts spelled for it, checked on real launches:
 *   -map-by socket -bind-to core      = --map-by package --bind-to core
 *   -map-by core:P -bind-to core:P    = --map-by core:PE=P
 *     (with -map-by core, core:P groups would overlap: rank 1 starts at
 *     core 1)
 *   -map-by socket -bind-to core:P    = --map-by package:PE=P
 *   -map-by core -bind-to socket      = --map-by core --bind-to package
 * What it does not do the same way is refused with the reason. It has no
 * dry mode: its plan starts /bin/true as each rank, and HYDRA_TOPO_DEBUG=1
 * prints the binding its proxy computed for each. */
#include "launcher/launcher_priv.h"

#include <stdio.h>
#include <string.h>

#define WHO "MPICH"

/* "HYDRA build details:" then "    Version:     4.0.2". */
static int parse_version(const char *text, bl_launcher_info *out)
{
    const char *h = strstr(text, "HYDRA build details:");
    const char *p = h ? strstr(h, "Version:") : NULL;
    if (!p)
        return -1;
    p += strlen("Version:");
    while (*p == ' ' || *p == '\t')
        p++;
    if (bl_launcher_parse_numbers(p, out) != 0)
        return -1;
    out->kind = BL_LAUNCHER_MPICH;
    return 0;
}

/* The spelling of a layout bound to something, PE groups included. */
static int bound(bl_layout *l, bl_res map, const char *mo, bl_err *err)
{
    const bl_mapby *m = &l->map;
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
    if (!bl_hydra_obj(l->bind))
        return bl_err_set(err, "bind_to '%s': MPICH's -bind-to has no such "
                          "object", l->bind_to);
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "%s",
             bl_hydra_obj(l->bind));
    snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s", mo);
    return 0;
}

static int translate(bl_layout *l, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_err *err)
{
    const bl_mapby *m = &l->map;
    /* ppr:N:node fills the node's cores in order, as -ppn N does; so does
     * map_by node inside each node */
    bl_res map = m->ppr || m->res == BL_RES_SLOT || m->res == BL_RES_NODE
                     ? BL_RES_CORE : m->res;
    const char *mo = bl_hydra_obj(map);

    (void)li;
    if (bl_hydra_common_check(l, WHO, err) < 0)
        return -1;
    if (!mo)
        return bl_err_set(err, "map_by '%s': MPICH's -map-by has no such "
                          "object", l->map_by);
    if (l->bind == BL_RES_NONE) {
        snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "none");
        snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s", mo);
    } else if (bound(l, map, mo, err) < 0) {
        return -1;
    }
    return bl_hydra_set_ppn(l, topo, err);
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    (void)li;
    (void)err;
    /* read by Hydra's proxy, which inherits mpiexec's environment, not
     * -genv's */
    bl_cmd_add(c, "env");
    bl_cmd_add(c, "HYDRA_TOPO_DEBUG=1");
    bl_cmd_add(c, o->launcher ? o->launcher : "mpiexec");
    /* a plan over made-up hosts starts every proxy here */
    if (c->plan && c->plan->nodes > 1) {
        bl_cmd_plan_add(c, "-launcher");
        bl_cmd_plan_add(c, "fork");
    }
    if (o->hosts) {
        /* Across nodes each proxy numbers its binding lines by the rank's
         * index on its node; -l labels them with the rank */
        bl_cmd_add(c, "-l");
        bl_cmd_add(c, "-hosts");
        bl_cmd_add(c, o->hosts);
    }
    bl_hydra_counts(c, l);
    bl_cmd_add(c, "-bind-to");
    bl_cmd_add(c, l->bind_to_launcher);
    if (l->bind != BL_RES_NONE) {
        bl_cmd_add(c, "-map-by");
        bl_cmd_add(c, l->map_by_launcher);
    }
    bl_hydra_omp(c, l, o);
    return 0;
}

const bl_launcher_ops bl_launcher_hydra = {
    .name = "mpich",
    .title = "MPICH (Hydra)",
    .family = "MPICH (Hydra)",
    .kind = BL_LAUNCHER_MPICH,
    .program = "mpiexec",
    .record_as = "mpirun",
    .parse_version = parse_version,
    .translate = translate,
    .translate_refuses = 1,
    .command = command,
    .hosts = BL_HOSTS_NAMES,
    .report_format = "hydra",
    .plan_report_format = "hydra",
    .plan_way = BL_PLAN_TRUE_RANKS,
    .plan_launched_how = "Hydra started /bin/true as each rank on the node "
                         "(HWLOC_XMLFILE) and printed the binding it made "
                         "(HYDRA_TOPO_DEBUG=1); the preload library "
                         "recorded it instead of applying it",
    /* env prints the rank's PMI_HOSTNAME, labelled [R] by -l */
    .plan_nodes_program = "/usr/bin/env",
};
