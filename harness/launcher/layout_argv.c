/* Command lines for one layout: argv arrays for mpirun and srun, never a
 * shell string, so nothing in a sweep file is ever interpreted by a shell. */
#include "launcher/argv_build.h"
#include "bindreport/bindreport.h"
#include "layout/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bl_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

static int check_opts(const bl_layout *l, const bl_layout_argv_opts *o,
                      bl_err *err)
{
    if (!o->app || !o->out_file)
        return bl_err_set(err, "launch options: the app path and the out "
                               "file are both needed");
    if (o->threads < 1)
        return bl_err_set(err, "launch options: threads %d; take it from "
                               "bl_layout_validate (1 or more)", o->threads);
    if (!l->map_by_launcher[0] || !l->bind_to_launcher[0])
        return bl_err_set(err, "layout %s: not translated for the launcher "
                               "(call bl_layout_translate first)", l->run_id);
    return 0;
}

static void app_args(bl_argv_build *b, const bl_layout *l,
                     const bl_kernel_spec *k, const bl_layout_argv_opts *o)
{
    bl_argv_add(b, o->app);
    bl_argv_add(b, "--kernel");
    bl_argv_add(b, k->name);
    for (int i = 0; i < k->nargs; i++)
        bl_argv_add(b, k->args[i]);
    bl_argv_add(b, "--init");
    bl_argv_add(b, l->serial_init ? "serial" : "parallel");
    if (l->mem_policy[0]) {
        bl_argv_add(b, "--mem-policy");
        bl_argv_add(b, l->mem_policy);
    }
    bl_argv_add(b, "--out");
    bl_argv_add(b, o->out_file);
}

char **bl_layout_mpirun_argv(const bl_layout *l, const bl_kernel_spec *k,
                             const bl_layout_argv_opts *o, bl_err *err)
{
    bl_argv_build b = {0};
    if (check_opts(l, o, err) < 0)
        return NULL;
    bl_argv_add(&b, o->launcher ? o->launcher : "mpirun");
    if (o->is_root)
        bl_argv_add(&b, "--allow-run-as-root");
    bl_argv_add(&b, "-np");
    bl_argv_addf(&b, "%d", l->np);
    if (o->hosts) {
        bl_argv_add(&b, "--host");
        bl_argv_add(&b, o->hosts);
    }
    bl_argv_add(&b, "--map-by");
    bl_argv_add(&b, l->map_by_launcher);
    bl_argv_add(&b, "--bind-to");
    /* With --oversubscribe Open MPI still refuses to bind two ranks to one
     * core unless the binding allows overload. */
    if ((o->oversubscribe || l->map.oversubscribe) && l->bind != BL_RES_NONE)
        bl_argv_addf(&b, "%s:overload-allowed", l->bind_to_launcher);
    else
        bl_argv_add(&b, l->bind_to_launcher);
    if (l->rank_by_launcher[0]) {
        bl_argv_add(&b, "--rank-by");
        bl_argv_add(&b, l->rank_by_launcher);
    }
    if (o->oversubscribe)
        bl_argv_add(&b, "--oversubscribe");
    bl_argv_add(&b, "--report-bindings");
    bl_argv_add(&b, "-x");
    bl_argv_addf(&b, "OMP_NUM_THREADS=%d", o->threads);
    if (l->omp_places[0]) {
        bl_argv_add(&b, "-x");
        bl_argv_addf(&b, "OMP_PLACES=%s", l->omp_places);
    }
    if (l->omp_proc_bind[0]) {
        bl_argv_add(&b, "-x");
        bl_argv_addf(&b, "OMP_PROC_BIND=%s", l->omp_proc_bind);
    }
    bl_argv_add(&b, "-x");
    bl_argv_add(&b, "OMP_DISPLAY_AFFINITY=true");
    /* A fixed format that bindreport reads: libgomp's default line names
     * no thread number. */
    bl_argv_add(&b, "-x");
    bl_argv_add(&b, "OMP_AFFINITY_FORMAT=" BL_OMP_AFFINITY_FORMAT);
    app_args(&b, l, k, o);
    return bl_argv_take(&b, err);
}

static const char *srun_bind(bl_res r)
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
static const char *srun_distribution(const bl_mapby *m)
{
    if (m->res == BL_RES_NODE && !m->ppr)
        return "cyclic:block";
    if (!m->ppr && (m->res == BL_RES_PACKAGE || m->res == BL_RES_NUMA))
        return "block:cyclic";
    return "block:block";
}

/* What srun cannot express is an error, never a silent approximation. */
static int srun_check(const bl_layout *l, bl_err *err)
{
    if (!srun_bind(l->bind))
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

char **bl_layout_srun_argv(const bl_layout *l, const bl_kernel_spec *k,
                           const bl_layout_argv_opts *o, bl_err *err)
{
    bl_argv_build b = {0};
    char env[512];
    int len;

    if (check_opts(l, o, err) < 0 || srun_check(l, err) < 0)
        return NULL;
    bl_argv_add(&b, o->launcher ? o->launcher : "srun");
    /* Open MPI's ranks find each other through PMIx; a cluster whose
     * MpiDefault is none (Slurm's default) would start them as singletons
     * that abort in MPI_Init. */
    bl_argv_add(&b, "--mpi=pmix");
    bl_argv_add(&b, "-n");
    bl_argv_addf(&b, "%d", l->np);
    if (l->nodes > 0) {
        bl_argv_add(&b, "-N");
        bl_argv_addf(&b, "%d", l->nodes);
    }
    bl_argv_add(&b, "-c");
    bl_argv_addf(&b, "%d", o->pus_per_rank > 0 ? o->pus_per_rank : o->threads);
    bl_argv_addf(&b, "--cpu-bind=verbose,%s", srun_bind(l->bind));
    bl_argv_addf(&b, "--distribution=%s", srun_distribution(&l->map));
    if (l->map.ppr)
        bl_argv_addf(&b, "--ntasks-per-%s=%d",
             l->map.res == BL_RES_PACKAGE ? "socket" : bl_res_name(l->map.res),
             l->map.ppr);
    if (o->oversubscribe)
        bl_argv_add(&b, "--overcommit");
    len = snprintf(env, sizeof env, "--export=ALL,OMP_NUM_THREADS=%d",
                   o->threads);
    if (l->omp_places[0])
        len += snprintf(env + len, sizeof env - (size_t)len,
                        ",OMP_PLACES=%s", l->omp_places);
    if (l->omp_proc_bind[0])
        len += snprintf(env + len, sizeof env - (size_t)len,
                        ",OMP_PROC_BIND=%s", l->omp_proc_bind);
    snprintf(env + len, sizeof env - (size_t)len,
             ",OMP_DISPLAY_AFFINITY=true,OMP_AFFINITY_FORMAT=%s",
             BL_OMP_AFFINITY_FORMAT);
    bl_argv_add(&b, env);
    app_args(&b, l, k, o);
    return bl_argv_take(&b, err);
}

void bl_kernel_spec_clear(bl_kernel_spec *k)
{
    for (int i = 0; i < k->nargs; i++)
        free(k->args[i]);
    memset(k, 0, sizeof *k);
}
