/* Open MPI 4 (and the 2.x/3.x before it): mpirun and ORTE. Its plan asks
 * `mpirun --do-not-launch`, which maps and binds exactly as for a real
 * launch and prints the job map with each rank's binding; 2.x and 3.x
 * have no such map, so their plan starts /bin/true ranks. */
#include "launcher/launcher_priv.h"

static int is_ompi4(const bl_launcher_info *li)
{
    return li->kind == BL_LAUNCHER_OPENMPI && li->major < 5;
}

static int parse_version(const char *text, bl_launcher_info *out)
{
    return bl_ompi_parse_version(text, out) == 0 && is_ompi4(out) ? 0 : -1;
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    if (bl_ompi_command(c, l, li, o, err) < 0)
        return -1;
    /* Open MPI 4 binds a rank mapped and bound to the same level (core
     * and core) on mpirun's own node only, leaving the other nodes to
     * their daemons, which --do-not-launch never starts; without the
     * virtual machine mpirun binds every node's ranks itself. */
    if (c->plan && c->plan->nodes > 1)
        bl_cmd_plan_env(c, "OMPI_MCA_orte_no_vm", "1");
    return 0;
}

const bl_launcher_ops bl_launcher_ompi4 = {
    .name = "ompi4",
    .title = "Open MPI",
    .family = "Open MPI 4",
    .family_major = 4,
    .kind = BL_LAUNCHER_OPENMPI,
    .program = "mpirun",
    .record_as = "mpirun",
    .parse_version = parse_version,
    .is = is_ompi4,
    .translate = bl_ompi_translate,
    .command = command,
    .hosts = BL_HOSTS_SLOTS,
    .report_format = "ompi4",
    .plan_report_format = "ompi4",
    /* --do-not-launch's job map is Open MPI 4's (and 5's) */
    .plan_way = BL_PLAN_DRY_RUN,
    .plan_dry_since = 4,
    .plan_dry_how = "mpirun mapped without launching (--do-not-launch) on "
                    "the node (HWLOC_XMLFILE)",
    .plan_launched_how = BL_OMPI_LAUNCHED_HOW,
    .plan_job_map = 1,
    /* its whole-job map of made-up hosts gives each mpirun's one topology
     * object and carries binding counts from one node to the next; a real
     * launch binds each node alone */
    .plan_node_by_node = 1,
    .plan_shapes = 1,
};
