/* bindlab run: one launch under the probe, from the layout to the record
 * (run.h). The command is the sweep's builder's; the judgement and the
 * cross-check are the sweep's pieces (bindreport/crosscheck.h). */
#include "run/run.h"

#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "allowed.h"
#include "bindreport/bindreport.h"
#include "bindreport/crosscheck.h"
#include "launcher/launcher.h"
#include "launcher/launcher_choice.h"
#include "layout/layout_allowed.h"
#include "proc/launch.h"
#include "proc/launch_env.h"
#include "proc/shellquote.h"
#include "results/results_file.h"
#include "topo.h"

/* The launcher chosen, the layout spelled for it and checked here. */
typedef struct run_setup {
    hwloc_topology_t topo;
    hwloc_topology_t job_topo;  /* topo cut to the allowed CPUs, or NULL */
    bl_launcher_info li;
    char program[PATH_MAX];
    bl_layout l;
    bl_layout_check chk;
} run_setup;

/* More threads than a rank's PUs is the program's choice here (the
 * flags say what came of it), not a layout refused as in a sweep; more
 * ranks than the CPUs this job may use is refused, as in a sweep. */
static int setup(const bl_run_opts *o, run_setup *s, bl_err *err)
{
    bl_launcher_want want;
    bl_layout ranks_only;
    char job_cpus[512];
    s->l = o->layout;
    if (bl_topo_load(NULL, &s->topo, err) < 0 ||
        bl_layout_job_load(s->topo, &s->job_topo, job_cpus, sizeof job_cpus,
                           err) < 0)
        return -1;
    if (bl_launcher_choose(o->launcher, "--launcher", o->mpirun, s->program,
                           sizeof s->program, &want, &s->li, err) < 0 ||
        bl_launcher_translate(&s->l, &s->li, s->topo, err) < 0)
        return -1;
    ranks_only = s->l;
    if (ranks_only.threads != BL_THREADS_FILL)
        ranks_only.threads = 1;
    if (bl_layout_validate_job(&ranks_only, s->topo, s->job_topo, job_cpus,
                               0, &s->chk, err) < 0)
        return -1;
    if (s->l.threads != BL_THREADS_FILL)
        s->chk.threads = s->l.threads;
    return 0;
}

/* OUT without ".h5", then suffix: the log and the probe's directory. */
static void beside(const char *out, const char *suffix, char *buf,
                   size_t len)
{
    size_t n = strlen(out);
    if (n > 3 && strcmp(out + n - 3, ".h5") == 0)
        n -= 3;
    bl_textf(buf, len, "%.*s%s", (int)n, out, suffix);
}

/* The probe files are in the record once it is written. */
void bl_run_probe_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_MAX];
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "bindlab-probe.", 14) == 0 &&
            bl_textf(path, sizeof path, "%s/%s", dir, e->d_name) == 0)
            unlink(path);
    if (d)
        closedir(d);
    rmdir(dir);
}

int bl_run_probe_dir_used(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int used = 0;
    while (d && !used && (e = readdir(d)))
        used = strncmp(e->d_name, "bindlab-probe.", 14) == 0;
    if (d)
        closedir(d);
    return used;
}

int bl_run_command(const bl_run_launch *rl, bl_command *cmd, bl_err *err)
{
    char preload[PATH_MAX + 16], dir[PATH_MAX + 32], period[48];
    char **env = NULL;
    size_t n = 0, k = 3;
    bl_layout_argv_opts ao = rl->argv;
    int rc;
    while (rl->argv.rank_env && rl->argv.rank_env[n])
        n++;
    if (!(env = calloc(n + 4, sizeof *env)))
        return bl_err_set(err, "out of memory");
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", rl->probe);
    snprintf(dir, sizeof dir, "BINDLAB_PROBE_DIR=%s", rl->probe_dir);
    env[0] = preload;
    env[1] = dir;
    if (rl->period_ms > 0) {
        snprintf(period, sizeof period, "BINDLAB_PROBE_PERIOD_MS=%d",
                 rl->period_ms);
        env[2] = period;
    } else {
        k = 2;
    }
    for (size_t i = 0; i < n; i++)
        env[k + i] = rl->argv.rank_env[i];
    ao.rank_env = env;
    rc = bl_launcher_command(rl->li, rl->layout, NULL, &ao, NULL, cmd, err);
    free(env);
    return rc;
}

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* ok / failed / timeout, with the reason of anything but ok; a launch
 * bindlab ended for a signal it was sent failed, the reason naming it. */
static void judge(const bl_launch_result *res, const bl_launch_opts *lo,
                  int sig, bl_h5_harness *h)
{
    char how[256], cause[300], msg[600];
    bl_h5_harness_launched(h, res, lo, how, sizeof how);
    h->attempts = 1;
    h->status = strdup(res->timed_out && !sig ? "timeout"
                       : res->exited && res->exit_status == 0 && !sig
                           ? "ok"
                           : "failed");
    if (sig)
        snprintf(msg, sizeof msg, "interrupted by %s (the launcher %s)",
                 signal_name(sig),
                 res->killed ? "killed with SIGKILL after the grace period"
                             : "ended by SIGTERM");
    else if (strcmp(h->status, "failed") == 0 &&
             bl_launch_env_blocked(cause, sizeof cause))
        snprintf(msg, sizeof msg, "%s; %s", cause, how);
    else
        snprintf(msg, sizeof msg, "%s", strcmp(h->status, "ok") ? how : "");
    h->reason = strdup(msg);
}

/* The record's description of the layout and the program. */
static void describe(const bl_run_opts *o, const run_setup *s,
                     bl_run_outcome *out)
{
    bl_h5_harness *h = &out->h;
    const bl_launcher_ops *ops = bl_launcher_ops_of(&s->li);
    char *joined = bl_shell_join(o->program), v[96], base[PATH_MAX];
    bl_textf(base, sizeof base, "%s", o->program[0]);
    h->run_id = strdup("run");
    h->label = strdup(joined ? joined : "");
    h->name = strdup("");
    h->repetition = 1;
    h->np = s->l.np;
    h->threads = s->chk.threads;
    h->kernel = strdup(basename(base));
    h->kernel_args = joined;
    h->map_by = strdup(s->l.map_by);
    h->map_by_launcher = strdup(s->l.map_by_launcher);
    h->bind_to = strdup(s->l.bind_to);
    h->bind_to_launcher = strdup(s->l.bind_to_launcher);
    h->rank_by = strdup(s->l.rank_by);
    h->omp_places = strdup(s->l.omp_places);
    h->omp_proc_bind = strdup(s->l.omp_proc_bind);
    h->init = strdup("");
    h->mem_policy = strdup("");
    h->launcher = strdup(ops ? ops->record_as : "mpirun");
    snprintf(v, sizeof v, "%s %s", bl_launcher_kind_name(s->li.kind),
             s->li.version);
    h->launcher_version = strdup(v);
    h->repetition_order = strdup("");
    h->noisy = strdup("none");
    h->log = strdup(out->log);
    out->run.kernel = strdup(h->kernel);
    out->run.args = strdup(h->kernel_args ? h->kernel_args : "");
    out->run.threads = s->chk.threads;
    out->run.result.local_page_fraction = -1.0;
}

/* The OpenMP variables the ranks were given (the cross-check reads
 * OMP_PROC_BIND there). */
static void omp_env(const bl_run_launch *rl, bl_h5_run *r)
{
    char threads[16];
    const char *names[] = {"OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND"};
    const char *values[] = {threads, rl->layout->omp_places,
                            rl->layout->omp_proc_bind};
    snprintf(threads, sizeof threads, "%d", rl->argv.threads);
    r->env = calloc(3, sizeof *r->env);
    for (int i = 0; r->env && i < 3; i++)
        if (values[i][0]) {
            r->env[r->nenv].name = strdup(names[i]);
            r->env[r->nenv++].value = strdup(values[i]);
        }
}

/* The main thread's set when MPI_Init returned (at the probe's start
 * without MPI), or NULL: what an Open MPI or Intel MPI report line printed
 * by the rank from inside MPI_Init saw. Its last set may be a program's
 * own pinning after init (GROMACS's -pin on), which no report can know. */
static const char *set_at_init(const bl_h5_run *r, int rank)
{
    for (size_t i = 0; i < r->nprocesses; i++) {
        const bl_h5_process *p = &r->processes[i];
        if (p->rank != rank)
            continue;
        if (p->cpus_init && p->cpus_init[0] && strcmp(p->cpus_init, "-"))
            return p->cpus_init;
        if (p->cpus_start && p->cpus_start[0] && strcmp(p->cpus_start, "-"))
            return p->cpus_start;
    }
    return NULL;
}

/* The launcher's report against the ranks' given sets (the sweep's
 * cross-check, on the compute threads, each main thread with its set at
 * MPI_Init), then the probe's own flags. */
static void cross_check(const bl_run_launch *rl, const bl_launch_result *res,
                        int numa_balancing, bl_run_outcome *out)
{
    char flags[512], *errs = bl_launch_output_text(&res->errs);
    char *outs = bl_launch_output_text(&res->out), *text;
    bl_report_topos t = {rl->topo, 0, NULL, NULL};
    bl_binding_report rep = {0};
    bl_h5_run view = out->run;
    bl_err e;
    size_t n = 0;
    text = malloc((errs ? strlen(errs) : 0) + (outs ? strlen(outs) : 0) + 2);
    if (text) {
        sprintf(text, "%s\n%s", errs ? errs : "", outs ? outs : "");
        bl_bindreport_parse_nodes(text, BL_REPORT_AUTO, &t, &rep, &e);
    }
    view.placement = calloc(out->run.nplacement + 1, sizeof *view.placement);
    /* pu-shared counts compute threads seen on one PU only: a thread
     * seen on several has no one PU (migrated says it moved) */
    for (size_t i = 0; view.placement && i < out->run.nplacement; i++)
        if (bl_run_busy_thread(&out->run, i)) {
            bl_h5_placement *p = &view.placement[n++];
            *p = out->run.placement[i];
            if (p->cpu_first != p->cpu_last)
                p->cpu_last = -1;
            if (p->thread == 0 && set_at_init(&out->run, p->rank))
                p->cpuset = (char *)set_at_init(&out->run, p->rank);
        }
    view.nplacement = n;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    bl_crosscheck_allowed allowed = {host, out->h.allowed_cpus};
    bl_crosscheck(&rep, view.placement ? &view : &out->run, numa_balancing,
                  &allowed, &out->h.checks, &out->h.nchecks, flags, sizeof flags);
    bl_run_flags(&out->run, flags, sizeof flags, out);
    out->h.flags = strdup(flags);
    out->h.binding_report = errs ? errs : strdup("");
    free(view.placement);
    free(outs);
    free(text);
    bl_bindreport_free(&rep);
}

/* This machine's record: the topology the rows were named with. */
static void describe_machine(hwloc_topology_t topo, bl_h5_machine *m)
{
    char host[256] = "";
    FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");
    memset(m, 0, sizeof *m);
    gethostname(host, sizeof host - 1);
    m->hostname = strdup(host);
    bl_h5_machine_topology(m, topo);
    m->numa_balancing = -1;
    if (f && fscanf(f, "%d", &m->numa_balancing) != 1)
        m->numa_balancing = -1;
    if (f)
        fclose(f);
}

void bl_run_collect(const bl_run_launch *rl, const bl_launch_result *res,
                    const bl_launch_opts *lo, bl_run_outcome *out,
                    bl_h5_machine *m)
{
    bl_err e;
    judge(res, lo, out->interrupted_by, &out->h);
    if (bl_run_record_read(rl->probe_dir, rl->topo, &out->run, &e) < 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s%sprobe files: %s", out->h.reason,
                 out->h.reason[0] ? "; " : "", e.msg);
        free(out->h.reason);
        out->h.reason = strdup(msg);
    }
    out->run.status = strdup(out->h.status);
    omp_env(rl, &out->run);
    describe_machine(rl->topo, m);
    if (!out->h.allowed_cpus)
        bl_allowed_record(&out->h.allowed_cpus, &out->h.allowed_from);
    cross_check(rl, res, m->numa_balancing, out);
}

/* After the launch: the probe's rows, the checks, the record. */
static int record(const bl_run_opts *o, const bl_run_launch *rl,
                  const bl_launch_result *res, const bl_launch_opts *lo,
                  bl_run_outcome *out, bl_err *err)
{
    bl_h5_machine m;
    int rc;
    bl_run_collect(rl, res, lo, out, &m);
    rc = bl_h5_write_sweep_run(AT_FDCWD, o->out, o->command, &m, 1, &out->run, &out->h,
                               err);
    bl_h5_machine_free(&m);
    if (rc == 0)
        bl_run_probe_dir_remove(out->probe_dir);
    return rc;
}

/* The launch of s: what bl_run_command and bl_run_collect read. */
static void launch_of(const bl_run_opts *o, const run_setup *s,
                      const bl_run_outcome *out, bl_run_launch *rl)
{
    memset(rl, 0, sizeof *rl);
    rl->li = &s->li;
    rl->layout = &s->l;
    rl->topo = s->topo;
    rl->argv.launcher = s->program;
    rl->argv.is_root = bl_launcher_is_root();
    rl->argv.threads = s->chk.threads;
    rl->argv.pus_per_rank = s->chk.pus_per_rank;
    rl->argv.program = o->program;
    rl->probe = o->probe;
    rl->probe_dir = out->probe_dir;
    rl->period_ms = o->period_ms;
}

int bl_run(const bl_run_opts *o, bl_run_outcome *out, bl_err *err)
{
    run_setup s = {0};
    bl_run_launch rl;
    bl_command cmd = {0};
    bl_launch_opts lo = {0};
    bl_launch_result res;
    struct sigaction old_int, old_term;
    char msg[300];
    int rc = -1;
    memset(out, 0, sizeof *out);
    beside(o->out, ".log", out->log, sizeof out->log);
    beside(o->out, ".probe.XXXXXX", out->probe_dir, sizeof out->probe_dir);
    if (setup(o, &s, err) < 0) {
        rc = -2;
        goto done;
    }
    /* a launch that cannot start for a cause around the harness: said
     * before, not as the launcher's first words after */
    if (bl_launch_env_blocked(msg, sizeof msg)) {
        bl_err_set(err, "no run can start: %s; nothing was run", msg);
        rc = -2;
        goto done;
    }
    if (!mkdtemp(out->probe_dir)) {
        bl_err_set(err, "%s: cannot make the probe's directory: %s",
                   out->probe_dir, strerror(errno));
        goto done;
    }
    launch_of(o, &s, out, &rl);
    if (bl_run_command(&rl, &cmd, err) < 0) {
        rmdir(out->probe_dir);
        goto done;
    }
    describe(o, &s, out);
    out->h.argv = bl_shell_join(cmd.argv);
    lo.argv = cmd.argv;
    lo.env = cmd.env;
    lo.timeout_s = o->timeout_s;
    lo.stdout_path = out->log;
    lo.stderr_path = out->log;
    out->h.start_time = (double)time(NULL);
    /* caught until the record is written: a second Ctrl-C while it is
     * must not lose what the first one kept */
    bl_launch_catch_interrupts(&old_int, &old_term);
    if (bl_launch_run(&lo, &res, err) == 0) {
        out->interrupted_by = bl_launch_caught_signal();
        rc = record(o, &rl, &res, &lo, out, err);
    } else {
        out->interrupted_by = bl_launch_caught_signal();
        rmdir(out->probe_dir); /* nothing ran: nothing in it */
    }
    bl_launch_restore_interrupts(&old_int, &old_term);
    bl_launch_result_free(&res);
done:
    bl_command_free(&cmd);
    if (s.topo)
        hwloc_topology_destroy(s.topo);
    if (s.job_topo)
        hwloc_topology_destroy(s.job_topo);
    return rc;
}

void bl_run_outcome_free(bl_run_outcome *out)
{
    bl_h5_run_free(&out->run);
    bl_h5_harness_free(&out->h);
    for (size_t i = 0; i < out->nnotes; i++)
        free(out->notes[i]);
    free(out->notes);
    memset(out, 0, sizeof *out);
}
