/* Counts from the kernel: one perf_event_open file per quantity, counting
 * the calling thread on whatever CPU it runs (pid 0, cpu -1, no inherit).
 * Software events need no PMU; hardware events are the kernel's generic
 * ones and count user space only, like PAPI's default domain. */
#include "counters_private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef BL_HAVE_PERF_EVENT
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    uint32_t type;
    uint64_t config;
    const char *name;    /* as `perf list` spells it */
} kernel_events[BL_NCOUNTERS] = {
    [BL_Q_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
    [BL_Q_INSTRUCTIONS] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
                           "instructions"},
    /* The generic cache-misses event is the last-level cache on x86. */
    [BL_Q_LLC_MISSES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
                         "cache-misses"},
    [BL_Q_CPU_MIGRATIONS] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
                             "cpu-migrations"},
    [BL_Q_PAGE_FAULTS] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
                          "page-faults"},
    [BL_Q_CONTEXT_SWITCHES] = {PERF_TYPE_SOFTWARE,
                               PERF_COUNT_SW_CONTEXT_SWITCHES,
                               "context-switches"},
};

static int open_event(int q, int user_only)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = kernel_events[q].type;
    a.config = kernel_events[q].config;
    a.disabled = 1;
    a.exclude_kernel = (unsigned)user_only;
    a.exclude_hv = 1;
    /* Enabled and running times tell whether a hardware counter was
     * multiplexed off the PMU. */
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

static int paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = -99;
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -99;
        fclose(f);
    }
    return level;
}

static void append_note(bl_counter *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds "kernel: <text>" after what the other source already said. */
static void append_note(bl_counter *c, const char *fmt, ...)
{
    size_t len = strlen(c->note);
    char text[sizeof c->note];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(c->note + len, sizeof c->note - len, "%skernel: %s",
             len ? "; " : "", text);
}

static const char *errno_name(int err)
{
    switch (err) {
    case ENOENT: return "ENOENT";
    case ENODEV: return "ENODEV";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case EINVAL: return "EINVAL";
    default: return strerror(err);
    }
}

/* Why the kernel refused, in words a user can act on. */
static void explain(int q, int err, bl_counter *c)
{
    int hardware = kernel_events[q].type == PERF_TYPE_HARDWARE;
    const char *name = kernel_events[q].name;
    if ((err == ENOENT || err == ENODEV || err == EOPNOTSUPP) && hardware)
        append_note(c, "no hardware PMU offers %s (%s)", name,
                    errno_name(err));
    else if (err == EACCES || err == EPERM)
        append_note(c, "%s not permitted at perf_event_paranoid=%d (needs "
                    "<= 2, or CAP_PERFMON)", name, paranoid_level());
    else if (err == EMFILE || err == ENFILE)
        append_note(c, "%s: out of file descriptors (%s)", name,
                    errno_name(err));
    else
        append_note(c, "%s: perf_event_open failed (%s)", name,
                    errno_name(err));
}

int bl_perf_open(int q, bl_perf_counter *pc, bl_counter *c)
{
    int hardware = kernel_events[q].type == PERF_TYPE_HARDWARE;
    int user_only = hardware;
    int fd = open_event(q, user_only);

    if (fd < 0 && !hardware && (errno == EACCES || errno == EPERM)) {
        /* perf_event_paranoid 2 allows user space only: page faults are
         * still the user's, but migrations and context switches happen in
         * the kernel and would read 0. */
        if (q != BL_Q_PAGE_FAULTS) {
            append_note(c, "%s happens in the kernel; perf_event_paranoid=%d "
                           "allows user space only (needs <= 1, or "
                           "CAP_PERFMON)", kernel_events[q].name,
                        paranoid_level());
            pc->fd = -1;
            return -1;
        }
        user_only = 1;
        fd = open_event(q, user_only);
    }
    pc->fd = fd;
    if (fd < 0) {
        explain(q, errno, c);
        return -1;
    }
    snprintf(c->event, sizeof c->event, "perf_event_open:%s%s",
             kernel_events[q].name, user_only ? ":u" : "");
    return 0;
}

void bl_perf_keep_warm(void)
{
    /* The first software event of a kind in the system switches on the
     * kernel's hook for it (code patching, ~0.3 ms) and the last one off
     * again: without one held open, every start and stop of a thread pays
     * that (measured 0.7 ms per event on a 2-core VM). One disabled event
     * of each kind, open until the process ends, keeps it at microseconds. */
    static int warm;
    if (warm)
        return;
    warm = 1;
    for (int q = 0; q < BL_NCOUNTERS; q++)
        if (kernel_events[q].type == PERF_TYPE_SOFTWARE &&
            open_event(q, 0) < 0)
            open_event(q, 1);
}

void bl_perf_enable(bl_perf_counter *pc)
{
    if (pc->fd < 0)
        return;
    ioctl(pc->fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(pc->fd, PERF_EVENT_IOC_ENABLE, 0);
}

void bl_perf_close(bl_perf_counter *pc, bl_counter *c)
{
    uint64_t v[3] = {0, 0, 0};    /* value, time enabled, time running */
    ssize_t n;

    if (pc->fd < 0)
        return;
    ioctl(pc->fd, PERF_EVENT_IOC_DISABLE, 0);
    n = read(pc->fd, v, sizeof v);
    close(pc->fd);
    pc->fd = -1;
    if (n != (ssize_t)sizeof v) {
        snprintf(c->note, sizeof c->note, "kernel: reading %s failed (%s)",
                 c->event, n < 0 ? strerror(errno) : "short read");
        return;
    }
    if (v[2] == 0 && v[1] > 0) {
        snprintf(c->note, sizeof c->note, "kernel: %s never got a PMU "
                 "counter (all busy)", c->event);
        return;
    }
    c->value = (long long)v[0];
    if (v[2] < v[1]) {
        /* Multiplexed: the kernel's usual estimate, said in the note. */
        c->value = (long long)((double)v[0] * (double)v[1] / (double)v[2]);
        snprintf(c->note, sizeof c->note, "scaled: counted %.0f%% of the "
                 "time (PMU multiplexing)", 100.0 * (double)v[2] / (double)v[1]);
    }
    c->available = 1;
}

#else /* no <linux/perf_event.h> */

void bl_perf_keep_warm(void)
{
}

int bl_perf_open(int q, bl_perf_counter *pc, bl_counter *c)
{
    size_t len = strlen(c->note);
    (void)q;
    pc->fd = -1;
    snprintf(c->note + len, sizeof c->note - len,
             "%skernel: no perf_event_open on this system", len ? "; " : "");
    return -1;
}

void bl_perf_enable(bl_perf_counter *pc)
{
    (void)pc;
}

void bl_perf_close(bl_perf_counter *pc, bl_counter *c)
{
    (void)pc;
    (void)c;
}

#endif
