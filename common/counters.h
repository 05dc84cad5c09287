/* Hardware and software counters per thread over the timed region, through
 * PAPI. An event the machine lacks is recorded as unavailable with the
 * reason; nothing here is ever fatal. Built without PAPI, every event is
 * unavailable ("PAPI not built in"). */
#ifndef BL_COUNTERS_H
#define BL_COUNTERS_H

#define BL_NCOUNTERS 6

typedef struct bl_counter {
    char name[32];     /* what it measures: cycles, instructions, ... */
    char event[48];    /* the PAPI event used, "" when none */
    long long value;
    int available;     /* 0: value is meaningless, see note */
    char note[96];     /* why unavailable, "" otherwise */
} bl_counter;

/* Once per process, by the master thread, before any parallel region that
 * counts. Returns 0; on failure counters are simply all unavailable. */
int bl_counters_init(void);

/* Opaque per-thread state. */
typedef struct bl_counters_thread bl_counters_thread;

/* Inside the parallel region, by each thread: set up and start counting.
 * Never NULL-dereferences: a NULL return means nothing could start and
 * bl_counters_stop() records all events as unavailable. */
bl_counters_thread *bl_counters_start(void);

/* By the same thread: stop, fill out[BL_NCOUNTERS], release. */
void bl_counters_stop(bl_counters_thread *t, bl_counter out[BL_NCOUNTERS]);

/* Names of the counted quantities, in output order. */
const char *bl_counters_name(int i);

#endif
