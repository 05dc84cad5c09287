/* What Open MPI 4 and 5 share: the --version line, the spelling
 * (bl_layout_translate by version) and mpirun's options. Their plans
 * differ (launcher_ompi4.c, launcher_ompi5.c). */
#include "launcher/launcher_priv.h"

#include <string.h>

/* "mpirun (Open MPI) 4.1.4"; Open MPI 1.x said "(Open RTE)", and 4.x's
 * mpiexec says "mpiexec (OpenRTE) 4.1.4". */
int bl_ompi_parse_version(const char *text, bl_launcher_info *out)
{
    static const char *const tags[] = {"(Open MPI) ", "(Open RTE) ",
                                       "(OpenRTE) "};
    for (int i = 0; i < 3; i++) {
        const char *p = strstr(text, tags[i]);
        if (p && bl_launcher_parse_numbers(p + strlen(tags[i]), out) == 0) {
            out->kind = BL_LAUNCHER_OPENMPI;
            return 0;
        }
    }
    return -1;
}

int bl_ompi_translate(bl_layout *l, const bl_launcher_info *li,
                      hwloc_topology_t topo, bl_err *err)
{
    (void)topo;
    return bl_layout_translate(l, li->major, li->minor, err);
}

/* -x NAME=VALUE for every rank */
static void export(void *c, const char *name, const char *value)
{
    bl_cmd_add(c, "-x");
    bl_cmd_addf(c, "%s=%s", name, value);
}

int bl_ompi_command(bl_cmd *c, const bl_layout *l,
                    const bl_launcher_info *li, const bl_layout_argv_opts *o,
                    bl_err *err)
{
    (void)li;
    (void)err;
    bl_cmd_add(c, o->launcher ? o->launcher : "mpirun");
    if (o->is_root)
        bl_cmd_add(c, "--allow-run-as-root");
    bl_cmd_add(c, "-np");
    bl_cmd_addf(c, "%d", l->np);
    if (o->hosts) {
        bl_cmd_add(c, "--host");
        bl_cmd_add(c, o->hosts);
    } else if (c->plan) {
        /* One slot per rank: Open MPI then refuses a layout for its
         * mapping or binding on that node, never because this machine
         * has few cores. */
        bl_cmd_plan_add(c, "--host");
        bl_cmd_plan_addf(c, "localhost:%d", l->np);
    }
    bl_cmd_add(c, "--map-by");
    bl_cmd_add(c, l->map_by_launcher);
    bl_cmd_add(c, "--bind-to");
    /* With --oversubscribe Open MPI still refuses to bind two ranks to one
     * core unless the binding allows overload. */
    if ((o->oversubscribe || l->map.oversubscribe) && l->bind != BL_RES_NONE)
        bl_cmd_addf(c, "%s:overload-allowed", l->bind_to_launcher);
    else
        bl_cmd_add(c, l->bind_to_launcher);
    if (l->rank_by_launcher[0]) {
        bl_cmd_add(c, "--rank-by");
        bl_cmd_add(c, l->rank_by_launcher);
    }
    if (o->oversubscribe)
        bl_cmd_add(c, "--oversubscribe");
    bl_cmd_add(c, "--report-bindings");
    bl_launcher_omp_env(l, o, export, c);
    /* maps and binds exactly as for a real launch, and launches nothing */
    if (c->plan && !c->plan->launched)
        bl_cmd_plan_add(c, "--do-not-launch");
    /* The caller's MCA defaults belong to this machine, not the node
     * planned for. */
    bl_cmd_plan_env(c, "OMPI_MCA_rmaps_base_oversubscribe", "0");
    return 0;
}
