/* The noisy neighbour (noisy.h): its spec, and starting, killing and
 * reaping its hogs. */
#include "sweep/noisy.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuset.h"
#include "proc/launch.h"
#include "sys_util.h"

/* How long a hog may take to say it runs (a memory hog touches its
 * buffer first). */
#define READY_WAIT_S 30.0

#define ACCEPTED                                                            \
    "accepted: none, cpu, mem or cpu+mem, then optionally ,free (the "     \
    "default) or ,pinned=CPUS (a CPU list such as 1 or 0-1), e.g. "        \
    "cpu+mem,pinned=1"

int bl_noisy_parse(const char *text, bl_noisy *out, bl_err *err)
{
    char kinds[32];
    const char *comma = strchr(text, ',');
    size_t n = comma ? (size_t)(comma - text) : strlen(text);
    memset(out, 0, sizeof *out);
    if (n >= sizeof kinds)
        return bl_err_set(err, "noisy '%s': %s", text, ACCEPTED);
    memcpy(kinds, text, n);
    kinds[n] = '\0';
    if (strcmp(kinds, "none") == 0) {
        if (comma)
            return bl_err_set(err, "noisy '%s': none takes no placement; %s",
                              text, ACCEPTED);
        return 0;
    }
    out->cpu = !strcmp(kinds, "cpu") || !strcmp(kinds, "cpu+mem") ||
               !strcmp(kinds, "mem+cpu");
    out->mem = !strcmp(kinds, "mem") || !strcmp(kinds, "cpu+mem") ||
               !strcmp(kinds, "mem+cpu");
    if (!out->cpu && !out->mem)
        return bl_err_set(err, "noisy '%s': unknown hog '%s'; %s", text,
                          kinds, ACCEPTED);
    if (!comma || strcmp(comma + 1, "free") == 0)
        return 0;
    if (strncmp(comma + 1, "pinned=", 7) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        bl_err e;
        int rc = set ? bl_cpuset_parse_list(comma + 8, set, &e) : -1;
        if (rc == 0 && bl_cpuset_format_list(set, out->pinned,
                                             sizeof out->pinned) >=
                           (int)sizeof out->pinned)
            rc = -1;
        hwloc_bitmap_free(set);
        if (rc == 0)
            return 0;
        memset(out, 0, sizeof *out);
        return bl_err_set(err, "noisy '%s': pinned= needs a CPU list such as "
                          "1 or 0-1", text);
    }
    memset(out, 0, sizeof *out);
    return bl_err_set(err, "noisy '%s': '%s' is not a placement; %s", text,
                      comma + 1, ACCEPTED);
}

void bl_noisy_text(const bl_noisy *n, char *buf, size_t len)
{
    if (!bl_noisy_any(n))
        snprintf(buf, len, "none");
    else
        snprintf(buf, len, "%s%s,%s%s",
                 n->cpu ? "cpu" : "", n->cpu && n->mem ? "+mem"
                                      : n->mem ? "mem" : "",
                 n->pinned[0] ? "pinned=" : "free", n->pinned);
}

int bl_noisy_any(const bl_noisy *n)
{
    return n->cpu || n->mem;
}

int bl_noisy_check(const bl_noisy *n, hwloc_topology_t topo, bl_err *err)
{
    hwloc_bitmap_t set;
    int ok;
    char have[256];
    if (!n->pinned[0])
        return 0;
    if (!(set = hwloc_bitmap_alloc()) ||
        bl_cpuset_parse_list(n->pinned, set, err) < 0) {
        hwloc_bitmap_free(set);
        return -1;
    }
    ok = hwloc_bitmap_isincluded(set, hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_free(set);
    if (ok)
        return 0;
    bl_cpuset_format_list(hwloc_topology_get_allowed_cpuset(topo), have,
                          sizeof have);
    return bl_err_set(err, "noisy: pinned=%s, but this node's CPUs are %s",
                      n->pinned, have);
}

/* In the child, between fork and exec: its own process group, death with
 * the harness, the CPUs, no descriptor of the harness but the ready pipe.
 * Only async-signal-safe calls. */
static void child(char *const *argv, pid_t harness, const cpu_set_t *cpus,
                  int ready_w)
{
    int devnull = open("/dev/null", O_RDONLY);
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != harness)
        _exit(127);  /* the harness is gone already */
    if (cpus && sched_setaffinity(0, sizeof *cpus, cpus) != 0)
        _exit(126);
    if (devnull >= 0) {
        dup2(devnull, 0);
        close(devnull);
    }
    for (int fd = 3; fd < 1024; fd++)
        if (fd != ready_w)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    fcntl(ready_w, F_SETFD, 0);
    /* the running program itself, even if its file was replaced since
     * (a rebuild during a sweep); argv[0] is its path for people */
    execv("/proc/self/exe", argv);
    execv(argv[0], argv);
    _exit(127);
}

static void reap(bl_noisy_proc *p)
{
    struct rusage ru;
    int status;
    char path[64], buf[1024];
    FILE *f;
    if (p->pid <= 0)
        return;
    /* where it ran last: field 39 of /proc/PID/stat, read before the kill */
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
    p->last_cpu = -1;
    if ((f = fopen(path, "re")) != NULL) {
        if (fgets(buf, sizeof buf, f)) {
            const char *s = strrchr(buf, ')');
            int field = 2;
            for (; s && *s && field < 39; s++)
                if (*s == ' ')
                    field++;
            if (s && field == 39)
                p->last_cpu = atoi(s);
        }
        fclose(f);
    }
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    memset(&ru, 0, sizeof ru);
    while (wait4(p->pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    p->wall_s = bl_now_s() - p->started;
    p->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    p->pid = 0;
}

void bl_noisy_stop(bl_noisy_run *run)
{
    for (int i = 0; i < run->n; i++)
        reap(&run->procs[i]);
}

/* Waits for the hog's byte on fd: 0, -1 (it died or said nothing in
 * time), -2 (the harness was interrupted). */
static int wait_ready(int fd)
{
    double until = bl_now_s() + READY_WAIT_S;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        double left = until - bl_now_s();
        char c;
        int rc;
        if (bl_launch_interrupted())
            return -2;
        if (left <= 0)
            return -1;
        rc = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            return -1;
        return read(fd, &c, 1) == 1 ? 0 : -1;
    }
}

static int start_one(const char *kind, const bl_noisy *n, const char *exe,
                     bl_noisy_proc *p, bl_err *err)
{
    char fdtext[16], parent[24];
    char *argv[10];
    int pipefd[2], rc;
    cpu_set_t cpus, *pin = NULL;
    pid_t harness = getpid();

    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->last_cpu = -1;
    if (n->pinned[0]) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        int i;
        CPU_ZERO(&cpus);
        if (!set || bl_cpuset_parse_list(n->pinned, set, err) < 0) {
            hwloc_bitmap_free(set);
            return -1;
        }
        hwloc_bitmap_foreach_begin(i, set)
            if (i < CPU_SETSIZE)
                CPU_SET(i, &cpus);
        hwloc_bitmap_foreach_end();
        hwloc_bitmap_free(set);
        pin = &cpus;
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return bl_err_set(err, "noisy neighbour: pipe: %s", strerror(errno));
    snprintf(fdtext, sizeof fdtext, "%d", pipefd[1]);
    snprintf(parent, sizeof parent, "%d", (int)harness);
    argv[0] = (char *)exe;
    argv[1] = "hog";
    argv[2] = (char *)kind;
    argv[3] = "--ready-fd";
    argv[4] = fdtext;
    argv[5] = "--parent";
    argv[6] = parent;
    argv[7] = NULL;
    snprintf(p->argv, sizeof p->argv, "%s hog %s --ready-fd %s --parent %s",
             exe, kind, fdtext, parent);
    p->started = bl_now_s();
    p->pid = fork();
    if (p->pid == 0) {
        close(pipefd[0]);
        child(argv, harness, pin, pipefd[1]);
    }
    close(pipefd[1]);
    if (p->pid < 0) {
        close(pipefd[0]);
        p->pid = 0;
        return bl_err_set(err, "noisy neighbour: fork: %s", strerror(errno));
    }
    p->started_pid = p->pid;
    setpgid(p->pid, p->pid);  /* also here: no window where it is in ours */
    rc = wait_ready(pipefd[0]);
    close(pipefd[0]);
    if (rc == 0) {
        cpu_set_t got;
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        CPU_ZERO(&got);
        if (set && sched_getaffinity(p->pid, sizeof got, &got) == 0) {
            for (int i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &got))
                    hwloc_bitmap_set(set, (unsigned)i);
            bl_cpuset_format_list(set, p->cpus, sizeof p->cpus);
        }
        hwloc_bitmap_free(set);
        return 0;
    }
    reap(p);
    if (rc == -2)
        return -2;
    return bl_err_set(err, "noisy neighbour: '%s' did not start (it died or "
                      "said nothing in %.0f s)", p->argv, READY_WAIT_S);
}

int bl_noisy_start(const bl_noisy *n, const char *exe, bl_noisy_run *run,
                   bl_err *err)
{
    static const char *const kinds[] = {"cpu", "mem"};
    memset(run, 0, sizeof *run);
    for (int k = 0; k < 2; k++) {
        int rc;
        if (!(k == 0 ? n->cpu : n->mem))
            continue;
        rc = start_one(kinds[k], n, exe, &run->procs[run->n], err);
        if (rc < 0) {
            bl_noisy_stop(run);
            return rc;
        }
        run->n++;
    }
    return 0;
}
