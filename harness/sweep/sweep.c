#include "sweep/sweep.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/results_file.h"
#include "launcher/launcher_choice.h"
#include "launcher/launcher_info.h"
#include "launcher/launcher.h"
#include "sweep/noisy.h"
#include "sweep/sweep_omp.h"
#include "proc/shellquote.h"
#include "sweep/sweep_dir.h"
#include "proc/launch_env.h"
#include "sweep/sweep_lock.h"
#include "sweep/sweep_item.h"
#include "sweep/sweep_identity.h"
#include "sweep/sweep_merge.h"
#include "sweep/sweep_nodes.h"
#include "sys_util.h"
#include "topo.h"

extern char **environ;

/* How long a sweep waits for the run a killed sweep left to be killed by
 * its supervisor (launch.c: at most 10 s of SIGKILLs). */
#define LOCK_WAIT_S 30.0

/* bindlab-app (or bindlab-gpu-wrap) beside the running bindlab (the
 * build tree, or an install prefix), else whatever PATH finds. */
static void default_program(const char *name, char *buf, size_t len)
{
    if (bl_beside_self(name, buf, len, NULL) == 0 &&
        access(buf, X_OK) == 0)
        return;
    bl_textf(buf, len, "%s", name);
}

/* The harness's own OpenMP variables must not reach the ranks: Open MPI
 * hands its environment to local ranks, so a layout that leaves OMP_PLACES
 * unset would silently inherit the user's shell value. */
static void drop_inherited_openmp_env(void)
{
    static const char *const prefixes[] = {"OMP_", "GOMP_", "KMP_"};
    int again = 1;
    while (again) {
        again = 0;
        for (char **e = environ; *e && !again; e++)
            for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
                if (strncmp(*e, prefixes[i], strlen(prefixes[i])) == 0) {
                    char name[256];
                    const char *eq = strchr(*e, '=');
                    size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
                    if (n >= sizeof name)
                        n = sizeof name - 1;
                    memcpy(name, *e, n);
                    name[n] = '\0';
                    unsetenv(name);
                    again = 1; /* environ changed under us: rescan */
                    break;
                }
    }
}

/* A layout that names its nodes: can this launcher, in this allocation,
 * put its ranks on that many nodes. srun outside an allocation makes its
 * own; mpirun needs one to reach other nodes. */
static int check_nodes(const bl_sweep_ctx *c, const bl_layout *l,
                       bl_err *err)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(&c->launcher);
    char *scratch;
    int rc;
    if (l->nodes <= 0)
        return 0;
    if (c->alloc.n == 0) {
        if ((ops && ops->makes_allocation) || l->nodes == 1)
            return 0;
        return bl_err_set(err, "nodes %d: %s reaches other nodes through "
                          "a Slurm allocation, and SLURM_JOB_NODELIST is not "
                          "set; run the sweep inside one (salloc -N %d, or "
                          "bindlab slurm --nodes %d)", l->nodes,
                          ops ? ops->program : "mpirun",
                          l->nodes, l->nodes);
    }
    if (!(scratch = malloc(BL_SLURM_HOST_LIST_MAX)))
        return bl_err_set(err, "out of memory");
    rc = bl_slurm_alloc_host_list(&c->alloc, l->nodes, 1, scratch,
                                  BL_SLURM_HOST_LIST_MAX, err);
    free(scratch);
    return rc;
}

/* Interleaved order: repetition first, then the layout's place in the
 * sweep (A1 B1 A2 B2 ...). */
static int cmp_interleaved(const void *a, const void *b)
{
    const bl_sweep_item *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return (x->layout_index > y->layout_index) -
           (x->layout_index < y->layout_index);
}

/* Plans every run: repetitions expanded, shard selected, each layout
 * translated for the launcher and validated against this node (and, with
 * nodes, against the allocation), then put in the order they run. The
 * shard is chosen on the layout-by-layout index, as before repetitions
 * were interleaved, so a sharded sweep keeps its runs in the same shards
 * and each shard holds repetitions of every layout (with the interleaved
 * index, 2 shards of A B A B would split A from B). */
static int plan_runs(bl_sweep_ctx *c, bl_err *err)
{
    const bl_sweep *s = &c->sweep;
    long total = bl_sweep_runs(s), index = 0;  /* capped by the loader */
    c->items = calloc((size_t)total + 1, sizeof *c->items);
    c->reasons = calloc((size_t)s->nlayouts + 1, sizeof *c->reasons);
    if (!c->items || !c->reasons)
        return bl_err_set(err, "out of memory planning %ld runs", total);
    for (int i = 0; i < s->nlayouts; i++) {
        bl_layout *l = &s->layouts[i];
        int reps = l->repetitions > 0 ? l->repetitions : 1;
        bl_err e;
        int valid = bl_launcher_translate(l, &c->launcher, c->topo,
                                          &e) == 0;
        bl_layout_check chk = {0, 0};
        if (valid)
            valid = bl_sweep_nodes_validate(c, l, &chk, &e) == 0;
        if (valid)
            valid = check_nodes(c, l, &e) == 0;
        if (!valid && !(c->reasons[i] = strdup(e.msg)))
            return bl_err_set(err, "out of memory");
        for (int r = 1; r <= reps; r++, index++) {
            bl_sweep_item *it;
            if (c->o->nshards > 0 && index % c->o->nshards != c->o->shard - 1)
                continue;
            it = &c->items[c->nitems++];
            it->layout = l;
            it->layout_index = i;
            it->rep = r;
            if (reps > 1)
                bl_textf(it->run_id, sizeof it->run_id, "%s.%d", l->run_id, r);
            else
                bl_textf(it->run_id, sizeof it->run_id, "%s", l->run_id);
            it->check = chk;
            it->valid = valid;
            it->reason = c->reasons[i];
        }
    }
    c->order = c->o->repetition_order != BL_REP_ORDER_UNSET
                   ? c->o->repetition_order
                   : s->repetition_order;
    if (c->order != BL_REP_CONSECUTIVE) {
        c->order = BL_REP_INTERLEAVED;
        if (c->nitems > 1)
            qsort(c->items, (size_t)c->nitems, sizeof *c->items,
                  cmp_interleaved);
    }
    return 0;
}

static int report_invalid(bl_sweep_ctx *c, bl_err *err)
{
    int bad = 0;
    for (int i = 0; i < c->nitems; i++)
        if (!c->items[i].valid) {
            if (c->o->progress)
                fprintf(c->o->progress, "invalid: %s %s%s%s: %s\n",
                        c->items[i].run_id, c->items[i].layout->name,
                        c->items[i].layout->name[0] ? " " : "",
                        c->items[i].layout->label, c->items[i].reason);
            bad++;
        }
    if (bad && !c->o->skip_invalid)
        return bl_err_set(err,
                          "%d of %d runs cannot run on this node (listed "
                          "above); fix the sweep file, or pass "
                          "--skip-invalid to record them as invalid and run "
                          "the rest",
                          bad, c->nitems);
    return 0;
}

static int dry_run(bl_sweep_ctx *c, bl_err *err)
{
    for (int i = 0; i < c->nitems; i++) {
        bl_sweep_item *it = &c->items[i];
        char **argv;
        char *line;
        if (!it->valid) {
            fprintf(c->o->progress, "# %s invalid: %s\n", it->run_id,
                    it->reason);
            continue;
        }
        argv = bl_sweep_item_argv(c, it, err);
        if (!argv)
            return -1;
        line = bl_shell_join(argv);
        fprintf(c->o->progress, "# %s %s\n%s\n", it->run_id,
                it->layout->label, line ? line : "?");
        free(line);
        bl_argv_free(argv);
    }
    return 0;
}

/* Without --resume, a results directory that already holds runs would mix
 * two sweeps in one merged file. */
static int check_fresh(bl_sweep_ctx *c, bl_err *err)
{
    int found = 0;
    for (int i = 0; i < c->nitems; i++) {
        char path[PATH_MAX];
        bl_sweep_item_path(c, &c->items[i], path, sizeof path);
        found += access(path, F_OK) == 0;
    }
    if (found && !c->o->resume)
        return bl_err_set(err,
                          "%s already holds %d run%s of an earlier sweep: "
                          "pass --resume to continue it, or remove the "
                          "directory (or choose another -o) to start over",
                          c->dir, found, found == 1 ? "" : "s");
    return 0;
}

static void progress_line(bl_sweep_ctx *c, int done, int todo, double started,
                          const bl_sweep_item *it, const bl_h5_harness *h,
                          double rate, const char *unit)
{
    double elapsed = bl_now_s() - started;
    double eta = done > 0 ? elapsed / done * (todo - done) : 0.0;
    if (!c->o->progress)
        return;
    fprintf(c->o->progress, "[%d/%d] %s %s%s%s: %s", done, todo, it->run_id,
            it->layout->name, it->layout->name[0] ? " " : "",
            it->layout->label, h->status);
    if (strcmp(h->status, "ok") == 0)
        fprintf(c->o->progress, " %.3f %s", rate, unit ? unit : "");
    else if (h->reason && *h->reason)
        fprintf(c->o->progress, " (%s)", h->reason);
    fprintf(c->o->progress, " [%.1f s, ETA %.0f s]\n", h->wall_s, eta);
    fflush(c->o->progress);
}

static void count(bl_sweep_totals *t, const char *status)
{
    if (strcmp(status, "ok") == 0)
        t->ok++;
    else if (strcmp(status, "timeout") == 0)
        t->timeout++;
    else if (strcmp(status, "invalid") == 0)
        t->invalid++;
    else
        t->failed++;
}

/* 1 with the cause when no launch of it can get past one: the harness's
 * environment (launch_env.h), or a kernel sweep's ranks' program not there
 * (a wrong --app, an install without bindlab-app). An app: sweep's program
 * is checked with each run's command. */
static int no_run_can_start(const bl_sweep_ctx *c, const bl_sweep_item *it,
                            char *cause, size_t len)
{
    char found[PATH_MAX];
    const char *prog;
    if (bl_launch_env_blocked(cause, len))
        return 1;
    if (c->sweep.app)
        return 0;
    prog = bl_sweep_omp_app(c, it->layout);
    if (bl_find_program(prog, found, sizeof found) == 0)
        return 0;
    bl_textf(cause, len, "the app '%s' is %s (give %s the path of %s)", prog,
             strchr(prog, '/') ? "not an executable file"
                               : "not beside bindlab nor in PATH",
             prog == c->app ? "--app" : "--app-libomp",
             prog == c->app ? "bindlab-app" : "bindlab-app built with clang");
    return 1;
}

static int execute(bl_sweep_ctx *c, bl_sweep_totals *t, bl_err *err)
{
    double started = bl_now_s();
    int todo = 0, done = 0;
    for (int i = 0; i < c->nitems; i++)
        todo += !bl_sweep_item_done(c, &c->items[i], err);
    for (int i = 0; i < c->nitems && !bl_launch_caught_signal(); i++) {
        bl_sweep_item *it = &c->items[i];
        bl_h5_harness h;
        double rate = 0.0;
        char unit[32] = "";
        int rc;
        char cause[PATH_MAX + 128];
        if (bl_sweep_item_done(c, it, err)) {
            t->skipped++;
            continue;
        }
        /* the directory swapped (for a link) since: nothing more there */
        if (bl_sweep_dir_still(c->dir, c->dirfd, err) < 0)
            return -1;
        /* a cause no run can get past: stop with it, not fail the rest */
        if (it->valid && no_run_can_start(c, it, cause, sizeof cause))
            return bl_err_set(err, "no run can start: %s; stopped before %s "
                              "with %d run%s not started (the recorded ones "
                              "are kept: fix it and --resume)", cause,
                              it->run_id, todo - done,
                              todo - done == 1 ? "" : "s");
        rc = bl_sweep_item_run(c, it, &h, &rate, unit, sizeof unit, err);
        if (rc < 0)
            bl_h5_harness_free(&h); /* what the record had so far */
        if (rc == -2)
            break; /* interrupted: not recorded, --resume reruns it */
        if (rc < 0)
            return -1;
        done++;
        t->runs++;
        t->launch_s += h.wall_s;
        count(t, h.status);
        progress_line(c, done, todo, started, it, &h, rate, unit);
        bl_h5_harness_free(&h);
        if (bl_sweep_append(c, it, err) < 0)
            return -1;
    }
    return bl_launch_caught_signal() ? -2 : 0;
}

/* --noisy: the same neighbour beside every layout. Two layouts that then
 * have the same label (the file varied noisy: and nothing else) would be
 * one run id's record twice: refused. */
static int override_noisy(bl_sweep *s, const char *spec, bl_err *err)
{
    for (int i = 0; i < s->nlayouts; i++) {
        bl_layout *l = &s->layouts[i];
        if (bl_layout_set(l, BL_F_NOISY, spec, err) < 0)
            return bl_err_prefix(err, "--noisy");
        bl_layout_make_label(l, s->kernels[l->kernel].label);
    }
    for (int i = 0; i < s->nlayouts; i++)
        for (int j = i + 1; j < s->nlayouts; j++)
            if (strcmp(s->layouts[i].label, s->layouts[j].label) == 0)
                return bl_err_set(err, "--noisy %s makes layouts %s and %s "
                                  "the same ('%s'): the sweep file varies "
                                  "noisy: already; leave out --noisy",
                                  spec, s->layouts[i].run_id,
                                  s->layouts[j].run_id, s->layouts[i].label);
    return 0;
}

/* What a sweep needs, after its sweep file, before its runs are planned:
 * this node, the launcher and its version, the paths. 0, or -1 with err
 * set (the caller frees c). */
static int setup(bl_sweep_ctx *c, const bl_sweep_opts *o, bl_err *err)
{
    char where[600];
    int rc = bl_topo_load(NULL, &c->topo, err);
    if (rc == 0)
        rc = bl_sweep_nodes_load_job(c, err);
    /* the command line's --launcher, else the sweep file's launcher: */
    const char *value = o->launcher ? o->launcher
                        : c->sweep.launcher[0] ? c->sweep.launcher : NULL;
    if (o->launcher || !c->sweep.launcher[0])
        snprintf(where, sizeof where, "--launcher");
    else
        snprintf(where, sizeof where, "%s:%d:%d: launcher", c->sweep.file,
                 c->sweep.launcher_line, c->sweep.launcher_col);
    /* srun answers --version as Slurm; the layouts' Open MPI spelling
     * then only labels the record (srun's argv is built from the parsed
     * layout). */
    if (rc == 0)
        rc = bl_launcher_choose(value, where, o->launcher_path, c->program,
                                sizeof c->program, &c->want, &c->launcher,
                                err);
    if (rc < 0)
        return -1;
    /* Every path below is DIR/ plus a short name: check the lengths once. */
    if (bl_textf(c->results, sizeof c->results, "%s",
                 o->results ? o->results : "results") < 0 ||
        bl_textf(c->dir, sizeof c->dir, "%s/%s.d", c->results,
                 c->sweep.name) < 0 ||
        strlen(c->dir) > sizeof c->dir - 64 ||
        (o->out ? bl_textf(c->out, sizeof c->out, "%s", o->out)
                : bl_textf(c->out, sizeof c->out, "%s/%s.h5", c->results,
                           c->sweep.name)) < 0 ||
        (o->app && bl_textf(c->app, sizeof c->app, "%s", o->app) < 0)) {
        return bl_err_set(err, "results directory, -o or --app path is too "
                          "long (over %d characters)", PATH_MAX - 64);
    }
    if (!o->app)
        default_program("bindlab-app", c->app, sizeof c->app);
    default_program("bindlab-gpu-wrap", c->gpu_wrap, sizeof c->gpu_wrap);
    if (bl_sweep_omp_setup(c, o->app_libomp, o->libiomp5, err) < 0)
        return -1;
    c->is_root = bl_launcher_is_root();
    drop_inherited_openmp_env();
    for (int i = 0; i < c->sweep.nlayouts; i++)
        if (c->sweep.layouts[i].nodes > 0) {
            if (bl_slurm_alloc_read(getenv("SLURM_JOB_NODELIST"), NULL,
                                    &c->alloc, err) < 0)
                return -1;
            return bl_sweep_nodes_load(c, o->node_topologies, stderr, err);
        }
    return 0;
}

int bl_sweep_run(const bl_sweep_opts *o, bl_sweep_totals *t, bl_err *err)
{
    bl_sweep_ctx c;
    bl_sweep_lock lock = {{-1, -1}};
    struct sigaction old_int, old_term;
    double t0 = bl_now_s();
    int rc;

    memset(t, 0, sizeof *t);
    memset(&c, 0, sizeof c);
    c.dirfd = c.appfd = -1;
    c.o = o;
    bl_launch_clear_interrupt();
    if (bl_sweep_file_load(o->file, &c.sweep, err) < 0)
        return -1;
    if ((o->noisy && override_noisy(&c.sweep, o->noisy, err) < 0) ||
        setup(&c, o, err) < 0) {
        bl_sweep_ctx_free(&c);
        return -1;
    }

    rc = plan_runs(&c, err);
    if (rc == 0)
        rc = report_invalid(&c, err);
    if (o->dry_run && (rc == 0 || c.nitems > 0)) {
        /* every command line, then the verdict on the invalid ones */
        bl_err e;
        int shown = dry_run(&c, &e);
        if (rc == 0 && shown < 0) {
            *err = e;
            rc = -1;
        }
        bl_sweep_ctx_free(&c);
        return rc;
    }
    if (rc == 0)
        rc = bl_mkdir_p(c.dir, err);
    /* before anything is created in it: no link sends the writes away,
     * and what is written there is written relative to the held fd */
    if (rc == 0)
        rc = bl_sweep_dir_hold(c.dir, &c.dirfd, &c.appfd, err);
    /* Before anything in dir is read or written: no second sweep on it,
     * and no run a killed sweep left behind still going. */
    if (rc == 0)
        rc = bl_sweep_lock_take(&lock, c.dirfd, c.dir, o->shard, o->nshards,
                                LOCK_WAIT_S, o->progress, err);
    if (rc == -3) {
        bl_sweep_ctx_free(&c);
        return -3;
    }
    if (rc == 0)
        rc = check_fresh(&c, err);
    /* before any record is written or merged: every run id still means
     * the run its record holds */
    if (rc == 0 && o->resume)
        rc = bl_sweep_identity_check(&c, err);
    /* resumed: records written just before a kill join the merged file */
    if (rc == 0 && o->resume)
        rc = bl_sweep_merge(&c, err);
    if (rc == 0) {
        bl_launch_catch_interrupts(&old_int, &old_term);
        rc = execute(&c, t, err);
        bl_launch_restore_interrupts(&old_int, &old_term);
    }
    if (rc != -1 && bl_sweep_merge(&c, err) < 0)
        rc = -1;
    /* only a sweep that held the directory tidies it */
    if (lock.fd[0] >= 0)
        bl_sweep_merge_done(&c);
    t->wall_s = bl_now_s() - t0;
    bl_sweep_lock_release(&lock);
    bl_sweep_dir_release(&c.dirfd, &c.appfd);
    bl_sweep_ctx_free(&c);
    return rc;
}
