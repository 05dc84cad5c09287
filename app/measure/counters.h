/* Hardware and software counters per thread over the timed region.
 *
 * Where each count comes from (measure/counters.c decides):
 *   - software events (page faults, CPU migrations, context switches): the
 *     kernel, through perf_event_open(PERF_TYPE_SOFTWARE) on the calling
 *     thread. They need no PMU, so they work on a VM without one.
 *   - hardware events (cycles, instructions, LLC misses): PAPI when it is
 *     built in and can count them, else the kernel's generic
 *     PERF_TYPE_HARDWARE events; user space only in both cases (PAPI's
 *     default domain).
 * The source is the prefix of `event`: "papi:PAPI_TOT_CYC",
 * "perf_event_open:page-faults" (":u" appended when only user space could
 * be counted). An event the machine lacks is recorded as unavailable with
 * the reason of every source that was tried; nothing here is ever fatal. */
#ifndef BL_COUNTERS_H
#define BL_COUNTERS_H

#define BL_NCOUNTERS 6

typedef struct bl_counter {
    char name[32];     /* what it measures: cycles, instructions, ... */
    char event[48];    /* "SOURCE:EVENT" that gave the value, "" when none */
    long long value;
    int available;     /* 0: value is meaningless, see note */
    char note[128];    /* why unavailable (or how a value was scaled), "" otherwise */
} bl_counter;

/* Once per process, by the master thread, before any parallel region that
 * counts. Returns 0; when PAPI cannot start, the kernel still counts. */
int bl_counters_init(void);

/* Opaque per-thread state. */
typedef struct bl_counters_thread bl_counters_thread;

/* Inside the parallel region, by each thread: set up and start counting
 * this thread. A NULL return (out of memory) is allowed: bl_counters_stop()
 * then records all events as unavailable. */
bl_counters_thread *bl_counters_start(void);

/* By the same thread: stop, fill out[BL_NCOUNTERS], release. */
void bl_counters_stop(bl_counters_thread *t, bl_counter out[BL_NCOUNTERS]);

#endif
