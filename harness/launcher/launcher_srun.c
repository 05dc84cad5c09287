/* Slurm's srun: -n, -N, -c, --cpu-bind, --distribution, --ntasks-per-*,
 * the OpenMP variables through --export. What srun cannot express is an
 * error, never a silent approximation. It cannot be asked about a node it
 * is not on, so bindlab plan does not use it. */
#include "launcher/launcher_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* "slurm 22.05.8", or Debian's "slurm-wlm 22.05.8". */
static int parse_version(const char *text, bl_launcher_info *out)
{
    const char *p = text + strspn(text, " \t\r\n");
    size_t name = strcspn(p, " \t\r\n");
    if ((name == 5 && strncmp(p, "slurm", 5) == 0) ||
        (name == 9 && strncmp(p, "slurm-wlm", 9) == 0)) {
        const char *v = p + name + strspn(p + name, " \t");
        if (bl_launcher_parse_numbers(v, out) == 0) {
            out->kind = BL_LAUNCHER_SLURM;
            return 0;
        }
    }
    return -1;
}

/* its layout is read from the parsed fields; the spelled ones are kept
 * for the run record */
static int translate(bl_layout *l, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_err *err)
{
    (void)topo;
    return bl_layout_translate(l, li->major, li->minor, err);
}

static const char *bind_of(bl_res r)
{
    switch (r) {
    case BL_RES_NONE: return "none";
    case BL_RES_HWTHREAD: return "threads";
    case BL_RES_CORE: return "cores";
    case BL_RES_NUMA: return "ldoms";
    case BL_RES_PACKAGE: return "sockets";
    default: return NULL;
    }
}

/* Open MPI's round robin over packages or NUMA nodes is Slurm's cyclic
 * distribution at the socket level; filling cores in order is block. */
static const char *distribution_of(const bl_mapby *m)
{
    if (m->res == BL_RES_NODE && !m->ppr)
        return "cyclic:block";
    if (!m->ppr && (m->res == BL_RES_PACKAGE || m->res == BL_RES_NUMA))
        return "block:cyclic";
    return "block:block";
}

/* What srun cannot express. */
static int cannot_express(const bl_layout *l, bl_err *err)
{
    if (!bind_of(l->bind))
        return bl_err_set(err, "bind_to '%s': srun cannot bind to it; "
                               "accepted with srun: none, hwthread, core, "
                               "numa, package/socket",
                          l->bind_to);
    if (l->map.ppr && l->map.res != BL_RES_PACKAGE &&
        l->map.res != BL_RES_NODE && l->map.res != BL_RES_CORE)
        return bl_err_set(err, "map_by '%s': srun has no tasks-per-%s "
                               "option; with srun use ppr over package, "
                               "core or node",
                          l->map_by, bl_res_name(l->map.res));
    /* --export splits on commas, so a value with one cannot pass. */
    if (strchr(l->omp_places, ','))
        return bl_err_set(err, "omp_places '%s': srun's --export cannot "
                               "carry a value with commas; use an abstract "
                               "name (cores, threads, ...) with srun",
                          l->omp_places);
    if (strchr(l->omp_proc_bind, ','))
        return bl_err_set(err, "omp_proc_bind '%s': srun's --export "
                               "cannot carry a value with commas; give one "
                               "policy with srun",
                          l->omp_proc_bind);
    return 0;
}

/* ",NAME=VALUE" onto --export's list */
static void export(void *list, const char *name, const char *value)
{
    bl_strbuf_printf(list, ",%s=%s", name, value);
}

static void export_omp(bl_cmd *c, const bl_layout *l,
                       const bl_layout_argv_opts *o)
{
    bl_strbuf list = {0};
    char *word;
    bl_strbuf_puts(&list, "--export=ALL");
    bl_launcher_omp_env(l, o, export, &list);
    if (!(word = bl_strbuf_take(&list))) {
        c->failed = 1;
        return;
    }
    bl_cmd_add(c, word);
    free(word);
}

static int command(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err)
{
    (void)li;
    if (cannot_express(l, err) < 0)
        return -1;
    bl_cmd_add(c, o->launcher ? o->launcher : "srun");
    /* Open MPI's ranks find each other through PMIx; a cluster whose
     * MpiDefault is none (Slurm's default) would start them as singletons
     * that abort in MPI_Init. */
    bl_cmd_add(c, "--mpi=pmix");
    bl_cmd_add(c, "-n");
    bl_cmd_addf(c, "%d", l->np);
    if (l->nodes > 0) {
        bl_cmd_add(c, "-N");
        bl_cmd_addf(c, "%d", l->nodes);
    }
    bl_cmd_add(c, "-c");
    bl_cmd_addf(c, "%d", o->pus_per_rank > 0 ? o->pus_per_rank : o->threads);
    bl_cmd_addf(c, "--cpu-bind=verbose,%s", bind_of(l->bind));
    bl_cmd_addf(c, "--distribution=%s", distribution_of(&l->map));
    if (l->map.ppr)
        bl_cmd_addf(c, "--ntasks-per-%s=%d",
                    l->map.res == BL_RES_PACKAGE ? "socket"
                                                 : bl_res_name(l->map.res),
                    l->map.ppr);
    if (o->oversubscribe)
        bl_cmd_add(c, "--overcommit");
    export_omp(c, l, o);
    return 0;
}

const bl_launcher_ops bl_launcher_srun = {
    .name = "srun",
    .title = "Slurm",
    .family = "Slurm",
    .kind = BL_LAUNCHER_SLURM,
    .program = "srun",
    .record_as = "srun",
    .named_only = 1,
    .parse_version = parse_version,
    .translate = translate,
    .command = command,
    .hosts = BL_HOSTS_NONE,
    .makes_allocation = 1,
    .report_format = "slurm",
};
