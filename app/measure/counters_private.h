/* Private to app/measure/counters*.c: the two sources of counts behind
 * counters.h. counters.c chooses a source per quantity; counters_perf.c is
 * the kernel (perf_event_open); counters_papi.c is PAPI, or counters_none.c
 * when bindlab is built without it. */
#ifndef BL_COUNTERS_PRIVATE_H
#define BL_COUNTERS_PRIVATE_H

#include <stddef.h>

#include "measure/counters.h"

/* The quantities, in output order. */
enum {
    BL_Q_CYCLES,
    BL_Q_INSTRUCTIONS,
    BL_Q_LLC_MISSES,
    BL_Q_CPU_MIGRATIONS,
    BL_Q_PAGE_FAULTS,
    BL_Q_CONTEXT_SWITCHES,
};

/* ---- PAPI (counters_papi.c) or its absence (counters_none.c) ---------- */

/* 0 when PAPI can be used; otherwise why not, in note. */
int bl_papi_init(char *note, size_t cap);

typedef struct bl_papi_thread bl_papi_thread;

/* Counts on the calling thread every quantity q with want[q] set that PAPI
 * can count: sets got[q] = 1 and c[q].event; for the others writes the
 * reason into c[q].note. NULL when nothing started. */
bl_papi_thread *bl_papi_start(const int want[BL_NCOUNTERS],
                              int got[BL_NCOUNTERS], bl_counter c[BL_NCOUNTERS]);

/* Stops and frees t: for every got[q], c[q].value and available, or the
 * reason in c[q].note. */
void bl_papi_stop(bl_papi_thread *t, const int got[BL_NCOUNTERS],
                  bl_counter c[BL_NCOUNTERS]);

/* ---- the kernel (counters_perf.c) ---------------------------------------- */

typedef struct bl_perf_counter {
    int fd;            /* -1 when not open */
} bl_perf_counter;

/* Opens quantity q for the calling thread, disabled. 0: c->event is set;
 * -1: c->note says why (appended to what is already there). */
int bl_perf_open(int q, bl_perf_counter *pc, bl_counter *c);

/* Once per process: keeps the kernel's software-event hooks switched on,
 * so that opening and closing counters per thread stays cheap. */
void bl_perf_keep_warm(void);

/* Zeroes and enables an open counter. */
void bl_perf_enable(bl_perf_counter *pc);

/* Disables, reads and closes: c->value and c->available, or c->note. */
void bl_perf_close(bl_perf_counter *pc, bl_counter *c);

#endif
