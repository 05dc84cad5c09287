/* The words a launcher's entry writes: a command's argv, the words only a
 * plan carries (bl_cmd_plan_*), and the OpenMP variables every launcher
 * passes on. A leaf: the launcher files and the one builder call it, it
 * calls none of them. */
#include "launcher/launcher.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindreport/bindreport.h" /* BL_OMP_AFFINITY_FORMAT */
#include "grow.h"

void bl_cmd_add(bl_cmd *c, const char *word)
{
    bl_argv_add(&c->argv, word);
}

void bl_cmd_addf(bl_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bl_argv_addv(&c->argv, fmt, ap);
    va_end(ap);
}

/* Records the next argv word as the plan's: 0, or -1 in a run (the word
 * is left out) or out of memory. */
static int mark_planned(bl_cmd *c)
{
    if (!c->plan)
        return -1;
    if (bl_grow(&c->planned, sizeof *c->planned, c->nplanned + 1, &c->cap,
                8) < 0) {
        c->failed = 1;
        return -1;
    }
    c->planned[c->nplanned++] = c->argv.n;
    return 0;
}

void bl_cmd_plan_add(bl_cmd *c, const char *word)
{
    if (mark_planned(c) == 0)
        bl_argv_add(&c->argv, word);
}

void bl_cmd_plan_addf(bl_cmd *c, const char *fmt, ...)
{
    va_list ap;
    if (mark_planned(c) < 0)
        return;
    va_start(ap, fmt);
    bl_argv_addv(&c->argv, fmt, ap);
    va_end(ap);
}

void bl_cmd_plan_env(bl_cmd *c, const char *name, const char *value)
{
    if (c->plan)
        bl_argv_addf(&c->env, "%s=%s", name, value);
}

void bl_launcher_omp_env(const bl_layout *l, const bl_layout_argv_opts *o,
                         void (*put)(void *ctx, const char *name,
                                     const char *value),
                         void *ctx)
{
    char threads[16];
    snprintf(threads, sizeof threads, "%d", o->threads);
    put(ctx, "OMP_NUM_THREADS", threads);
    if (l->omp_places[0])
        put(ctx, "OMP_PLACES", l->omp_places);
    if (l->omp_proc_bind[0])
        put(ctx, "OMP_PROC_BIND", l->omp_proc_bind);
    put(ctx, "OMP_DISPLAY_AFFINITY", "true");
    /* A fixed format that bindreport reads: libgomp's default line names
     * no thread number. */
    put(ctx, "OMP_AFFINITY_FORMAT", BL_OMP_AFFINITY_FORMAT);
    for (char *const *e = o->rank_env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[128];
        if (!eq || (size_t)(eq - *e) >= sizeof name)
            continue; /* not NAME=VALUE: bl_layout_argv_opts says it is */
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        put(ctx, name, eq + 1);
    }
}
