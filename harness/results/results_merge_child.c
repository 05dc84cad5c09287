/* `bindlab merge` (results_file.h) in a child process. The merge
 * builds its output in memory; when memory runs out (a 10,000-node record,
 * a login node's limit), HDF5 1.10 does not always fail cleanly: its own
 * error paths (H5Ocopy, H5Tclose after a failed allocation) crash. The
 * child does the HDF5 work and sends back, through a pipe, each callback's
 * arguments and the result; a child that dies of a signal is an error
 * naming it, and OUT is left as it was. */
#include "results/results_merge_priv.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"

/* A message: one kind byte, a count byte, then each string as a uint32
 * length and its bytes. */
enum { MSG_UNREADABLE = 'u', MSG_CONFLICT = 'c', MSG_RESULT = 'r' };
#define MSG_STRINGS_MAX 5

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* 1 read whole, 0 at the end of the pipe, -1 cut short. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return got == 0 && n == 0 ? 0 : -1;
        got += (size_t)n;
    }
    return 1;
}

static void send_msg(int fd, char kind, int n, const char *const *s)
{
    unsigned char head[2] = {(unsigned char)kind, (unsigned char)n};
    write_all(fd, head, sizeof head);
    for (int i = 0; i < n; i++) {
        uint32_t len = (uint32_t)strlen(s[i] ? s[i] : "");
        write_all(fd, &len, sizeof len);
        write_all(fd, s[i] ? s[i] : "", len);
    }
}

/* One message into kind and s[0..*n) (malloc'ed); 0 at the end, -1 cut
 * short or malformed. */
static int recv_msg(int fd, char *kind, int *n, char **s)
{
    unsigned char head[2];
    int r = read_all(fd, head, sizeof head);
    *n = 0;
    if (r <= 0)
        return r;
    if (head[1] > MSG_STRINGS_MAX)
        return -1;
    *kind = (char)head[0];
    for (; *n < head[1]; (*n)++) {
        uint32_t len;
        if (read_all(fd, &len, sizeof len) != 1 || len > (1u << 24) ||
            !(s[*n] = malloc(len + 1)))
            return -1;
        if (len && read_all(fd, s[*n], len) != 1) {
            (*n)++;
            return -1;
        }
        s[*n][len] = '\0';
    }
    return 1;
}

static void child_unreadable(void *ctx, const char *file, const char *msg)
{
    const char *s[] = {file, msg};
    send_msg(*(int *)ctx, MSG_UNREADABLE, 2, s);
}

static void child_conflict(void *ctx, const char *run_id,
                           const char *kept_file, const char *kept_label,
                           const char *dropped_file,
                           const char *dropped_label)
{
    const char *s[] = {run_id, kept_file, kept_label, dropped_file,
                       dropped_label};
    send_msg(*(int *)ctx, MSG_CONFLICT, 5, s);
}

#ifdef BINDLAB_COVERAGE_COUNTERS
void __gcov_dump(void);     /* libgcov: write the counters now */
#endif

static _Noreturn void run_child(int fd, const bl_merge_job *job)
{
    bl_err err = {""};
    int dup = 0, unreadable = 0;
    int rc = bl_merge_here(job, job->conflict ? child_conflict : NULL,
                           child_unreadable, &fd, &dup, &unreadable, &err);
    char nums[64];
    const char *s[] = {nums, err.msg};
    snprintf(nums, sizeof nums, "%d %d %d", rc, dup, unreadable);
    send_msg(fd, MSG_RESULT, 2, s);
    close(fd);
#ifdef BINDLAB_COVERAGE_COUNTERS
    __gcov_dump();          /* _exit() skips gcov's exit handler */
#endif
    _exit(0);
}

/* Relays one message to job's callbacks, or takes the result. */
static void relay(const bl_merge_job *job, char kind, int n, char **s,
                  int *result, int *dup, int *unreadable, bl_err *err)
{
    if (kind == MSG_UNREADABLE && n == 2 && job->bad)
        job->bad(job->ctx, s[0], s[1]);
    else if (kind == MSG_CONFLICT && n == 5 && job->conflict)
        job->conflict(job->ctx, s[0], s[1], s[2], s[3], s[4]);
    else if (kind == MSG_RESULT && n == 2 &&
             sscanf(s[0], "%d %d %d", result, dup, unreadable) == 3)
        snprintf(err->msg, sizeof err->msg, "%s", s[1]);
}

/* What a signal that ended the child most likely means. */
static const char *signal_hint(int sig)
{
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT)
        return "; HDF5 crashes so when memory runs out, and the output is "
               "built in memory, about the size of the inputs together: "
               "raise the memory limit (ulimit -v) or merge fewer inputs "
               "at once";
    if (sig == SIGKILL)
        return "; killed, by the kernel when memory runs out (the output "
               "is built in memory, about the size of the inputs together) "
               "or by a kill";
    return "";
}

/* The child's end: its result, or an error naming how it died. */
static int child_ended(pid_t pid, int got_result, int result,
                       const char *out, bl_err *err)
{
    int status = 0;
    char tmp[4096];
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got_result && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return result;
    /* an atomic write cut short leaves its temporary (OUT.tmp.PID) */
    if (bl_textf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid) == 0)
        unlink(tmp);
    if (WIFSIGNALED(status))
        return bl_err_set(err, "%s not written: the merge ended on signal "
                          "%d (%s)%s", out, WTERMSIG(status),
                          strsignal(WTERMSIG(status)),
                          signal_hint(WTERMSIG(status)));
    return bl_err_set(err, "%s not written: the merge ended without a "
                      "result (exit status %d)", out,
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* bl_merge_here in a child, job's callbacks called here as the child
 * reports them. */
static int merge_in_child(const bl_merge_job *job, int *duplicates,
                          int *unreadable, bl_err *err)
{
    int fds[2], result = -1, got = 0, r;
    pid_t pid;
    *duplicates = 0;
    *unreadable = 0;
    if (pipe(fds) < 0)
        return bl_err_set(err, "cannot create a pipe: %s", strerror(errno));
    fflush(NULL); /* nothing buffered is written twice */
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return bl_err_set(err, "cannot start the merge: fork: %s",
                          strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], job);
    }
    close(fds[1]);
    err->msg[0] = '\0';
    for (;;) {
        char kind = 0, *s[MSG_STRINGS_MAX] = {0};
        int n;
        r = recv_msg(fds[0], &kind, &n, s);
        if (r == 1) {
            relay(job, kind, n, s, &result, duplicates, unreadable, err);
            got |= kind == MSG_RESULT;
        }
        for (int i = 0; i < n; i++)
            free(s[i]);
        if (r != 1)
            break;
    }
    close(fds[0]);
    return child_ended(pid, got, result, job->out, err);
}

int bl_h5_merge(const char *out, const char *command,
                   const char *const *inputs, size_t ninputs,
                   bl_h5_merge_conflict_fn *conflict,
                   bl_h5_merge_unreadable_fn *bad, void *ctx,
                   int *duplicates, int *unreadable, bl_err *err)
{
    bl_merge_job job = {out, command, inputs, ninputs, conflict, bad, ctx};
    *duplicates = 0;
    *unreadable = 0;
    /* a bad target is refused here, before any child starts */
    if (bl_atomic_check_target(out, err) < 0)
        return -1;
    return merge_in_child(&job, duplicates, unreadable, err);
}
