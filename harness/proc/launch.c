#include "proc/launch.h"
#include "proc/launch_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys_util.h"

extern char **environ;

/* After the child ended: how long to wait for the pipes to close (a process
 * outside the session may hold them) and for killed strays to die. */
#define DRAIN_S 1.0
#define STRAY_WAIT_S 2.0
/* Poll period when pidfd_open is unavailable (Linux < 5.3). */
#define FALLBACK_POLL_MS 20
/* With a deadline pending the loop wakes at least this often: a pass late
 * by STOP_GAP_S or more was the harness stopped (Ctrl-Z, a batch system, a
 * debugger; CLOCK_MONOTONIC runs on), not the run's: it moves the deadline. */
#define DEADLINE_POLL_MS 250
#define STOP_GAP_S 0.5

/* What a signal handler may touch. */
static volatile sig_atomic_t g_pid;          /* running child, or 0 */
static volatile sig_atomic_t g_interrupt;
static int g_wake[2] = {-1, -1};             /* self-pipe: wakes poll() */

/* --- signal-side API ------------------------------------------------------ */

void bl_launch_interrupt(void)
{
    int saved = errno;
    pid_t pid = (pid_t)g_pid;
    g_interrupt = 1;
    if (pid > 0) {
        kill(-pid, SIGTERM);
        kill(-pid, SIGCONT);
    }
    if (g_wake[1] >= 0) {
        ssize_t r = write(g_wake[1], "x", 1);
        (void)r;  /* a full pipe already wakes poll() */
    }
    errno = saved;
}

int bl_launch_interrupted(void) { return g_interrupt != 0; }
void bl_launch_clear_interrupt(void) { g_interrupt = 0; }

int bl_launch_adopt_orphans(bl_err *err)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        return bl_err_set(err, "cannot become the reaper of orphaned "
                          "processes (prctl PR_SET_CHILD_SUBREAPER): %s",
                          strerror(errno));
    return 0;
}

/* --- the session's processes ---------------------------------------------- */

/* Reads state, parent, group and session of pid from /proc. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *sid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return -1;
    line[n] = '\0';
    /* the command name may hold spaces and parentheses: skip to the last ')' */
    char *p = strrchr(line, ')');
    int pp, pg, ss;
    if (!p || sscanf(p + 1, " %c %d %d %d", state, &pp, &pg, &ss) != 4)
        return -1;
    *ppid = pp;
    *sid = ss;
    return 0;
}

/* Processes of session sid other than its leader that are still running.
 * Sends them sig when sig != 0, and reaps the dead ones that became our
 * children (when we are a subreaper). */
static int session_signal(pid_t sid, int sig)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int live = 0;
    pid_t self = getpid();
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long v = strtol(de->d_name, &end, 10);
        if (*end || v <= 0 || v == sid)
            continue;
        char state;
        pid_t ppid, s;
        if (proc_stat((pid_t)v, &state, &ppid, &s) != 0 || s != sid)
            continue;
        if (state == 'Z' || state == 'X') {
            if (ppid == self)
                waitpid((pid_t)v, NULL, WNOHANG);
            continue;
        }
        live++;
        if (sig) {
            kill((pid_t)v, sig);
            if (sig == SIGTERM)  /* a stopped process would not see it */
                kill((pid_t)v, SIGCONT);
        }
    }
    closedir(d);
    return live;
}

/* Signals everything the run started. Only called while the leader is not
 * yet reaped, so that its pid cannot name another process group. */
static void kill_run(pid_t pid, int sig)
{
    kill(-pid, sig);
    if (sig == SIGTERM)
        kill(-pid, SIGCONT);
    session_signal(pid, sig);
}

/* The child ended: kill what it left running in its session. */
static int kill_strays(pid_t pid)
{
    int n = session_signal(pid, 0);
    if (n == 0)
        return 0;
    kill_run(pid, SIGKILL);
    double until = bl_now_s() + STRAY_WAIT_S;
    while (session_signal(pid, 0) > 0 && bl_now_s() < until) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return n;
}

/* --- starting the child --------------------------------------------------- */

static int env_name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (int)(eq - entry) : -1;
}

/* environ minus the names in extra, then extra; pointers only. */
static char **build_env(char *const *extra, bl_err *err)
{
    size_t ne = 0, nx = 0;
    while (environ && environ[ne])
        ne++;
    while (extra && extra[nx]) {
        if (env_name_len(extra[nx]) <= 0)
            return bl_err_set(err, "environment entry '%s': expected "
                              "NAME=VALUE", extra[nx]), NULL;
        nx++;
    }
    char **envp = malloc((ne + nx + 1) * sizeof *envp);
    if (!envp)
        return bl_err_set(err, "out of memory building the environment"),
               NULL;
    size_t k = 0;
    for (size_t i = 0; i < ne; i++) {
        int len = env_name_len(environ[i]), replaced = 0;
        for (size_t j = 0; len > 0 && j < nx && !replaced; j++)
            replaced = env_name_len(extra[j]) == len &&
                       strncmp(environ[i], extra[j], (size_t)len) == 0;
        if (!replaced)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < nx; j++)
        envp[k++] = extra[j];
    envp[k] = NULL;
    return envp;
}

/* --- the supervisor ------------------------------------------------------- */

/* The harness does not start the program itself but a supervisor: a fork of
 * the harness that leads a new session, starts the program in it (same
 * process group) and ends with the program's status. It asks the kernel for
 * SIGUSR2 when the harness dies (PR_SET_PDEATHSIG), and then kills every
 * process of its session: a harness killed with SIGKILL takes its run with
 * it instead of leaving mpirun and its ranks running. The supervisor keeps
 * every descriptor the harness had (a fork), so a lock the harness holds
 * (the sweep's) is only released once the run is dead. */
#define PDEATH_SIG SIGUSR2
#define ORPHAN_KILL_S 10.0

static void posix_spawn_errno(int rc, char *const *argv, bl_err *err)
{
    if (rc == ENOENT && !strchr(argv[0], '/'))
        bl_err_set(err, "'%s': program not found in PATH", argv[0]);
    else if (rc == ENOENT)
        bl_err_set(err, "'%s': no such program", argv[0]);
    else if (rc == EACCES)
        bl_err_set(err, "'%s': not an executable program (%s)", argv[0],
                   strerror(rc));
    else if (rc == ENOEXEC)
        bl_err_set(err, "'%s': not a program this system can run (%s)",
                   argv[0], strerror(rc));
    else
        bl_err_set(err, "'%s': cannot start: %s", argv[0], strerror(rc));
}

/* The harness is gone: nobody will end this run, so end it now. */
static _Noreturn void kill_own_session(void)
{
    double until = bl_now_s() + ORPHAN_KILL_S;
    while (session_signal(getpid(), SIGKILL) > 0 && bl_now_s() < until) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    _exit(128 + SIGKILL);
}

/* Ends the supervisor the way the program ended, so that the harness sees
 * the program's exit status or signal. */
static _Noreturn void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        sigset_t one;
        setrlimit(RLIMIT_CORE, &none);  /* the program dumped its own */
        signal(sig, SIG_DFL);
        sigemptyset(&one);
        sigaddset(&one, sig);
        raise(sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

static _Noreturn void supervisor(char *const *argv, char **envp, int out_w,
                                 int err_w, int ready_w, pid_t harness)
{
    sigset_t all, none, wake;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid;
    int rc;
    /* Every signal blocked: the harness's SIGTERM to the run's group is for
     * the program; the supervisor only waits for it. */
    sigfillset(&all);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &all, NULL);
    setsid();
    prctl(PR_SET_PDEATHSIG, PDEATH_SIG, 0, 0, 0);
    if (getppid() != harness)
        _exit(127);  /* the harness died before we could start anything */
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    posix_spawn_file_actions_adddup2(&fa, err_w, 2);
    posix_spawnattr_init(&at);
    /* default dispositions and an empty mask, whatever the harness (or
     * the supervisor) ignores or blocks */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setsigmask(&at, &none);
    rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, envp);
    if (write(ready_w, &rc, sizeof rc) != (ssize_t)sizeof rc || rc != 0)
        _exit(127);
    close(ready_w);
    close(out_w);
    close(err_w);
    sigemptyset(&wake);
    sigaddset(&wake, SIGCHLD);
    sigaddset(&wake, PDEATH_SIG);
    for (;;) {
        struct timespec tick = {1, 0};  /* getppid() again, in case */
        int status, sig = sigtimedwait(&wake, NULL, &tick);
        if (sig == PDEATH_SIG || getppid() != harness)
            kill_own_session();
        if (waitpid(pid, &status, WNOHANG) == pid)
            end_like(status);
    }
}

/* Starts the supervisor, which starts argv; *pid is the supervisor's: the
 * leader of the run's session and process group. */
static int spawn_child(char *const *argv, char **envp, int out_w, int err_w,
                       pid_t *pid, bl_err *err)
{
    int ready[2], rc = 0;
    pid_t harness = getpid();
    ssize_t n;
    if (pipe2(ready, O_CLOEXEC) != 0)
        return bl_err_set(err, "cannot create a pipe: %s", strerror(errno));
    *pid = fork();
    if (*pid < 0) {
        close(ready[0]);
        close(ready[1]);
        return bl_err_set(err, "'%s': cannot start: fork: %s", argv[0],
                          strerror(errno));
    }
    if (*pid == 0) {
        close(ready[0]);
        supervisor(argv, envp, out_w, err_w, ready[1], harness);
    }
    close(ready[1]);
    while ((n = read(ready[0], &rc, sizeof rc)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    if (n == (ssize_t)sizeof rc && rc == 0)
        return 0;
    while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof rc)
        return bl_err_set(err, "'%s': cannot start: the supervisor ended "
                          "before it", argv[0]);
    posix_spawn_errno(rc, argv, err);
    return -1;
}

/* --- the run -------------------------------------------------------------- */

typedef struct run_state {
    pid_t pid;
    int pidfd;
    int fd[2];              /* stdout, stderr pipes; -1 once closed */
    int logfd[2];
    bl_launch_output *cap[2];
    int *log_errno;
    double t0, deadline, kill_at, drain_until, grace;
    int term_sent, kill_sent, ended;
} run_state;

static int leader_ended(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* WNOWAIT: leave it a zombie, so its pid (= group = session id) stays
     * ours until we have killed what it left behind */
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == pid;
}

static void read_pipe(run_state *st, int i)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(st->fd[i], buf, sizeof buf);
        if (n > 0) {
            bl_launch_output_add(st->cap[i], buf, (size_t)n);
            bl_launch_log_write(st->logfd[i], buf, (size_t)n, st->log_errno);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        close(st->fd[i]);  /* EOF or error */
        st->fd[i] = -1;
        return;
    }
}

static void end_run(run_state *st, int sig, double now)
{
    kill_run(st->pid, sig);
    if (sig == SIGTERM) {
        st->term_sent = 1;
        st->kill_at = now + st->grace;
    } else {
        st->kill_sent = 1;
    }
}

/* One pass of the control logic; returns 1 when the run is over. The end
 * comes first: a run that ended while the harness was stopped was in time. */
static int step(run_state *st, bl_launch_result *res, double now)
{
    if (!st->ended && leader_ended(st->pid)) {
        st->ended = 1;
        /* ended by bl_launch_interrupt's SIGTERM before a pass saw it */
        if (g_interrupt && !st->term_sent)
            res->interrupted = 1;
        res->wall_s = now - st->t0;
        res->strays = kill_strays(st->pid);
        st->drain_until = bl_now_s() + DRAIN_S;
    }
    if (!st->ended) {
        if (g_interrupt && !st->term_sent) {
            res->interrupted = 1;
            end_run(st, SIGTERM, now);
        }
        if (st->deadline > 0 && now >= st->deadline && !st->term_sent) {
            res->timed_out = 1;
            end_run(st, SIGTERM, now);
        }
        if (st->term_sent && !st->kill_sent && now >= st->kill_at) {
            res->killed = 1;
            end_run(st, SIGKILL, now);
        }
    }
    return st->ended && ((st->fd[0] < 0 && st->fd[1] < 0) ||
                         now >= st->drain_until);
}

/* A pass of the loop that waited asked_ms took took_s (a stop anywhere in
 * it counts): the excess, the harness stopped, moves deadline and grace. */
static void forgive_stop(run_state *st, int asked_ms, double took_s)
{
    double late = asked_ms >= 0 ? took_s - asked_ms / 1000.0 : 0;
    if (late < STOP_GAP_S || st->ended)
        return;
    if (st->deadline > 0)
        st->deadline += late;
    if (st->term_sent && !st->kill_sent)
        st->kill_at += late;
}

static int poll_timeout_ms(const run_state *st, double now)
{
    double next = INFINITY;
    if (st->ended) {
        next = st->drain_until;
    } else {
        if (st->deadline > 0 && !st->term_sent)
            next = st->deadline;
        if (st->term_sent && !st->kill_sent)
            next = st->kill_at;
    }
    int ms = -1;
    if (isfinite(next))
        ms = next <= now ? 0 : (int)ceil((next - now) * 1000.0);
    if (!st->ended && st->pidfd < 0 && (ms < 0 || ms > FALLBACK_POLL_MS))
        ms = FALLBACK_POLL_MS;
    if (!st->ended && isfinite(next) && ms > DEADLINE_POLL_MS)
        ms = DEADLINE_POLL_MS;
    return ms;
}

static void drain_wake(void)
{
    char buf[64];
    while (read(g_wake[0], buf, sizeof buf) > 0)
        ;
}

static void supervise(run_state *st, bl_launch_result *res)
{
    /* first pass from t0, asked 0 ms: a stop during the spawn counts */
    double prev = st->t0;
    int ms = 0;
    for (;;) {
        double now = bl_now_s();
        forgive_stop(st, ms, now - prev);
        prev = now;
        if (step(st, res, now))
            break;
        struct pollfd pf[4];
        int n = 0, idx[2] = {-1, -1};
        for (int i = 0; i < 2; i++)
            if (st->fd[i] >= 0) {
                idx[i] = n;
                pf[n++] = (struct pollfd){.fd = st->fd[i], .events = POLLIN};
            }
        if (!st->ended && st->pidfd >= 0)
            pf[n++] = (struct pollfd){.fd = st->pidfd, .events = POLLIN};
        if (g_wake[0] >= 0)
            pf[n++] = (struct pollfd){.fd = g_wake[0], .events = POLLIN};
        ms = poll_timeout_ms(st, now);
        int r = poll(pf, (nfds_t)n, ms);
        if (r <= 0)
            continue;  /* timeout or EINTR: step() decides */
        for (int i = 0; i < 2; i++)
            if (idx[i] >= 0 && pf[idx[i]].revents)
                read_pipe(st, i);
        if (g_wake[0] >= 0 && pf[n - 1].revents)
            drain_wake();
    }
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int open_pipes(int out[2], int errp[2], bl_err *err)
{
    out[0] = out[1] = errp[0] = errp[1] = -1;
    if (g_wake[0] < 0 && pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        g_wake[0] = g_wake[1] = -1;  /* then EINTR alone wakes poll() */
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)
        return bl_err_set(err, "cannot create pipes: %s", strerror(errno));
    set_nonblock(out[0]);
    set_nonblock(errp[0]);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int bl_launch_run(const bl_launch_opts *o, bl_launch_result *res, bl_err *err)
{
    memset(res, 0, sizeof *res);
    bl_launch_output_init(&res->out,
                          o->head_max ? o->head_max : BL_LAUNCH_HEAD_MAX,
                          o->tail_max ? o->tail_max : BL_LAUNCH_TAIL_MAX);
    bl_launch_output_init(&res->errs, res->out.head_max, res->out.tail_max);
    if (!o->argv || !o->argv[0] || !o->argv[0][0])
        return bl_err_set(err, "launch: empty command line");
    if (g_interrupt) {
        res->interrupted = 1;
        return bl_err_set(err, "'%s': not started: interrupted", o->argv[0]);
    }
    char **envp = build_env(o->env, err);
    if (!envp)
        return -1;
    int same = o->stdout_path && o->stderr_path &&
               strcmp(o->stdout_path, o->stderr_path) == 0;
    bl_launch_logfile lo, le;
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, rc = -1;
    bl_launch_log_open(&le, NULL, NULL, NULL);
    if (bl_launch_log_open(&lo, o->log_dirfd, o->stdout_path, err) != 0 ||
        (!same &&
         bl_launch_log_open(&le, o->log_dirfd, o->stderr_path, err) != 0) ||
        open_pipes(out, errp, err) != 0)
        goto done;
    pid_t pid = 0;
    double t0 = bl_now_s();
    if (spawn_child(o->argv, envp, out[1], errp[1], &pid, err) != 0)
        goto done;
    g_pid = pid;
    close_fd(&out[1]);
    close_fd(&errp[1]);

    run_state st = {
        .pid = pid, .pidfd = (int)syscall(SYS_pidfd_open, pid, 0),
        .fd = {out[0], errp[0]}, .logfd = {lo.fd, same ? lo.fd : le.fd},
        .cap = {&res->out, &res->errs}, .log_errno = &res->log_errno,
        .t0 = t0, .deadline = o->timeout_s > 0 ? t0 + o->timeout_s : 0,
        .grace = o->grace_s > 0 ? o->grace_s : BL_LAUNCH_GRACE_S,
    };
    out[0] = errp[0] = -1;  /* owned by st now */
    supervise(&st, res);

    int status = 0, w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    g_pid = 0;
    res->pid = pid;
    if (w != pid) {
        /* reaped elsewhere (a SIGCHLD handler): the status is lost */
    } else if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->term_signal = WTERMSIG(status);
    }
    close_fd(&st.fd[0]);
    close_fd(&st.fd[1]);
    close_fd(&st.pidfd);
    rc = 0;
done:
    bl_launch_log_close(&lo, rc == 0, &res->log_errno);
    bl_launch_log_close(&le, rc == 0, &res->log_errno);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    bl_launch_output_finish(&res->out);
    bl_launch_output_finish(&res->errs);
    free(envp);
    return rc;
}
