/* One run of a sweep's app: (sweep_app_run.h): the launch and the probe's
 * record are bindlab run's (run/run.h); what is the sweep's own is the
 * filling of the templates and the rate. */
#include "sweep/sweep_app_run.h"

#include <errno.h>
#include <regex.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc/argv_build.h"
#include "proc/shellquote.h"
#include "results/results_file.h"
#include "sys_util.h"

/* The templates of app filled for the item into a->program, a->env. */
static int fill(const bl_app_spec *app, const bl_app_values *v,
                bl_sweep_app_run *a, bl_err *err)
{
    bl_argv_build prog = {0}, env = {0};
    char found[PATH_MAX];
    int rc = 0;
    for (int i = 0; rc == 0 && i < app->ncommand; i++) {
        char *w = bl_app_substitute(app->command[i], v, err);
        if (!w)
            rc = -1;
        else if (i == 0 &&
                 (bl_run_program_find(w, found, sizeof found, err) < 0 ||
                  bl_run_program_check(found, err) < 0))
            rc = -1;
        else
            bl_argv_add(&prog, i == 0 ? found : w);
        free(w);
    }
    for (int i = 0; rc == 0 && i < app->nenv; i++) {
        char *w = bl_app_substitute(app->env_values[i], v, err), *kv;
        if (!w || !(kv = malloc(strlen(app->env_names[i]) + strlen(w) + 2)))
            rc = w ? bl_err_set(err, "out of memory") : -1;
        else {
            sprintf(kv, "%s=%s", app->env_names[i], w);
            bl_argv_add(&env, kv);
            free(kv);
        }
        free(w);
    }
    if (rc == 0)
        a->program = bl_argv_take(&prog, err);
    if (rc == 0 && a->program && app->nenv)
        a->env = bl_argv_take(&env, err);
    if (rc == 0 && (!a->program || (app->nenv && !a->env)))
        rc = -1;
    bl_argv_free(prog.v);
    bl_argv_free(env.v);
    return rc;
}

int bl_sweep_app_command(const bl_sweep_ctx *c, const bl_sweep_item *it,
                         const char *hosts, bl_sweep_app_run *a,
                         bl_command *cmd, bl_err *err)
{
    bl_app_values v = {it->layout, it->check.threads, it->rep};
    bl_run_launch *rl = &a->rl;
    char dir[PATH_MAX];
    memset(a, 0, sizeof *a);
    /* absolute: a program that changes directory still finds it */
    if (!realpath(c->dir, dir))
        bl_textf(dir, sizeof dir, "%s", c->dir);
    bl_textf(a->probe_dir, sizeof a->probe_dir, "%s/%s.probe", dir,
             it->run_id);
    if (fill(c->sweep.app, &v, a, err) < 0 ||
        bl_run_probe_path(a->probe, sizeof a->probe, err) < 0)
        return -1;
    rl->li = &c->launcher;
    rl->layout = it->layout;
    rl->topo = c->topo;
    rl->argv.launcher = c->program;
    rl->argv.is_root = c->is_root;
    rl->argv.oversubscribe = c->o->oversubscribe;
    rl->argv.threads = it->check.threads;
    rl->argv.pus_per_rank = it->check.pus_per_rank;
    rl->argv.hosts = hosts;
    rl->argv.program = a->program;
    rl->argv.gpu_wrap = c->gpu_wrap;
    rl->argv.rank_env = a->env;
    rl->probe = a->probe;
    rl->probe_dir = a->probe_dir;
    return bl_run_command(rl, cmd, err);
}

int bl_sweep_app_probe_dir(const bl_sweep_app_run *a, int dirfd,
                           bl_err *err)
{
    const char *name = strrchr(a->probe_dir, '/');
    bl_run_probe_dir_remove(a->probe_dir); /* an interrupted run's */
    if (mkdirat(dirfd, name ? name + 1 : a->probe_dir, 0777) < 0 &&
        errno != EEXIST)
        return bl_err_set(err, "%s: cannot make the probe's directory: %s",
                          a->probe_dir, strerror(errno));
    return 0;
}

/* The first group of re's first match in text, as a number: 1, 0 when
 * it does not match, -1 when the group is not a number (msg says). */
static int match_rate(const regex_t *re, const char *text, double *value,
                      char *msg, size_t len)
{
    regmatch_t m[2];
    char num[64], *end;
    int n;
    if (!text || regexec(re, text, 2, m, 0) != 0 || m[1].rm_so < 0)
        return 0;
    n = (int)(m[1].rm_eo - m[1].rm_so);
    snprintf(num, sizeof num, "%.*s", n, text + m[1].rm_so);
    *value = strtod(num, &end);
    if (end == num || *end) {
        snprintf(msg, len, "rate: '%.*s' (matched by the regex's group) is "
                 "not a number", n, text + m[1].rm_so);
        return -1;
    }
    return 1;
}

/* The rate of an ok run: the regex's first group in stdout, then stderr;
 * without a regex, runs per second of the job's wall time. A rate that
 * cannot be read fails the run with the reason. */
static void app_rate(const bl_app_spec *app, const bl_launch_result *res,
                     bl_run_outcome *out)
{
    bl_h5_result *r = &out->run.result;
    char msg[1200] = "";
    double v = 0.0;
    int found = 0;
    regex_t re;
    if (!app->rate_regex) {
        found = res->wall_s > 0;
        v = found ? 1.0 / res->wall_s : 0.0;
    } else if (regcomp(&re, app->rate_regex, REG_EXTENDED | REG_NEWLINE) ==
               0) {
        char *outs = bl_launch_output_text(&res->out);
        char *errs = bl_launch_output_text(&res->errs);
        found = match_rate(&re, outs, &v, msg, sizeof msg);
        if (found == 0)
            found = match_rate(&re, errs, &v, msg, sizeof msg);
        if (found == 0)
            snprintf(msg, sizeof msg, "rate: no match for %s in the output",
                     app->rate_regex);
        free(outs);
        free(errs);
        regfree(&re);
    }
    if (found == 1 && !app->higher_is_better && v > 0) {
        v = 1.0 / v; /* the report ranks the highest first */
        snprintf(msg, sizeof msg, "1/%s", app->rate_unit);
    }
    if (found == 1) {
        r->rate = v;
        r->rate_unit = strdup(msg[0] ? msg : app->rate_unit);
        r->verified = 1;
        return;
    }
    free(out->h.status);
    free(out->h.reason);
    out->h.status = strdup("failed");
    out->h.reason = strdup(msg[0] ? msg : "rate: the job took no time");
}

int bl_sweep_app_record(const bl_sweep_ctx *c, bl_sweep_app_run *a,
                        const char *record, const bl_launch_result *res,
                        const bl_launch_opts *lo, bl_h5_harness *h,
                        double *rate, char *unit, size_t unit_len,
                        bl_err *err)
{
    bl_run_outcome out;
    bl_h5_machine m;
    int rc;
    memset(&out, 0, sizeof out);
    out.h = *h; /* the sweep's description of the layout */
    free(out.h.kernel_args); /* the program's argv, as filled */
    out.h.kernel_args = bl_shell_join(a->program);
    bl_run_collect(&a->rl, res, lo, &out, &m);
    out.run.kernel = strdup(out.h.kernel);
    out.run.args = strdup(out.h.kernel_args ? out.h.kernel_args : "");
    out.run.threads = a->rl.argv.threads;
    out.run.result.local_page_fraction = -1.0;
    if (strcmp(out.h.status, "ok") == 0)
        app_rate(c->sweep.app, res, &out);
    free(out.run.status);
    out.run.status = strdup(out.h.status);
    if (strcmp(out.h.status, "ok") == 0) {
        *rate = out.run.result.rate;
        bl_textf(unit, unit_len, "%s", out.run.result.rate_unit);
    }
    rc = bl_h5_write_sweep_run(c->dirfd, record, c->sweep.file, &m, 1,
                               &out.run,
                               &out.h, err);
    if (rc == 0)
        bl_run_probe_dir_remove(a->probe_dir);
    bl_h5_machine_free(&m);
    *h = out.h;
    memset(&out.h, 0, sizeof out.h);
    bl_run_outcome_free(&out);
    return rc;
}

void bl_sweep_app_run_free(bl_sweep_app_run *a)
{
    bl_argv_free(a->program);
    bl_argv_free(a->env);
    a->program = a->env = NULL;
}
