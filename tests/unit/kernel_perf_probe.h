/* Test-side question to the kernel, written apart from app/measure/counters*:
 * can this process count EVENT on its own thread with perf_event_open?
 * Tests use the answer as the expectation for what bindlab records.
 * Included by tests/unit/test_counters.c and the integration tool
 * tests/integration/perf_probe.c. */
#ifndef BL_KERNEL_PERF_PROBE_H
#define BL_KERNEL_PERF_PROBE_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
    const char *name;        /* perf's spelling */
    const char *bindlab;     /* bindlab's name of the quantity */
    uint32_t type;
    uint64_t config;
    int kernel_side;         /* happens in kernel context: :u would read 0 */
} probe_event;

static const probe_event probe_events[] = {
    {"cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
    {"instructions", "instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_INSTRUCTIONS, 0},
    {"cache-misses", "llc_misses", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_MISSES, 0},
    {"cpu-migrations", "cpu_migrations", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS, 1},
    {"page-faults", "page_faults", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"context-switches", "context_switches", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES, 1},
};
#define PROBE_NEVENTS (sizeof probe_events / sizeof probe_events[0])

static inline int probe_open(const probe_event *e, int user_only)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = e->type;
    a.config = e->config;
    a.disabled = 1;
    a.exclude_kernel = (unsigned)user_only;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* 1 when the event opens and really counts (a hardware event that opens
 * but never gets a PMU counter does not). Kernel-side software events need
 * kernel counting; the rest may be user space only. */
static inline int probe_kernel_offers(const probe_event *e)
{
    uint64_t v[3] = {0, 0, 0};
    volatile unsigned long spin = 0;
    int fd = probe_open(e, 0);
    if (fd < 0 && !e->kernel_side)
        fd = probe_open(e, 1);
    if (fd < 0)
        return 0;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    for (unsigned long i = 0; i < 1000000; i++)
        spin += i;
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (read(fd, v, sizeof v) != (ssize_t)sizeof v) {
        close(fd);
        return 0;
    }
    close(fd);
    (void)spin;
    return e->type == PERF_TYPE_SOFTWARE || v[2] > 0;
}

static inline const probe_event *probe_find(const char *bindlab_name)
{
    for (size_t i = 0; i < PROBE_NEVENTS; i++)
        if (strcmp(probe_events[i].bindlab, bindlab_name) == 0)
            return &probe_events[i];
    return NULL;
}

#endif
