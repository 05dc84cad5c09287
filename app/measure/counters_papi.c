/* PAPI's part of the counters: the hardware quantities, one event set per
 * thread, each event added on its own so that one missing event does not
 * cost the others. */
#include "counters_private.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>

/* Each quantity with the PAPI events that measure it, best first. The
 * last-level cache is L3 on current x86 servers; smaller parts stop at L2. */
static const char *const papi_events[BL_NCOUNTERS][4] = {
    [BL_Q_CYCLES] = {"PAPI_TOT_CYC"},
    [BL_Q_INSTRUCTIONS] = {"PAPI_TOT_INS"},
    [BL_Q_LLC_MISSES] = {"PAPI_L3_TCM", "PAPI_L3_DCM", "PAPI_L2_TCM",
                         "PAPI_L2_DCM"},
};

struct bl_papi_thread {
    int eventset;
    int slot[BL_NCOUNTERS];  /* position in the event set */
    int nadded;
};

/* Set when PAPI's CPU component is disabled: no event can work, and its
 * reason is the one worth recording. */
static char cpu_component_note[sizeof ((bl_counter *)0)->note];

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

int bl_papi_init(char *note, size_t cap)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    const PAPI_component_info_t *cpu = NULL;

    if (rc != PAPI_VER_CURRENT) {
        snprintf(note, cap, "PAPI_library_init: %s",
                 rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return -1;
    }
    rc = PAPI_thread_init(thread_id);
    if (rc != PAPI_OK) {
        snprintf(note, cap, "PAPI_thread_init: %s", PAPI_strerror(rc));
        return -1;
    }
    /* The CPU's component: perf_event on Linux. */
    for (int i = 0; i < PAPI_num_components(); i++) {
        cpu = PAPI_get_component_info(i);
        if (cpu && strcmp(cpu->name, "perf_event") == 0)
            break;
        cpu = NULL;
    }
    if (cpu && cpu->disabled)
        snprintf(cpu_component_note, sizeof cpu_component_note,
                 "PAPI: %.16s component disabled: %.60s", cpu->name,
                 cpu->disabled_reason);
    return 0;
}

static void note_papi(bl_counter *c, const char *what, int rc)
{
    if (cpu_component_note[0])
        snprintf(c->note, sizeof c->note, "%s", cpu_component_note);
    else
        snprintf(c->note, sizeof c->note, "PAPI: %s: %s", what,
                 PAPI_strerror(rc));
}

/* Adds the first event of quantity q that PAPI accepts. */
static void add_quantity(bl_papi_thread *t, int q, int got[], bl_counter *c)
{
    int last_rc = PAPI_ENOEVNT;
    for (int k = 0; k < 4 && papi_events[q][k]; k++) {
        int code, rc = PAPI_event_name_to_code(papi_events[q][k], &code);
        if (rc == PAPI_OK)
            rc = PAPI_add_event(t->eventset, code);
        if (rc == PAPI_OK) {
            snprintf(c->event, sizeof c->event, "papi:%s", papi_events[q][k]);
            t->slot[q] = t->nadded++;
            got[q] = 1;
            return;
        }
        last_rc = rc;
    }
    note_papi(c, papi_events[q][0] ? papi_events[q][0] : "no PAPI event",
              last_rc);
}

static void drop_all(bl_papi_thread *t, int got[], bl_counter c[],
                     const char *what, int rc)
{
    for (int q = 0; q < BL_NCOUNTERS; q++)
        if (got[q]) {
            got[q] = 0;
            c[q].event[0] = '\0';
            note_papi(&c[q], what, rc);
        }
    if (t->eventset != PAPI_NULL) {
        PAPI_cleanup_eventset(t->eventset);
        PAPI_destroy_eventset(&t->eventset);
    }
    PAPI_unregister_thread();
    free(t);
}

bl_papi_thread *bl_papi_start(const int want[BL_NCOUNTERS],
                              int got[BL_NCOUNTERS], bl_counter c[BL_NCOUNTERS])
{
    bl_papi_thread *t;
    int rc;

    for (int q = 0; q < BL_NCOUNTERS; q++)
        got[q] = 0;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->eventset = PAPI_NULL;
    PAPI_register_thread();
    rc = PAPI_create_eventset(&t->eventset);
    if (rc != PAPI_OK) {
        for (int q = 0; q < BL_NCOUNTERS; q++)
            if (want[q])
                note_papi(&c[q], "PAPI_create_eventset", rc);
        t->eventset = PAPI_NULL;
        drop_all(t, got, c, "", 0);
        return NULL;
    }
    for (int q = 0; q < BL_NCOUNTERS; q++)
        if (want[q] && !cpu_component_note[0])
            add_quantity(t, q, got, &c[q]);
        else if (want[q])
            note_papi(&c[q], "", 0);
    if (t->nadded == 0) {
        drop_all(t, got, c, "", 0);
        return NULL;
    }
    rc = PAPI_start(t->eventset);
    if (rc != PAPI_OK) {
        /* A VM may list events that cannot start; the kernel gets to try. */
        drop_all(t, got, c, "PAPI_start", rc);
        return NULL;
    }
    return t;
}

void bl_papi_stop(bl_papi_thread *t, const int got[BL_NCOUNTERS],
                  bl_counter c[BL_NCOUNTERS])
{
    long long values[BL_NCOUNTERS] = {0};
    int rc = PAPI_stop(t->eventset, values);

    for (int q = 0; q < BL_NCOUNTERS; q++) {
        if (!got[q])
            continue;
        if (rc == PAPI_OK) {
            c[q].value = values[t->slot[q]];
            c[q].available = 1;
        } else {
            note_papi(&c[q], "PAPI_stop", rc);
        }
    }
    PAPI_cleanup_eventset(t->eventset);
    PAPI_destroy_eventset(&t->eventset);
    PAPI_unregister_thread();
    free(t);
}
