/* The probe's record file: DIR/bindlab-probe.HOST.PID.part, one line per
 * write(2) (O_APPEND: lines of several threads never interleave, and a
 * process killed mid-run leaves every line written so far), completed with
 * an "end" line and renamed to DIR/bindlab-probe.HOST.PID at a clean end.
 * Never fds 0-2 and never a descriptor the program reused: each write
 * first checks that the descriptor is still the file opened here (a
 * program that closes every descriptor and opens its own would otherwise
 * receive probe lines). Errors are silent: the probe then stops writing.
 * A process that execs runs no destructor: its file stays a .part, and
 * the probe in the new image sets it aside before opening its own. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe_priv.h"


static int out_fd = -1;
static dev_t out_dev;
static ino_t out_ino;
static char part_path[PATH_MAX], final_path[PATH_MAX];

/* The .part file of an earlier image of this process (same pid, same
 * start time: it exec'd) under this image's name: finished with an "exec"
 * line naming the new image and renamed to NAME.execK (K the first free
 * number from 1), so that opening this image's file does not truncate it.
 * A file of another process that had this pid (killed, pid reused) is set
 * aside unmarked, as NAME.part.K. With another host name (the host was
 * renamed between the images) the names differ: the reader pairs those
 * files by pid and start time. */
static void set_aside(const char *exe)
{
    char head[4096], want[96], aside[PATH_MAX + 24], e_exe[BP_PATH_TEXT];
    char line[BP_PATH_TEXT + 128];
    const char *proc, *eol, *ps;
    struct timespec wall;
    size_t base = strlen(final_path);
    int fd = open(part_path, O_RDWR | O_APPEND | O_CLOEXEC), ours = 0, n;
    ssize_t got;
    if (fd < 0)
        return;
    got = pread(fd, head, sizeof head - 1, 0);
    head[got > 0 ? got : 0] = '\0';
    snprintf(want, sizeof want, " pstart=%lld ", bp.pstart);
    proc = strstr(head, "\nprocess pid="); /* line 2: the process */
    eol = proc ? strchr(proc + 1, '\n') : NULL;
    ps = proc ? strstr(proc, want) : NULL;
    if (eol && ps && ps < eol && bp.pstart > 0 &&
        atol(proc + 13) == (long)bp.pid) {
        clock_gettime(CLOCK_REALTIME, &wall);
        bp_escape(exe, e_exe, sizeof e_exe);
        n = snprintf(line, sizeof line, "exec unix=%.6f exe=%s\n",
                     (double)wall.tv_sec + wall.tv_nsec * 1e-9, e_exe);
        ours = n > 0 && n < (int)sizeof line &&
               write(fd, line, (size_t)n) == n && fsync(fd) == 0;
    }
    close(fd);
    for (int k = 1; k < 1000; k++) {
        if (ours)
            snprintf(aside, sizeof aside, "%.*s.exec%d", (int)base,
                     final_path, k);
        else
            snprintf(aside, sizeof aside, "%s.%d", part_path, k);
        if (link(part_path, aside) == 0) { /* never over another file */
            unlink(part_path);
            return;
        }
        if (errno != EEXIST)
            return;
    }
}

int bp_out_open(const char *dir, const char *host, pid_t pid, const char *exe)
{
    char safe_host[256];
    struct stat st;
    int fd, high;
    bp_escape(host, safe_host, sizeof safe_host);
    for (char *c = safe_host; *c; c++)
        if (*c == '/' || *c == '%')
            *c = '_';
    if (snprintf(final_path, sizeof final_path, "%s/bindlab-probe.%s.%ld",
                 dir, safe_host, (long)pid) >= (int)sizeof final_path ||
        snprintf(part_path, sizeof part_path, "%s.part", final_path) >=
            (int)sizeof part_path)
        return -1;
    set_aside(exe);
    fd = open(part_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
              0644);
    if (fd < 0)
        return -1;
    high = fcntl(fd, F_DUPFD_CLOEXEC, BP_FD_FLOOR);
    close(fd);
    if (high < 0 || fstat(high, &st) != 0) {
        if (high >= 0)
            close(high);
        unlink(part_path);
        return -1;
    }
    out_fd = high;
    out_dev = st.st_dev;
    out_ino = st.st_ino;
    return 0;
}

/* Still our file, in the process that opened it. */
static int out_usable(void)
{
    struct stat st;
    if (out_fd < 0 || getpid() != bp.pid)
        return 0;
    return fstat(out_fd, &st) == 0 && st.st_dev == out_dev &&
           st.st_ino == out_ino;
}

void bp_emit(const char *fmt, ...)
{
    char line[BP_LINE_MAX];
    int saved = errno, n;
    va_list ap;
    if (!bp.enabled || !out_usable()) {
        errno = saved;
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 1)
        n = snprintf(line, sizeof line - 1, "note what=line_too_long");
    line[n++] = '\n';
    if (write(out_fd, line, (size_t)n) != n)
        bp.enabled = 0; /* disk full, closed: stop rather than write halves */
    errno = saved;
}

void bp_out_finish(void)
{
    if (!out_usable())
        return;
    bp_emit("end t=%.6f", bp_now());
    bp.enabled = 0;
    if (fsync(out_fd) == 0)
        rename(part_path, final_path);
    close(out_fd);
    out_fd = -1;
}

/* In a child after fork: async-signal-safe (close only). The child writes
 * nothing; the parent's file stays the parent's. */
void bp_out_forget(void)
{
    bp.enabled = 0;
    if (out_fd >= 0)
        close(out_fd);
    out_fd = -1;
}

/* Values never hold a space: space, '%', '=', control and non-ASCII bytes
 * become %XX (docs/probe-format.md). An empty value is written "-". */
void bp_escape(const char *in, char *out, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    if (len == 0)
        return;
    if (!in || !*in) {
        snprintf(out, len, "-");
        return;
    }
    for (; *in; in++) {
        unsigned char c = (unsigned char)*in;
        int plain = c > 0x20 && c < 0x7f && c != '%' && c != '=';
        if (o + (plain ? 1 : 3) >= len)
            break;
        if (plain) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

/* The list form the kernel prints in Cpus_allowed_list ("0-3,8"), so that
 * sets read from /proc and sets the probe formats compare as text. A list
 * that does not fit ends in '+'. */
void bp_mask_text(const unsigned char *mask, size_t bytes, char *out,
                  size_t len)
{
    size_t o = 0, nbits = bytes * 8;
    out[0] = '\0';
    if (!mask) { /* a NULL set the kernel will refuse (EFAULT) */
        snprintf(out, len, "-");
        return;
    }
    for (size_t c = 0; c < nbits; c++) {
        size_t hi = c;
        int w;
        if (!(mask[c / 8] & (1u << (c % 8))))
            continue;
        while (hi + 1 < nbits && (mask[(hi + 1) / 8] & (1u << ((hi + 1) % 8))))
            hi++;
        w = hi > c ? snprintf(out + o, len - o, "%s%zu-%zu", o ? "," : "", c, hi)
                   : snprintf(out + o, len - o, "%s%zu", o ? "," : "", c);
        if (w < 0 || (size_t)w >= len - o - 1) {
            if (len >= 2) {
                o = o < len - 2 ? o : len - 2;
                out[o] = '+';
                out[o + 1] = '\0';
            }
            return;
        }
        o += (size_t)w;
        c = hi;
    }
}

/* The affinity of thread tid (0: the caller) as a list; -1 when the
 * kernel refuses (the thread is gone). Raw system call: the library's
 * own wrapper may be someone else's interposer. */
int bp_get_mask_text(pid_t tid, char *out, size_t len)
{
    unsigned char mask[BP_MASK_BYTES];
    int saved = errno;
    long n = syscall(SYS_sched_getaffinity, tid, sizeof mask, mask);
    errno = saved;
    if (n <= 0) {
        snprintf(out, len, "-");
        return -1;
    }
    bp_mask_text(mask, (size_t)n, out, len);
    return 0;
}
