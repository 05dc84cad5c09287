/* bindlab plan: the launcher whose mapper answers, and a sweep file's
 * layouts planned (each distinct placement once). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"

/* --- the launcher whose mapper answers --------------------------------- */

/* --launcher (else the sweep file's launcher:, else mpirun in PATH) and
 * --mpirun, found and asked for its version once. Returns -1 to go on, or
 * an exit status: 2 when a launcher named is missing, unknown or of
 * another family, 1 when the default mpirun cannot be run. */
int bl_plan_cli_choose_launcher(bl_plan_cli *o, const bl_sweep *s)
{
    char where[600];
    const char *value = o->launcher;
    bl_launcher_want w;
    bl_err err;

    snprintf(where, sizeof where, "--launcher");
    if (!value && s && s->launcher[0]) {
        value = s->launcher;
        snprintf(where, sizeof where, "%s:%d:%d: launcher", s->file,
                 s->launcher_line, s->launcher_col);
    }
    if (bl_launcher_choose(value, where, o->mpirun, o->program,
                           sizeof o->program, &w, &o->li, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return value || o->mpirun ? BL_EXIT_USAGE : BL_EXIT_FAILED;
    }
    o->have_launcher = 1;
    return -1;
}

/* --- sweep files ------------------------------------------------------ */

/* The fields that decide a placement (GPUs dealt included), as one key. */
static void placement_key(const bl_layout *l, char *buf, size_t len)
{
    snprintf(buf, len, "%d|%s|%s|%s|%s|%s|%d|%d|%s|%d", l->np, l->map_by,
             l->bind_to, l->rank_by, l->omp_places, l->omp_proc_bind,
             l->threads, l->nodes, bl_layout_gpu_bind(l),
             bl_layout_gpus_per_rank(l));
}


/* Each distinct rank layout of the sweep planned once, several at a time
 * (up to the cores this process may use): the layouts then differ only in
 * their threads, which are modelled here. When this fails, every layout
 * plans its own ranks as before (same output, slower). */
static void prefetch_ranks(bl_plan_cli *o, hwloc_topology_t topo,
                           const bl_sweep *s, bl_plan_ranks_cache *cache)
{
    bl_plan_request *reqs = calloc((size_t)s->nlayouts + 1, sizeof *reqs);
    char preload[PATH_MAX];
    bl_err err;
    size_t n = 0;
    memset(cache, 0, sizeof *cache);
    if (reqs && bl_plan_ranks_preload_path(preload, sizeof preload, &err) == 0) {
        /* the cache holds plans of one node; several nodes plan alone */
        for (int i = 0; i < s->nlayouts; i++) {
            reqs[n] = bl_plan_cli_request_of(o, &s->layouts[i]);
            if (reqs[n].nodes <= 1)
                n++;
        }
        if (bl_plan_ranks_cache_fill(cache, reqs, n, topo,
                                     preload, bl_plan_jobs(), &err) == 0)
            o->rank_cache = cache;
        else
            bl_plan_ranks_cache_free(cache);
    }
    free(reqs);
}

int bl_plan_cli_sweep(bl_plan_cli *o, hwloc_topology_t topo)
{
    bl_sweep s;
    bl_plan_ranks_cache cache;
    bl_err err;
    int rc = BL_EXIT_OK, shown = 0;
    char (*keys)[512];

    if (bl_sweep_file_load(o->sweep, &s, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    if ((rc = bl_plan_cli_choose_launcher(o, &s)) >= 0) {
        bl_sweep_free(&s);
        return rc;
    }
    rc = BL_EXIT_OK;
    if (!(keys = calloc(s.nlayouts ? (size_t)s.nlayouts : 1, sizeof *keys))) {
        bl_sweep_free(&s);
        fprintf(stderr, "bindlab plan: out of memory\n");
        return BL_EXIT_FAILED;
    }
    for (int i = 0; i < s.nlayouts; i++)
        o->node_column |= bl_plan_cli_nodes_of(o, &s.layouts[i]) > 1;
    prefetch_ranks(o, topo, &s, &cache);
    for (int i = 0; i < s.nlayouts; i++) {
        const bl_layout *l = &s.layouts[i];
        int same = -1;
        placement_key(l, keys[i], sizeof keys[i]);
        for (int j = 0; j < i && same < 0; j++)
            if (strcmp(keys[i], keys[j]) == 0)
                same = j;
        if (same >= 0) {
            if (!o->tsv)
                printf("\n== %s: same placement as %s\n", l->run_id,
                       s.layouts[same].run_id);
            continue;
        }
        rc = bl_plan_cli_worst(rc, bl_plan_cli_show_layout(o, topo, l,
                                                           l->run_id,
                                                           shown == 0));
        shown++;
    }
    o->rank_cache = NULL;
    bl_plan_ranks_cache_free(&cache);
    free(keys);
    bl_sweep_free(&s);
    return rc;
}
