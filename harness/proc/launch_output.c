/* The output side of a launch (launch_priv.h): the captured head and tail of
 * stdout and stderr, what callers read of them (launch.h), and the log files
 * a run's output is copied into as it arrives. */
#include "proc/launch_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- captured output ------------------------------------------------------ */

void bl_launch_output_init(bl_launch_output *o, size_t head_max,
                           size_t tail_max)
{
    memset(o, 0, sizeof *o);
    o->head_max = head_max;
    o->tail_max = tail_max;
}

void bl_launch_output_add(bl_launch_output *o, const char *p, size_t n)
{
    o->total += n;
    if (o->head_len < o->head_max) {
        size_t k = o->head_max - o->head_len;
        if (k > n)
            k = n;
        if (o->head_len + k + 1 > o->head_alloc) {
            size_t want = o->head_alloc ? o->head_alloc : 4096;
            while (want < o->head_len + k + 1)
                want *= 2;
            if (want > o->head_max + 1)
                want = o->head_max + 1;
            char *h = realloc(o->head, want);
            if (!h)
                return;  /* out of memory: the bytes count as dropped */
            o->head = h;
            o->head_alloc = want;
        }
        memcpy(o->head + o->head_len, p, k);
        o->head_len += k;
        p += k;
        n -= k;
    }
    if (n == 0 || o->tail_max == 0)
        return;
    if (!o->tail && !(o->tail = malloc(o->tail_max + 1)))
        return;
    if (n >= o->tail_max) {  /* only the last tail_max bytes survive */
        memcpy(o->tail, p + n - o->tail_max, o->tail_max);
        o->tail_pos = 0;
        o->tail_len = o->tail_max;
        return;
    }
    size_t first = o->tail_max - o->tail_pos;  /* room before wrapping */
    if (first > n)
        first = n;
    memcpy(o->tail + o->tail_pos, p, first);
    memcpy(o->tail, p + first, n - first);
    o->tail_pos = (o->tail_pos + n) % o->tail_max;
    o->tail_len = o->tail_len + n > o->tail_max ? o->tail_max : o->tail_len + n;
}

/* Puts the tail ring in order and terminates both strings. */
void bl_launch_output_finish(bl_launch_output *o)
{
    if (!o->head)
        o->head = calloc(1, 1);
    else
        o->head[o->head_len] = '\0';
    if (o->tail && o->tail_len == o->tail_max && o->tail_pos != 0) {
        char *lin = malloc(o->tail_max + 1);
        if (lin) {
            size_t a = o->tail_max - o->tail_pos;
            memcpy(lin, o->tail + o->tail_pos, a);
            memcpy(lin + a, o->tail, o->tail_pos);
            free(o->tail);
            o->tail = lin;
        }
    }
    o->tail_pos = 0;
    if (!o->tail)
        o->tail = calloc(1, 1);
    else
        o->tail[o->tail_len] = '\0';
    o->dropped = o->total - o->head_len - o->tail_len;
}

int bl_launch_require_success(const bl_launch_result *res,
                              const bl_launch_opts *opts, const char *what,
                              int lines, bl_err *err)
{
    char how[160], last[512];
    if (res->exited && res->exit_status == 0 && !res->timed_out)
        return 0;
    bl_launch_describe(res, opts, how, sizeof how);
    bl_launch_last_lines(&res->errs, lines, last, sizeof last);
    return bl_err_set(err, "%s: %s%s%s", what, how, *last ? ": " : "", last);
}

char *bl_launch_output_text(const bl_launch_output *o)
{
    char gap[80] = "";
    if (o->dropped)
        snprintf(gap, sizeof gap, "\n[... %zu bytes not kept ...]\n",
                 o->dropped);
    size_t glen = strlen(gap);
    char *s = malloc(o->head_len + glen + o->tail_len + 1);
    if (!s)
        return NULL;
    if (o->head_len)
        memcpy(s, o->head, o->head_len);
    memcpy(s + o->head_len, gap, glen);
    if (o->tail_len)
        memcpy(s + o->head_len + glen, o->tail, o->tail_len);
    s[o->head_len + glen + o->tail_len] = '\0';
    return s;
}

size_t bl_launch_last_lines(const bl_launch_output *o, int n, char *buf,
                            size_t len)
{
    const char *s = o->tail_len ? o->tail : o->head;
    size_t end = o->tail_len ? o->tail_len : o->head_len;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (!s || n <= 0)
        return 0;
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    int lines = 0;
    while (start > 0) {
        if (s[start - 1] == '\n' && ++lines == n)
            break;
        start--;
    }
    if (end - start > len - 1)  /* keep the end: the last words matter */
        start = end - (len - 1);
    memcpy(buf, s + start, end - start);
    buf[end - start] = '\0';
    return end - start;
}

/* --- log files ------------------------------------------------------------ */

/* The name of a log file as opened: relative to l->dirfd. */
static const char *log_name(const bl_launch_logfile *l, const char *path)
{
    const char *slash = strrchr(path, '/');
    return l->dirfd == AT_FDCWD || !slash ? path : slash + 1;
}

int bl_launch_log_open(bl_launch_logfile *l, const int *dirfd,
                       const char *path, bl_err *err)
{
    l->path = path;
    l->fd = -1;
    l->part = NULL;
    l->dirfd = dirfd ? *dirfd : AT_FDCWD;
    if (!path)
        return 0;
    size_t n = strlen(path) + sizeof ".part";
    if (!(l->part = malloc(n)))
        return bl_err_set(err, "out of memory");
    snprintf(l->part, n, "%s.part", path);
    /* never through a link: it would write the log wherever it points */
    l->fd = openat(l->dirfd, log_name(l, l->part),
                   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (l->fd < 0)
        return bl_err_set(err, "log file '%s': %s", l->part,
                          errno == ELOOP ? "a symbolic link: a log is not "
                                           "written through a link"
                                         : strerror(errno));
    return 0;
}

void bl_launch_log_write(int fd, const char *p, size_t n, int *log_errno)
{
    while (fd >= 0 && n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!*log_errno)
                *log_errno = w < 0 ? errno : EIO;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

void bl_launch_log_close(bl_launch_logfile *l, int keep, int *log_errno)
{
    if (l->fd >= 0) {
        if (close(l->fd) != 0 && !*log_errno)
            *log_errno = errno;
        if (keep &&
            renameat(l->dirfd, log_name(l, l->part), l->dirfd,
                     log_name(l, l->path)) != 0 &&
            !*log_errno)
            *log_errno = errno;
        if (!keep)
            unlinkat(l->dirfd, log_name(l, l->part), 0);
    }
    free(l->part);
    l->part = NULL;
    l->fd = -1;
}

int bl_launch_describe(const bl_launch_result *r, const bl_launch_opts *o,
                       char *buf, size_t len)
{
    const char *how = r->killed ? "killed with SIGKILL after the grace period"
                                : "ended by SIGTERM";
    if (r->timed_out)
        return snprintf(buf, len, "timed out after %g s (%s)", o->timeout_s,
                        how);
    if (r->interrupted)
        return snprintf(buf, len, "interrupted (%s)", how);
    if (r->exited)
        return snprintf(buf, len, "exit status %d", r->exit_status);
    if (r->term_signal)
        return snprintf(buf, len, "killed by signal %d (%s)", r->term_signal,
                        strsignal(r->term_signal));
    return snprintf(buf, len, "ended in an unknown way");
}

void bl_launch_result_free(bl_launch_result *res)
{
    free(res->out.head);
    free(res->out.tail);
    free(res->errs.head);
    free(res->errs.tail);
    res->out.head = res->out.tail = res->errs.head = res->errs.tail = NULL;
}
