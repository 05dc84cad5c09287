/* Which source counts which quantity (see counters.h): software events from
 * the kernel, hardware events from PAPI and else from the kernel. PAPI's
 * own software events (perf::PAGE-FAULTS, ...) are the same kernel counters
 * behind its perf_event component, which PAPI disables on a machine without
 * a hardware PMU; asking the kernel directly works on every machine. */
#include "counters_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int hardware;
} quantities[BL_NCOUNTERS] = {
    [BL_Q_CYCLES] = {"cycles", 1},
    [BL_Q_INSTRUCTIONS] = {"instructions", 1},
    [BL_Q_LLC_MISSES] = {"llc_misses", 1},
    [BL_Q_CPU_MIGRATIONS] = {"cpu_migrations", 0},
    [BL_Q_PAGE_FAULTS] = {"page_faults", 0},
    [BL_Q_CONTEXT_SWITCHES] = {"context_switches", 0},
};

struct bl_counters_thread {
    bl_papi_thread *papi;
    int from_papi[BL_NCOUNTERS];
    bl_perf_counter perf[BL_NCOUNTERS];
    bl_counter c[BL_NCOUNTERS];
};

static int papi_ready;
static char papi_note[sizeof ((bl_counter *)0)->note];
/* BINDLAB_COUNTERS=off: count nothing (bench/counters_overhead.sh's
 * baseline, or a machine where opening counters misbehaves). */
static int switched_off;

int bl_counters_init(void)
{
    static int papi_tried;
    const char *env = getenv("BINDLAB_COUNTERS");
    switched_off = env && strcmp(env, "off") == 0;
    if (!switched_off && !papi_tried) {
        papi_tried = 1;
        papi_ready = bl_papi_init(papi_note, sizeof papi_note) == 0;
        bl_perf_keep_warm();
    }
    return 0;
}

static void name_all(bl_counter c[BL_NCOUNTERS])
{
    for (int q = 0; q < BL_NCOUNTERS; q++) {
        memset(&c[q], 0, sizeof c[q]);
        snprintf(c[q].name, sizeof c[q].name, "%s", quantities[q].name);
    }
}

bl_counters_thread *bl_counters_start(void)
{
    bl_counters_thread *t = calloc(1, sizeof *t);
    int want_papi[BL_NCOUNTERS];

    if (!t)
        return NULL;
    name_all(t->c);
    if (switched_off) {
        for (int q = 0; q < BL_NCOUNTERS; q++) {
            t->perf[q].fd = -1;
            snprintf(t->c[q].note, sizeof t->c[q].note,
                     "not counted: BINDLAB_COUNTERS=off");
        }
        return t;
    }
    for (int q = 0; q < BL_NCOUNTERS; q++)
        want_papi[q] = quantities[q].hardware;
    if (papi_ready)
        t->papi = bl_papi_start(want_papi, t->from_papi, t->c);
    else
        for (int q = 0; q < BL_NCOUNTERS; q++)
            if (want_papi[q])
                snprintf(t->c[q].note, sizeof t->c[q].note, "%s", papi_note);
    for (int q = 0; q < BL_NCOUNTERS; q++)
        if (t->from_papi[q] || bl_perf_open(q, &t->perf[q], &t->c[q]) < 0)
            t->perf[q].fd = -1;
        else
            t->c[q].note[0] = '\0';  /* the kernel counts it after all */
    /* Last, so that setting up is not counted. */
    for (int q = 0; q < BL_NCOUNTERS; q++)
        bl_perf_enable(&t->perf[q]);
    return t;
}

void bl_counters_stop(bl_counters_thread *t, bl_counter out[BL_NCOUNTERS])
{
    if (!t) {
        name_all(out);
        for (int q = 0; q < BL_NCOUNTERS; q++)
            snprintf(out[q].note, sizeof out[q].note,
                     "out of memory when counting started");
        return;
    }
    for (int q = 0; q < BL_NCOUNTERS; q++)
        bl_perf_close(&t->perf[q], &t->c[q]);
    if (t->papi)
        bl_papi_stop(t->papi, t->from_papi, t->c);
    memcpy(out, t->c, sizeof t->c);
    free(t);
}
