/* A launcher for tests only, added as docs/architecture.md's recipe says
 * (this one file, and one table entry: bl_launcher_register in its test).
 * "fakerun" starts N ranks mapped and bound to cores or packages:
 *   fakerun -n N --map OBJ --bind OBJ [--dry] --env NAME=VALUE... PROGRAM
 * its --version says "fakerun version 1.2.3", and it reports bindings as
 * Hydra's "process R binding: MASK" lines. */
#include "launcher/launcher.h"

#include <stdio.h>
#include <string.h>

#include "bindreport/bindreport.h"

static int parse_version(const char *text, bl_launcher_info *out)
{
    const char *p = strstr(text, "fakerun version ");
    if (!p || sscanf(p + 16, "%d.%d.%d", &out->major, &out->minor,
                     &out->patch) != 3)
        return -1;
    snprintf(out->version, sizeof out->version, "%d.%d.%d", out->major,
             out->minor, out->patch);
    out->kind = BL_LAUNCHER_REGISTERED;
    return 0;
}

/* fakerun's words for a level, NULL for what it cannot express */
static const char *obj(bl_res r)
{
    switch (r) {
    case BL_RES_NONE: return "none";
    case BL_RES_CORE: return "core";
    case BL_RES_PACKAGE: return "package";
    default: return NULL;
    }
}

static int translate(bl_layout *l, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_err *err)
{
    (void)li;
    (void)topo;
    if (l->map.ppr || l->map.pe || !obj(l->map.res) || !obj(l->bind))
        return bl_err_set(err, "fakerun maps and binds to none, core or "
                          "package only, without ppr or PE; not map_by "
                          "'%s' bind_to '%s'", l->map_by, l->bind_to);
    snprintf(l->map_by_launcher, sizeof l->map_by_launcher, "%s",
             obj(l->map.res));
    snprintf(l->bind_to_launcher, sizeof l->bind_to_launcher, "%s",
             obj(l->bind));
    return 0;
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    (void)li;
    (void)err;
    bl_cmd_add(c, o->launcher ? o->launcher : "fakerun");
    bl_cmd_add(c, "-n");
    bl_cmd_addf(c, "%d", l->np);
    bl_cmd_add(c, "--map");
    bl_cmd_add(c, l->map_by_launcher);
    bl_cmd_add(c, "--bind");
    bl_cmd_add(c, l->bind_to_launcher);
    if (c->plan && !c->plan->launched)
        bl_cmd_plan_add(c, "--dry");
    bl_cmd_add(c, "--env");
    bl_cmd_addf(c, "OMP_NUM_THREADS=%d", o->threads);
    return 0;
}

const bl_launcher_ops bl_launcher_fake = {
    .name = "fake",
    .title = "Fake MPI",
    .family = "Fake MPI",
    .kind = BL_LAUNCHER_REGISTERED,
    .program = "fakerun",
    .record_as = "fakerun",
    .parse_version = parse_version,
    .translate = translate,
    .translate_refuses = 1,
    .command = command,
    .hosts = BL_HOSTS_NAMES,
    .report_format = "hydra",
    .plan_report_format = "hydra",
    .plan_way = BL_PLAN_DRY_RUN,
    .plan_dry_how = "fakerun mapped without launching (--dry)",
};
