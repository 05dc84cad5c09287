/* libbindlab-probe.so: records where the ranks and threads of any
 * dynamically linked program run, loaded with LD_PRELOAD; nothing in the
 * program changes. This file: the once-only start (from the constructor,
 * or from whichever interposed call comes first: libraries loaded after
 * the probe run their constructors before it, and libgomp binds the
 * initial thread in its own), the process record, the end (destructor),
 * and fork: a child that does not exec writes nothing (docs/any-application.md).
 * The file format: docs/probe-format.md. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe_priv.h"

bp_state bp = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct timespec t0;

/* Where the launcher says the rank and the size are, most specific first:
 * Slurm's come last, since an mpirun inside a batch job inherits the batch
 * step's SLURM_PROCID. Intel MPI's Hydra sets PMI_RANK / PMI_SIZE. */
static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                        "PMI_RANK", "MV2_COMM_WORLD_RANK",
                                        "SLURM_PROCID"};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                        "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS"};

/* Launchers and their daemons: preloaded too when LD_PRELOAD is set around
 * mpirun or srun, but not part of the program. */
static const char *const launchers[] = {
    "mpirun", "mpiexec", "orterun", "orted", "prte", "prted", "prterun",
    "hydra_pmi_proxy", "mpiexec.hydra", "pmi_proxy", "srun", "slurmstepd"};

void bp_lock_blocked(sigset_t *saved)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, saved);
    pthread_mutex_lock(&bp.lock);
}

void bp_unlock_blocked(const sigset_t *saved)
{
    pthread_mutex_unlock(&bp.lock);
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

pid_t bp_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

double bp_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9;
}

const char *bp_phase_name(int phase)
{
    static const char *const names[] = {"before-init", "init", "after-init",
                                        "finalize", "after-finalize"};
    return phase >= 0 && phase <= BP_AFTER_FINALIZE ? names[phase] : "?";
}

/* "cpus moment=M": the calling thread's allowed set at one of the four
 * moments (start, init, finalize, exit). */
void bp_record_moment(const char *moment)
{
    char cpus[BP_CPUS_TEXT];
    bp_get_mask_text(0, cpus, sizeof cpus);
    bp_emit("cpus moment=%s t=%.6f tid=%ld cpus=%s", moment, bp_now(),
            (long)bp_gettid(), cpus);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int is_launcher(const char *argv0, const char *exe)
{
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
        if (strcmp(base_name(argv0), launchers[i]) == 0 ||
            strcmp(base_name(exe), launchers[i]) == 0)
            return 1;
    return 0;
}

/* "VALUE from=VAR" of the first variable of vars that is set. */
static void launcher_value(const char *const *vars, size_t n, char *value,
                           size_t vlen, char *from, size_t flen)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            bp_escape(v, value, vlen);
            snprintf(from, flen, "%s", vars[i]);
            return;
        }
    }
    snprintf(value, vlen, "-");
    snprintf(from, flen, "-");
}

static int period_from_env(void)
{
    const char *v = getenv("BINDLAB_PROBE_PERIOD_MS");
    char *end;
    long ms;
    if (!v || !*v)
        return BP_DEFAULT_PERIOD_MS;
    ms = strtol(v, &end, 10);
    return *end || ms < 1 || ms > 60000 ? -1 : (int)ms;
}

static void process_line(const char *host, const char *argv0, const char *exe)
{
    char rank[64], rank_from[64], size[64], size_from[64];
    char e_host[256], e_argv0[BP_PATH_TEXT], e_exe[BP_PATH_TEXT];
    struct timespec wall;
    launcher_value(rank_vars, sizeof rank_vars / sizeof rank_vars[0], rank,
                   sizeof rank, rank_from, sizeof rank_from);
    launcher_value(size_vars, sizeof size_vars / sizeof size_vars[0], size,
                   sizeof size, size_from, sizeof size_from);
    bp_escape(host, e_host, sizeof e_host);
    bp_escape(argv0, e_argv0, sizeof e_argv0);
    bp_escape(exe, e_exe, sizeof e_exe);
    clock_gettime(CLOCK_REALTIME, &wall);
    bp_emit("process pid=%ld ppid=%ld host=%s exe=%s argv0=%s rank=%s "
            "rank_from=%s size=%s size_from=%s period_ms=%d pstart=%lld "
            "start_unix=%.6f",
            (long)bp.pid, (long)getppid(), e_host, e_exe, e_argv0, rank,
            rank_from, size, size_from, bp.period_ms, bp.pstart,
            (double)wall.tv_sec + wall.tv_nsec * 1e-9);
}

/* In the child of a fork: only async-signal-safe work (see bp_out_forget). */
static void forked_child(void)
{
    bp_out_forget();
    bp_task_forget_all();
}

static void start(void)
{
    char host[256] = "", argv0[BP_PATH_TEXT], exe[BP_PATH_TEXT];
    const char *dir = getenv("BINDLAB_PROBE_DIR");
    int saved = errno;
    ssize_t n;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bp.pid = getpid();
    bp.pstart = bp_self_starttime();
    bp_self_argv0(argv0, sizeof argv0);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    gethostname(host, sizeof host - 1);
    bp.period_ms = period_from_env();
    if (is_launcher(argv0, exe) ||
        bp_out_open(dir && *dir ? dir : ".", host, bp.pid, exe) != 0) {
        errno = saved;
        return;
    }
    bp.enabled = 1;
    bp_emit("bindlab-probe %d", BP_FORMAT_VERSION);
    if (bp.period_ms < 0) {
        bp_emit("note what=bad_period_ms default=%d", BP_DEFAULT_PERIOD_MS);
        bp.period_ms = BP_DEFAULT_PERIOD_MS;
    }
    process_line(host, argv0, exe);
    bp_visible_record();
    bp_label_init();
    bp_threads_init();
    bp_record_moment("start");
    bp_register_main();
    pthread_atfork(NULL, NULL, forked_child);
    if (bp_sampler_start() != 0)
        bp_emit("note what=no_sampler");
    bp.cost_start_s = bp_now(); /* t0 was taken at the top */
    errno = saved;
}

void bp_ensure(void)
{
    pthread_once(&once, start);
}

__attribute__((constructor)) static void probe_loaded(void)
{
    bp_ensure();
}

/* exit() or the return from main: every thread's end, the exit moment,
 * pages when MPI_Finalize did not record them, "end", rename. */
__attribute__((destructor)) static void probe_unloaded(void)
{
    int saved = errno;
    sigset_t mask, all;
    double t;
    if (!bp.enabled || getpid() != bp.pid)
        return;
    t = bp_now();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask); /* see bp_lock_blocked */
    bp_threads_finish();
    bp_record_moment("exit");
    if (!bp.finalize_seen)
        bp_pages_record("exit");
    bp_omp_record();
    /* what the probe cost apart from its sampler (its "sampler" line):
     * the end's own time up to here; the fsync and rename that follow
     * are not in it */
    bp_emit("cost start_s=%.6f finalize_s=%.6f end_s=%.6f", bp.cost_start_s,
            bp.cost_finalize_s, bp_now() - t);
    bp_out_finish();
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    errno = saved;
}
