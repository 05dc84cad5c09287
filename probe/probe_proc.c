/* What the probe reads from /proc: one thread's last CPU (stat), its
 * migrations and context switches (sched, status), the process's pages per
 * NUMA node (/proc/self/numa_maps) and its argv[0] (/proc/self/cmdline);
 * open/read/close only, no stdio, except numa_maps, whose lines can be
 * long and which is read once or twice. A thread's allowed set comes from
 * sched_getaffinity(tid), the mask Cpus_allowed_list shows (less the CPUs
 * that are offline), as the interposers read it: the same source for both,
 * one system call instead of parsing status every period. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe_priv.h"

#define BP_PAGE_SLOTS 256 /* distinct (node, page size) pairs */

/* The whole of a small /proc file into buf (NUL-terminated); bytes read or
 * -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
    ssize_t n, got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while ((size_t)got < len - 1 &&
           (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
        got += n;
    close(fd);
    buf[got] = '\0';
    return got;
}

/* The number after "key" and the separators that follow it, or -1. */
static long long field_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ' || *p == '\t' || *p == ':')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    return strtoll(p, NULL, 10);
}

/* Field 39 (processor) of a stat line. The command (field 2) is in
 * parentheses and may hold spaces and parentheses: count from the last ')'. */
static int stat_cpu(const char *stat)
{
    const char *p = strrchr(stat, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 2; field < 38; field++) { /* skip fields 3..38 */
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    return atoi(p + 1);
}

int bp_task_read(pid_t tid, bp_task_sample *s, int counters)
{
    /* status and sched are under 3 KiB; kept small, since this runs on
     * the program's thread stacks (the trampoline, the end of a thread) */
    char path[96], buf[4096];
    int saved = errno;
    s->cpu = -1;
    s->migrations = s->vcsw = s->ivcsw = -1;
    s->allowed[0] = '\0';
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)tid);
    if (read_small(path, buf, sizeof buf) <= 0) {
        errno = saved;
        return -1; /* gone */
    }
    s->cpu = stat_cpu(buf);
    if (bp_get_mask_text(tid, s->allowed, sizeof s->allowed) != 0)
        s->allowed[0] = '\0';
    if (counters) {
        snprintf(path, sizeof path, "/proc/self/task/%ld/status", (long)tid);
        if (read_small(path, buf, sizeof buf) > 0) {
            s->vcsw = field_after(buf, "\nvoluntary_ctxt_switches");
            s->ivcsw = field_after(buf, "\nnonvoluntary_ctxt_switches");
        }
        snprintf(path, sizeof path, "/proc/self/task/%ld/sched", (long)tid);
        if (read_small(path, buf, sizeof buf) > 0)
            s->migrations = field_after(buf, "se.nr_migrations");
    }
    errno = saved;
    return 0;
}

/* t's stat file, opened once and moved above the program's descriptors,
 * while fewer than BP_STAT_FDS are kept; -1: read it by its path. */
static int stat_fd_of(bp_thread *t)
{
    char path[64];
    struct stat st;
    int fd, high;
    if (t->stat_fd >= 0 || bp.stat_fds >= BP_STAT_FDS)
        return t->stat_fd;
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)t->tid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    high = fcntl(fd, F_DUPFD_CLOEXEC, BP_FD_FLOOR);
    close(fd);
    if (high >= 0 && fstat(high, &st) != 0) {
        close(high);
        high = -1;
    }
    if (high < 0)
        return -1;
    t->stat_fd = high;
    t->stat_ino = (unsigned long)st.st_ino;
    bp.stat_fds++;
    return high;
}

/* Forgets t's kept descriptor and closes it when it is still the
 * probe's (a program that closed it may have opened a file of its own
 * under the same number: another inode). */
static void stat_fd_drop(bp_thread *t)
{
    struct stat st;
    if (t->stat_fd < 0)
        return;
    if (fstat(t->stat_fd, &st) == 0 &&
        (unsigned long)st.st_ino == t->stat_ino)
        close(t->stat_fd);
    t->stat_fd = -1;
    bp.stat_fds--;
}

void bp_task_forget(bp_thread *t)
{
    int saved = errno;
    stat_fd_drop(t);
    errno = saved;
}

void bp_task_forget_all(void)
{
    for (int i = 0; i < BP_MAX_THREADS; i++)
        if (bp.slot_tid[i])
            stat_fd_drop(&bp.threads[i]); /* fstat, close: signal-safe */
}

/* The stat line of t through its kept descriptor: a pread, no open, no
 * path. A line that is not t's (its number now another file of the
 * program's) or a failed read falls back to the path. */
static ssize_t read_stat(bp_thread *t, char *buf, size_t len)
{
    char head[32];
    int fd = stat_fd_of(t), n = snprintf(head, sizeof head, "%ld (",
                                         (long)t->tid);
    if (fd >= 0) {
        ssize_t got = pread(fd, buf, len - 1, 0);
        if (got > n && memcmp(buf, head, (size_t)n) == 0) {
            buf[got] = '\0';
            return got;
        }
        stat_fd_drop(t);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)t->tid);
    return read_small(path, buf, len);
}

int bp_task_sample_fast(bp_thread *t, bp_task_sample *s)
{
    unsigned char mask[BP_MASK_BYTES];
    char buf[1024];
    int saved = errno;
    long n;
    s->cpu = -1;
    s->migrations = s->vcsw = s->ivcsw = -1;
    s->allowed[0] = '\0';
    if (read_stat(t, buf, sizeof buf) <= 0) {
        errno = saved;
        return -1; /* gone */
    }
    s->cpu = stat_cpu(buf);
    n = syscall(SYS_sched_getaffinity, t->tid, sizeof mask, mask);
    if (n > 0 && (n != t->mask_len || memcmp(mask, t->mask, (size_t)n))) {
        memcpy(t->mask, mask, (size_t)n);
        t->mask_len = n;
        bp_mask_text(mask, (size_t)n, s->allowed, sizeof s->allowed);
    }
    errno = saved;
    return 0;
}

typedef struct page_count {
    long node, kb;
    long long pages;
} page_count;

/* One numa_maps line's N<node>=<pages> into counts, under the line's
 * kernelpagesize_kB. */
static void count_line(char *line, page_count *counts, int *n)
{
    long kb = 0;
    char *save = NULL;
    char *kbp = strstr(line, "kernelpagesize_kB=");
    if (kbp)
        kb = strtol(kbp + strlen("kernelpagesize_kB="), NULL, 10);
    for (char *tok = strtok_r(line, " \n", &save); tok;
         tok = strtok_r(NULL, " \n", &save)) {
        char *end;
        long node;
        long long pages;
        if (tok[0] != 'N' || tok[1] < '0' || tok[1] > '9')
            continue;
        node = strtol(tok + 1, &end, 10);
        if (*end != '=')
            continue;
        pages = strtoll(end + 1, NULL, 10);
        int i = 0;
        while (i < *n && !(counts[i].node == node && counts[i].kb == kb))
            i++;
        if (i == *n) {
            if (*n == BP_PAGE_SLOTS)
                continue;
            counts[i] = (page_count){node, kb, 0};
            (*n)++;
        }
        counts[i].pages += pages;
    }
}

/* "pages node=N n=PAGES kernelpagesize_kB=K at=AT" per node and page size,
 * or "pages unavailable=1 at=AT" without numa_maps (a kernel without NUMA). */
void bp_pages_record(const char *at)
{
    static page_count counts[BP_PAGE_SLOTS];
    int n = 0, saved = errno;
    char *line = NULL;
    size_t cap = 0;
    FILE *f = fopen("/proc/self/numa_maps", "re");
    if (!f) {
        bp_emit("pages unavailable=1 at=%s", at);
        errno = saved;
        return;
    }
    while (getline(&line, &cap, f) > 0)
        count_line(line, counts, &n);
    free(line);
    fclose(f);
    for (int i = 0; i < n; i++)
        bp_emit("pages node=%ld n=%lld kernelpagesize_kB=%ld at=%s",
                counts[i].node, counts[i].pages, counts[i].kb, at);
    if (n == 0)
        bp_emit("pages unavailable=1 at=%s", at);
    errno = saved;
}

long long bp_self_starttime(void)
{
    char buf[1024], *p, *end;
    long long v;
    if (read_small("/proc/self/stat", buf, sizeof buf) <= 0 ||
        !(p = strrchr(buf, ')')))
        return 0;
    /* field 22; the fields after the command's ")" start at 3 */
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    v = strtoll(p + 1, &end, 10);
    return end == p + 1 ? 0 : v;
}

int bp_self_argv0(char *out, size_t len)
{
    char buf[4096];
    if (read_small("/proc/self/cmdline", buf, sizeof buf) <= 0) {
        out[0] = '\0';
        return -1;
    }
    snprintf(out, len, "%s", buf);
    return 0;
}
