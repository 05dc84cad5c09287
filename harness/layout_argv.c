/* Command lines for one layout: argv arrays for mpirun and srun, never a
 * shell string, so nothing in a sweep file is ever interpreted by a shell. */
#include "bindreport.h"
#include "layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct argv_b {
    char **v;
    int n, cap;
    int failed;
} argv_b;

static void add(argv_b *b, const char *s)
{
    char *copy;
    if (b->failed)
        return;
    if (b->n + 2 > b->cap) {
        int cap = b->cap ? 2 * b->cap : 32;
        char **v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            b->failed = 1;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    if (!(copy = strdup(s))) {
        b->failed = 1;
        return;
    }
    b->v[b->n++] = copy;
    b->v[b->n] = NULL;
}

static void addf(argv_b *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void addf(argv_b *b, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int len;
    va_start(ap, fmt);
    len = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof buf)
        b->failed = 1;
    else
        add(b, buf);
}

void bl_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

static char **done(argv_b *b, bl_err *err)
{
    if (b->failed || !b->v) {
        bl_argv_free(b->v);
        bl_err_set(err, "out of memory (or an argument over 511 "
                        "characters) building the command line");
        return NULL;
    }
    return b->v;
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

static void app_args(argv_b *b, const bl_layout *l, const bl_kernel_spec *k,
                     const bl_layout_argv_opts *o)
{
    add(b, o->app);
    add(b, "--kernel");
    add(b, k->name);
    for (int i = 0; i < k->nargs; i++)
        add(b, k->args[i]);
    add(b, "--init");
    add(b, l->serial_init ? "serial" : "parallel");
    add(b, "--out");
    add(b, o->out_file);
}

char **bl_layout_mpirun_argv(const bl_layout *l, const bl_kernel_spec *k,
                             const bl_layout_argv_opts *o, bl_err *err)
{
    argv_b b = {0};
    if (check_opts(l, o, err) < 0)
        return NULL;
    add(&b, o->launcher ? o->launcher : "mpirun");
    if (o->is_root)
        add(&b, "--allow-run-as-root");
    add(&b, "-np");
    addf(&b, "%d", l->np);
    add(&b, "--map-by");
    add(&b, l->map_by_launcher);
    add(&b, "--bind-to");
    /* With --oversubscribe Open MPI still refuses to bind two ranks to one
     * core unless the binding allows overload. */
    if ((o->oversubscribe || l->map.oversubscribe) && l->bind != BL_RES_NONE)
        addf(&b, "%s:overload-allowed", l->bind_to_launcher);
    else
        add(&b, l->bind_to_launcher);
    if (l->rank_by_launcher[0]) {
        add(&b, "--rank-by");
        add(&b, l->rank_by_launcher);
    }
    if (o->oversubscribe)
        add(&b, "--oversubscribe");
    add(&b, "--report-bindings");
    add(&b, "-x");
    addf(&b, "OMP_NUM_THREADS=%d", o->threads);
    if (l->omp_places[0]) {
        add(&b, "-x");
        addf(&b, "OMP_PLACES=%s", l->omp_places);
    }
    if (l->omp_proc_bind[0]) {
        add(&b, "-x");
        addf(&b, "OMP_PROC_BIND=%s", l->omp_proc_bind);
    }
    add(&b, "-x");
    add(&b, "OMP_DISPLAY_AFFINITY=true");
    /* A fixed format that bindreport reads: libgomp's default line names
     * no thread number. */
    add(&b, "-x");
    add(&b, "OMP_AFFINITY_FORMAT=" BL_OMP_AFFINITY_FORMAT);
    app_args(&b, l, k, o);
    return done(&b, err);
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
    argv_b b = {0};
    char env[512];
    int len;

    if (check_opts(l, o, err) < 0 || srun_check(l, err) < 0)
        return NULL;
    add(&b, o->launcher ? o->launcher : "srun");
    /* Open MPI's ranks find each other through PMIx; a cluster whose
     * MpiDefault is none (Slurm's default) would start them as singletons
     * that abort in MPI_Init. */
    add(&b, "--mpi=pmix");
    add(&b, "-n");
    addf(&b, "%d", l->np);
    add(&b, "-c");
    addf(&b, "%d", o->pus_per_rank > 0 ? o->pus_per_rank : o->threads);
    addf(&b, "--cpu-bind=verbose,%s", srun_bind(l->bind));
    addf(&b, "--distribution=%s", srun_distribution(&l->map));
    if (l->map.ppr)
        addf(&b, "--ntasks-per-%s=%d",
             l->map.res == BL_RES_PACKAGE ? "socket" : bl_res_name(l->map.res),
             l->map.ppr);
    if (o->oversubscribe)
        add(&b, "--overcommit");
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
    add(&b, env);
    app_args(&b, l, k, o);
    return done(&b, err);
}

void bl_kernel_spec_clear(bl_kernel_spec *k)
{
    for (int i = 0; i < k->nargs; i++)
        free(k->args[i]);
    memset(k, 0, sizeof *k);
}
