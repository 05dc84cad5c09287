#include "sweep/sweep_item.h"
#include "sweep/sweep_identity.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "allowed.h"
#include "bindreport/bindreport.h"
#include "bindreport/crosscheck.h"
#include "sweep/fail_reason.h"
#include "proc/launch_env.h"
#include "launcher/launcher.h"
#include "sweep/noisy.h"
#include "results/results_file.h"
#include "proc/shellquote.h"
#include "topo.h"
#include "strbuf.h"
#include "sys_util.h"
#include "sweep/sweep_app_run.h"
#include "sweep/sweep_nodes.h"
#include "sweep/sweep_omp.h"
#include "sweep/sweep_retry.h"

void bl_sweep_ctx_free(bl_sweep_ctx *c)
{
    for (int i = 0; c->reasons && i < c->sweep.nlayouts; i++)
        free(c->reasons[i]);
    free(c->reasons);
    c->reasons = NULL;
    bl_sweep_free(&c->sweep);
    if (c->topo)
        hwloc_topology_destroy(c->topo);
    bl_sweep_nodes_free(c);
    bl_slurm_alloc_free(&c->alloc);
    free(c->items);
    c->items = NULL;
    c->topo = NULL;
}

static void app_path(const bl_sweep_ctx *c, const bl_sweep_item *it,
                     char *buf, size_t len)
{
    bl_textf(buf, len, "%s/app/%s.h5", c->dir, it->run_id);
}

/* The same file as the harness reads it: through the app/ directory it
 * holds open, so a results directory swapped for a link during the run
 * cannot hand it another file (HDF5 opens by name only). */
static void app_held_path(const bl_sweep_ctx *c, const bl_sweep_item *it,
                          char *buf, size_t len)
{
    bl_textf(buf, len, "/proc/self/fd/%d/%s.h5", c->appfd, it->run_id);
}

/* The hosts of a layout with nodes: the allocation's first nodes, as the
 * launcher names them (with one slot per core, each node's own cores with
 * --node-topologies). 0 with *hosts NULL when the command names none. */
static int item_hosts(const bl_sweep_ctx *c, const bl_layout *l,
                      bl_hosts_form form, char *buf, size_t len,
                      const char **hosts, bl_err *err)
{
    int *slots, rc;
    *hosts = NULL;
    if (l->nodes <= 0 || c->alloc.n == 0 || form == BL_HOSTS_NONE)
        return 0;
    if (form == BL_HOSTS_NAMES)
        rc = bl_slurm_alloc_host_list(&c->alloc, l->nodes, 0, buf, len, err);
    else if (!(slots = calloc((size_t)l->nodes, sizeof *slots)))
        return bl_err_set(err, "out of memory");
    else {
        for (int k = 0; k < l->nodes; k++) {
            bl_topo_counts n;
            bl_topo_counts_get(bl_sweep_node_topo(c, k), &n);
            slots[k] = n.cores > 0 ? n.cores : n.pus;
        }
        rc = bl_slurm_alloc_host_slots(&c->alloc, l->nodes, slots, buf, len,
                                       err);
        free(slots);
    }
    if (rc == 0)
        *hosts = buf;
    return rc;
}

/* The command of a valid item: bindlab-app's, or with app: the program
 * under the probe (ar filled; free with bl_sweep_app_run_free). */
static int item_command(const bl_sweep_ctx *c, const bl_sweep_item *it,
                        bl_sweep_app_run *ar, bl_command *cmd, bl_err *err)
{
    char out[PATH_MAX], *hosts = malloc(BL_SLURM_HOST_LIST_MAX);
    bl_sweep_omp_words omp_words;
    const bl_layout *l = it->layout;
    int rc;
    const bl_launcher_ops *ops = bl_launcher_ops_of(&c->launcher);
    bl_layout_argv_opts o = {0};
    memset(cmd, 0, sizeof *cmd);
    memset(ar, 0, sizeof *ar);
    app_path(c, it, out, sizeof out);
    o.launcher = c->program;
    o.app = bl_sweep_omp_app(c, l);
    o.rank_env = bl_sweep_omp_env(c, l, &omp_words);
    o.gpu_wrap = c->gpu_wrap;
    o.out_file = out;
    o.is_root = c->is_root;
    o.oversubscribe = c->o->oversubscribe;
    o.threads = it->check.threads;
    o.pus_per_rank = it->check.pus_per_rank;
    if (!hosts)
        return bl_err_set(err, "out of memory");
    if (item_hosts(c, l, ops ? ops->hosts : BL_HOSTS_NONE, hosts,
                   BL_SLURM_HOST_LIST_MAX, &o.hosts, err) < 0)
        rc = -1;
    else if (c->sweep.app)
        rc = bl_sweep_app_command(c, it, o.hosts, ar, cmd, err);
    else
        rc = bl_launcher_command(&c->launcher, l,
                                 &c->sweep.kernels[l->kernel], &o, NULL, cmd,
                                 err);
    free(hosts);
    return rc;
}

char **bl_sweep_item_argv(const bl_sweep_ctx *c, const bl_sweep_item *it,
                          bl_err *err)
{
    bl_sweep_app_run ar;
    bl_command cmd;
    char **argv = NULL;
    if (item_command(c, it, &ar, &cmd, err) == 0) {
        argv = cmd.argv;
        cmd.argv = NULL;
    }
    bl_command_free(&cmd);
    bl_sweep_app_run_free(&ar);
    return argv;
}

int bl_sweep_item_done(const bl_sweep_ctx *c, const bl_sweep_item *it,
                       bl_err *err)
{
    char path[PATH_MAX], group[64];
    bl_h5_harness h;
    bl_err e;
    hid_t f;
    int same;
    (void)err;
    bl_sweep_item_path(c, it, path, sizeof path);
    if (access(path, F_OK) != 0)
        return 0;
    f = bl_h5_open_read(path, &e);
    if (f < 0)
        return 0; /* unreadable: run it again */
    bl_h5_run_path(it->run_id, group, sizeof group);
    same = bl_h5_read_harness(f, group, &h, &e) == 0 && h.label &&
           strcmp(h.label, it->layout->label) == 0;
    bl_h5_harness_free(&h);
    H5Fclose(f);
    return same;
}

static char *kernel_args(const bl_kernel_spec *k)
{
    char *const *args = k->args;
    char *joined = bl_shell_join(args);
    return joined ? joined : strdup("");
}

static double wall_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The harness record's layout fields, common to every outcome. */
static void describe_layout(const bl_sweep_ctx *c, const bl_sweep_item *it,
                            bl_h5_harness *h)
{
    const bl_layout *l = it->layout;
    const bl_kernel_spec *k = &c->sweep.kernels[l->kernel];
    const bl_launcher_ops *ops = bl_launcher_ops_of(&c->launcher);
    memset(h, 0, sizeof *h);
    h->run_id = strdup(it->run_id);
    h->label = strdup(l->label);
    h->name = strdup(l->name);
    h->repetition = it->rep;
    h->np = l->np;
    h->layout_nodes = l->nodes;
    h->threads = it->check.threads;
    h->kernel = strdup(k->name);
    h->kernel_args = kernel_args(k);
    h->map_by = strdup(l->map_by);
    h->map_by_launcher = strdup(l->map_by_launcher);
    h->bind_to = strdup(l->bind_to);
    h->bind_to_launcher = strdup(l->bind_to_launcher);
    h->rank_by = strdup(l->rank_by);
    h->omp_places = strdup(l->omp_places);
    h->omp_proc_bind = strdup(l->omp_proc_bind);
    h->init = strdup(l->serial_init ? "serial" : "parallel");
    h->mem_policy = strdup(l->mem_policy[0] ? l->mem_policy : "firsttouch");
    h->launcher = strdup(ops ? ops->record_as : "mpirun");
    /* which MPI ran it: the app records its library, this the launcher */
    char v[96];
    snprintf(v, sizeof v, "%s %s", bl_launcher_kind_name(c->launcher.kind),
             c->launcher.version);
    h->launcher_version = strdup(v);
    h->repetition_order = strdup(bl_rep_order_name(c->order));
    h->noisy = strdup(l->noisy[0] ? l->noisy : "none");
    h->omp_runtime_asked =
        strdup(l->omp_runtime[0] ? l->omp_runtime : "default");
    bl_allowed_record(&h->allowed_cpus, &h->allowed_from);
    h->start_time = wall_clock_s();
    h->sweep = strdup(c->sweep.name);
    h->fingerprint = bl_sweep_item_fingerprint(c, it);
}

/* The stopped neighbours into the record. */
static void record_neighbours(const bl_noisy_run *nr, bl_h5_harness *h)
{
    if (nr->n == 0 || !(h->neighbours = calloc((size_t)nr->n,
                                               sizeof *h->neighbours)))
        return;
    h->nneighbours = (size_t)nr->n;
    for (int i = 0; i < nr->n; i++) {
        const bl_noisy_proc *p = &nr->procs[i];
        bl_h5_neighbour *row = &h->neighbours[i];
        row->kind = strdup(p->kind);
        row->argv = strdup(p->argv);
        row->cpus = strdup(p->cpus);
        row->pid = p->started_pid;
        row->last_cpu = p->last_cpu;
        row->cpu_s = p->cpu_s;
        row->wall_s = p->wall_s;
    }
}

/* Starts the layout's noisy neighbour, if any: 0, -1 with err, -2 when
 * interrupted. */
static int start_neighbours(const bl_layout *l, bl_noisy_run *nr, bl_err *err)
{
    bl_noisy n;
    char exe[PATH_MAX];
    memset(nr, 0, sizeof *nr);
    if (!l->noisy[0])
        return 0;
    if (bl_noisy_parse(l->noisy, &n, err) < 0 ||
        bl_self_path(exe, sizeof exe, err) < 0)
        return -1;
    return bl_noisy_start(&n, exe, nr, err);
}

static char *concat(const char *a, const char *b)
{
    size_t na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0;
    char *s = malloc(na + nb + 2);
    if (!s)
        return NULL;
    memcpy(s, a ? a : "", na);
    s[na] = '\n';
    memcpy(s + na + 1, b ? b : "", nb + 1);
    return s;
}

/* Decides ok / failed / timeout from how the launch ended and what the app
 * recorded, with a one-line reason for anything but ok. */
static void judge(const bl_launch_result *res, const bl_launch_opts *lo,
                  const bl_h5_run *app, bl_h5_harness *h)
{
    char how[256];
    const char *tail;
    bl_h5_harness_launched(h, res, lo, how, sizeof how);
    tail = h->stderr_tail ? h->stderr_tail : "";
    if (res->timed_out) {
        h->status = strdup("timeout");
        h->reason = strdup(how);
    } else if (!app) {
        char msg[1400], said[512], cause[300];
        bl_fail_reason(res->errs.head, tail, said, sizeof said);
        if (bl_launch_env_blocked(cause, sizeof cause))
            snprintf(msg, sizeof msg, "%s; %s, no run file", cause, how);
        else
            snprintf(msg, sizeof msg, "%s, no run file: %s", how,
                     *said ? said : "stderr is empty");
        h->status = strdup("failed");
        h->reason = strdup(msg);
    } else if (!app->result.verified) {
        char msg[512];
        snprintf(msg, sizeof msg, "wrong answer: %s",
                 app->result.verify_detail ? app->result.verify_detail : "");
        h->status = strdup("failed");
        h->reason = strdup(msg);
    } else if (!res->exited || res->exit_status != 0) {
        h->status = strdup("failed");
        h->reason = strdup(how);
    } else {
        h->status = strdup("ok");
        h->reason = strdup("");
    }
}

static double timed_seconds(const bl_h5_run *app)
{
    double s = 0.0;
    if (!app || !app->timings)
        return 0.0;
    for (int it = 0; it < app->iterations; it++) {
        double mx = 0.0;
        for (int r = 0; r < app->ranks; r++) {
            double v = app->timings[(size_t)it * (size_t)app->ranks + (size_t)r];
            if (v > mx)
                mx = v;
        }
        s += mx;
    }
    return s;
}

/* The binding report read line by line with the topology of the node
 * that printed it: each node's from the run file's machine records (a
 * record hwloc cannot read, or a host without one, falls back to this
 * machine's). */
static void parse_report(const bl_sweep_ctx *c, const char *text,
                         const bl_h5_machine *mp, size_t nm,
                         bl_binding_report *rep)
{
    hwloc_topology_t *topos = calloc(nm + 1, sizeof *topos);
    const char **hosts = calloc(nm + 1, sizeof *hosts);
    bl_report_topos t = {c->topo, 0, NULL, NULL};
    bl_err e;
    if (topos && hosts) {
        for (size_t k = 0; k < nm; k++) {
            hosts[k] = mp[k].hostname;
            if (bl_topo_load_xml(mp[k].topology_xml, &topos[k], &e) < 0)
                topos[k] = NULL;
        }
        t.n = nm;
        t.hosts = hosts;
        t.topos = topos;
    }
    bl_bindreport_parse_nodes(text, BL_REPORT_AUTO, &t, rep, &e);
    for (size_t k = 0; topos && k < nm; k++)
        if (topos[k])
            hwloc_topology_destroy(topos[k]);
    free(topos);
    free(hosts);
}

/* After a launch: 1 when it died before the app started and the item may
 * be launched again (sweep_retry.h), the attempt kept in h; 0 to judge it
 * as the run's outcome; -1 with err. */
static int another_attempt(bl_sweep_ctx *c, const bl_sweep_item *it,
                           const bl_launch_opts *lo,
                           const bl_launch_result *res, const char *appfile,
                           const char *log, bl_h5_harness *h, bl_err *err)
{
    bl_h5_harness attempt;
    int rc;
    h->attempts++;
    if (h->attempts > bl_sweep_retry_max(c, it) ||
        !bl_sweep_retry_died_before_start(res, appfile))
        return 0;
    memset(&attempt, 0, sizeof attempt);
    judge(res, lo, NULL, &attempt);
    rc = bl_sweep_retry_keep(c, it, res, attempt.reason, log, h, err);
    bl_h5_harness_free(&attempt);
    return rc < 0 ? -1 : 1;
}

/* A run that never launched (an invalid layout, a neighbour that could
 * not start): its record says why. */
static int record_not_run(bl_sweep_ctx *c, const char *record,
                          const char *status, const char *reason,
                          bl_h5_harness *h, bl_err *err)
{
    h->status = strdup(status);
    h->reason = strdup(reason);
    h->exit_status = -1;
    return bl_h5_write_sweep_run(c->dirfd, record, c->sweep.file, NULL, 0,
                                 NULL, h, err);
}

/* The app's gpu-shared warning (a GPU given to two ranks while another
 * idles, app/app_gpus.h) as the run's flag. */
static void flag_shared_gpus(const bl_h5_run *ap, char *flags, size_t len)
{
    static const char flag[] = "gpu-shared";
    for (size_t i = 0; ap && i < ap->nfindings; i++) {
        size_t used = strlen(flags);
        if (ap->findings[i].id && strcmp(ap->findings[i].id, flag) == 0 &&
            !bl_list_has(flags, ",", flag, strlen(flag)))
            snprintf(flags + used, len - used, "%s%s", used ? "," : "", flag);
    }
}

/* What the launch left: the app's run file (when it wrote one), the
 * status, the launcher's binding report and its cross-check, then the
 * record. The app's file is removed once the record holds it. */
static int record_outcome(bl_sweep_ctx *c, const bl_layout *l,
                          const char *record,
                          const char *appfile, bl_launch_result *res,
                          const bl_launch_opts *lo, bl_h5_harness *h,
                          double *rate, char *unit, size_t unit_len,
                          bl_err *err)
{
    char flags[256] = "";
    bl_h5_machine *mp = NULL;
    size_t nm = 0;
    bl_h5_run app, *ap = NULL;
    bl_binding_report rep = {0};
    char *text;
    int rc;

    if (access(appfile, F_OK) == 0) {
        bl_err e;
        if (bl_h5_read_run_file_nodes(appfile, &mp, &nm, &app, &e) == 0)
            ap = &app;
    }
    judge(res, lo, ap, h);
    {
        /* Open MPI reports on stderr, OpenMP runtimes too; read both. */
        char *errs = bl_launch_output_text(&res->errs);
        char *outs = bl_launch_output_text(&res->out);
        text = concat(errs, outs);
        h->binding_report = errs ? errs : strdup("");
        free(outs);
    }
    if (text) {
        parse_report(c, text, mp, nm, &rep);
        free(text);
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    bl_crosscheck_allowed allowed = {host, h->allowed_cpus};
    bl_crosscheck(&rep, ap, mp ? mp->numa_balancing : -1, &allowed,
                  &h->checks, &h->nchecks, flags, sizeof flags);
    bl_sweep_omp_judge(l, ap, h, flags, sizeof flags);
    flag_shared_gpus(ap, flags, sizeof flags);
    h->flags = strdup(flags);
    h->app_s = timed_seconds(ap);
    if (ap && strcmp(h->status, "ok") == 0) {
        *rate = ap->result.rate;
        bl_textf(unit, unit_len, "%s",
                 ap->result.rate_unit ? ap->result.rate_unit : "");
    }
    rc = bl_h5_write_sweep_run(c->dirfd, record, c->sweep.file, mp, nm, ap,
                               h, err);
    if (rc == 0) /* its content now lives in the record */
        unlinkat(c->appfd, strrchr(appfile, '/') + 1, 0);
    bl_bindreport_free(&rep);
    if (ap)
        bl_h5_run_free(&app);
    bl_h5_nodes_free(mp, nm);
    return rc;
}

/* The launch, again while it dies before the program starts (retry):
 * 0 with res filled, -1 with err. With app:, "started" is the probe's
 * directory holding a file. */
static int launch(bl_sweep_ctx *c, const bl_sweep_item *it,
                  const bl_sweep_app_run *ar, const bl_launch_opts *lo,
                  const char *appfile, const char *log, bl_launch_result *res,
                  bl_h5_harness *h, bl_err *err)
{
    int rc;
    h->start_time = wall_clock_s();
    while ((rc = ar->program && bl_sweep_app_probe_dir(ar, c->dirfd, err) < 0
                     ? -1
                     : bl_launch_run(lo, res, err)) == 0 &&
           !res->interrupted &&
           (rc = another_attempt(c, it, lo, res,
                                 ar->program &&
                                         bl_run_probe_dir_used(ar->probe_dir)
                                     ? ar->probe_dir
                                     : appfile,
                                 log, h, err)) == 1) {
        bl_launch_result_free(res);
        h->start_time = wall_clock_s();
    }
    return rc;
}

int bl_sweep_item_run(bl_sweep_ctx *c, const bl_sweep_item *it,
                      bl_h5_harness *h, double *rate, char *unit,
                      size_t unit_len, bl_err *err)
{
    char record[PATH_MAX], appfile[PATH_MAX], log[PATH_MAX];
    bl_launch_opts lo = {0};
    bl_launch_result res = {0};
    bl_sweep_app_run ar;
    bl_command cmd;
    bl_noisy_run nr;
    bl_err nerr;
    int rc;

    *rate = 0.0;
    unit[0] = '\0';
    describe_layout(c, it, h);
    bl_sweep_item_path(c, it, record, sizeof record);
    if (!it->valid)
        return record_not_run(c, record, "invalid", it->reason, h, err);
    memset(&ar, 0, sizeof ar);
    memset(&cmd, 0, sizeof cmd);
    if (bl_sweep_omp_prepare(c, it->layout, err) < 0 ||
        item_command(c, it, &ar, &cmd, err) < 0) {
        bl_sweep_app_run_free(&ar);
        return -1;
    }
    h->argv = bl_shell_join(cmd.argv);
    app_held_path(c, it, appfile, sizeof appfile);
    unlinkat(c->appfd, strrchr(appfile, '/') + 1, 0);
    bl_textf(log, sizeof log, "%s/%s.log", c->dir, it->run_id);
    lo.argv = cmd.argv;
    lo.env = cmd.env;
    lo.timeout_s = c->o->timeout_s > 0 ? c->o->timeout_s : it->layout->timeout_s;
    lo.stdout_path = log;
    lo.stderr_path = log;
    lo.log_dirfd = &c->dirfd;
    rc = start_neighbours(it->layout, &nr, &nerr);
    if (rc < 0) {
        bl_command_free(&cmd);
        bl_sweep_app_run_free(&ar);
        if (rc == -2)
            return -2;
        /* a run-time failure of this run, recorded as such */
        h->start_time = wall_clock_s();
        return record_not_run(c, record, "failed", nerr.msg, h, err);
    }
    rc = launch(c, it, &ar, &lo, appfile, log, &res, h, err);
    /* the neighbour ends with the run, however the run ended */
    bl_noisy_stop(&nr);
    record_neighbours(&nr, h);
    if (rc < 0 || res.interrupted)
        rc = rc < 0 ? -1 : -2;
    else if (ar.program)
        rc = bl_sweep_app_record(c, &ar, record, &res, &lo, h, rate, unit,
                                 unit_len, err);
    else
        rc = record_outcome(c, it->layout, record, appfile, &res, &lo, h,
                            rate, unit, unit_len, err);
    bl_launch_result_free(&res);
    bl_command_free(&cmd);
    bl_sweep_app_run_free(&ar);
    return rc;
}
