/* The one command builder of launcher.h: a launcher's own words (its
 * table entry), then the ranks' program, for a run (bindlab-app) or a
 * plan (/bin/true, with the plan's environment). Argv arrays only: nothing
 * in a sweep file is ever read by a shell. */
#include "launcher/launcher.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindreport/bindreport.h"
#include "grow.h"

static int check_opts(const bl_layout *l, const bl_layout_argv_opts *o,
                      const bl_plan_mode *plan, bl_err *err)
{
    if (!plan && !o->program && (!o->app || !o->out_file))
        return bl_err_set(err, "launch options: the app path and the out "
                               "file are both needed");
    if (plan && !plan->program)
        return bl_err_set(err, "plan mode: the ranks' program is needed");
    if (o->threads < 1)
        return bl_err_set(err, "launch options: threads %d; take it from "
                               "bl_layout_validate (1 or more)", o->threads);
    if (!l->map_by_launcher[0] || !l->bind_to_launcher[0])
        return bl_err_set(err, "layout %s: not translated for the launcher "
                               "(call bl_layout_translate or "
                               "bl_launcher_translate first)", l->run_id);
    return 0;
}

static void app_args(bl_cmd *c, const bl_layout *l, const bl_kernel_spec *k,
                     const bl_layout_argv_opts *o)
{
    /* the rank's wrapper sets its visible GPUs, then execs the program */
    if (bl_layout_gpu_bind(l)[0]) {
        bl_cmd_add(c, o->gpu_wrap ? o->gpu_wrap : "bindlab-gpu-wrap");
        bl_cmd_add(c, "--gpu-bind");
        bl_cmd_add(c, bl_layout_gpu_bind(l));
        bl_cmd_add(c, "--gpus-per-rank");
        bl_cmd_addf(c, "%d", bl_layout_gpus_per_rank(l));
        bl_cmd_add(c, "--");
    }
    if (o->program) {
        for (char *const *w = o->program; *w; w++)
            bl_cmd_add(c, *w);
        return;
    }
    bl_cmd_add(c, o->app);
    bl_cmd_add(c, "--kernel");
    bl_cmd_add(c, k->name);
    for (int i = 0; i < k->nargs; i++)
        bl_cmd_add(c, k->args[i]);
    bl_cmd_add(c, "--init");
    bl_cmd_add(c, l->serial_init ? "serial" : "parallel");
    if (l->mem_policy[0]) {
        bl_cmd_add(c, "--mem-policy");
        bl_cmd_add(c, l->mem_policy);
    }
    bl_cmd_add(c, "--out");
    bl_cmd_add(c, o->out_file);
}

/* The node the plan is for, and the library that records bindings. */
static void plan_env(bl_cmd *c, const bl_plan_mode *p)
{
    if (!p->xml)
        return;
    bl_cmd_plan_env(c, "HWLOC_XMLFILE", p->xml);
    bl_cmd_plan_env(c, "HWLOC_THISSYSTEM", "1");
    if (p->preload) {
        bl_cmd_plan_env(c, "LD_PRELOAD", p->preload);
        bl_cmd_plan_env(c, "BINDLAB_PRELOAD_CPUS",
                        p->preload_cpus ? p->preload_cpus : "");
    }
}

void bl_command_free(bl_command *c)
{
    bl_argv_free(c->argv);
    bl_argv_free(c->env);
    free(c->planned);
    memset(c, 0, sizeof *c);
}

int bl_launcher_command(const bl_launcher_info *li, const bl_layout *l,
                        const bl_kernel_spec *k, const bl_layout_argv_opts *o,
                        const bl_plan_mode *plan, bl_command *out,
                        bl_err *err)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(li);
    bl_cmd c = {.plan = plan};
    int rc;

    memset(out, 0, sizeof *out);
    if (!ops)
        return bl_err_set(err, "%s %s: bindlab has no command line for this "
                          "launcher", bl_launcher_kind_name(li->kind),
                          li->version);
    if (check_opts(l, o, plan, err) < 0)
        return -1;
    rc = ops->command(&c, l, li, o, err);
    c.app_at = c.argv.n;
    if (rc == 0 && plan) {
        bl_cmd_add(&c, plan->program);
        plan_env(&c, plan);
    } else if (rc == 0) {
        app_args(&c, l, k, o);
    }
    if (rc == 0 && !c.failed && (out->argv = bl_argv_take(&c.argv, err))) {
        out->app_at = c.app_at;
        out->planned = c.planned;
        out->nplanned = c.nplanned;
        c.planned = NULL;
        if (c.env.n && !(out->env = bl_argv_take(&c.env, err)))
            rc = -1;
    } else if (rc == 0) {
        rc = bl_err_set(err, "out of memory (or an argument over %d "
                        "characters) building the command line",
                        BL_ARGV_WORD_MAX);
    }
    bl_argv_free(bl_argv_take(&c.argv, NULL));
    bl_argv_free(bl_argv_take(&c.env, NULL));
    free(c.planned);
    if (rc < 0)
        bl_command_free(out);
    return rc;
}

int bl_launcher_translate(bl_layout *l, const bl_launcher_info *li,
                          hwloc_topology_t topo, bl_err *err)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(li);
    l->rank_by_launcher[0] = '\0';
    l->ppn_launcher = 0;
    if (!ops)
        return bl_err_set(err, "%s %s: bindlab cannot spell layouts for "
                          "this launcher", bl_launcher_kind_name(li->kind),
                          li->version);
    return ops->translate(l, li, topo, err);
}
