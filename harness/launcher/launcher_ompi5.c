/* Open MPI 5: mpirun is PRRTE's prterun. Its plan asks `mpirun
 * --do-not-launch --display map`: PRRTE's job map, with each rank's
 * binding, and nothing launched. */
#include "launcher/launcher_priv.h"

static int is_ompi5(const bl_launcher_info *li)
{
    return li->kind == BL_LAUNCHER_OPENMPI && li->major >= 5;
}

static int parse_version(const char *text, bl_launcher_info *out)
{
    return bl_ompi_parse_version(text, out) == 0 && is_ompi5(out) ? 0 : -1;
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    if (bl_ompi_command(c, l, li, o, err) < 0)
        return -1;
    /* the job map, with each rank's binding */
    if (c->plan && !c->plan->launched) {
        bl_cmd_plan_add(c, "--display");
        bl_cmd_plan_add(c, "map");
    }
    return 0;
}

const bl_launcher_ops bl_launcher_ompi5 = {
    .name = "ompi5",
    .title = "Open MPI",
    .family = "Open MPI 5",
    .family_major = 5,
    .kind = BL_LAUNCHER_OPENMPI,
    .program = "mpirun",
    .record_as = "mpirun",
    .parse_version = parse_version,
    .is = is_ompi5,
    .translate = bl_ompi_translate,
    .command = command,
    .hosts = BL_HOSTS_SLOTS,
    .report_format = "ompi5",
    .plan_report_format = "ompi5-map",
    .plan_way = BL_PLAN_DRY_RUN,
    .plan_dry_how = "mpirun mapped without launching (--do-not-launch "
                    "--display map) on the node (HWLOC_XMLFILE)",
    .plan_launched_how = BL_OMPI_LAUNCHED_HOW,
    .plan_needs_preload = 1,
    .plan_shapes = 1,
};
