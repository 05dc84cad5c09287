/* Counters through PAPI: one event set per thread, each event added on its
 * own so that one missing event does not cost the others. */
#include "counters.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>

/* Each quantity with the events that measure it, best first. The last-level
 * cache is L3 on current x86 servers; older or smaller parts stop at L2. */
static const struct {
    const char *name;
    const char *events[4];
} quantities[BL_NCOUNTERS] = {
    {"cycles", {"PAPI_TOT_CYC"}},
    {"instructions", {"PAPI_TOT_INS"}},
    {"llc_misses", {"PAPI_L3_TCM", "PAPI_L3_DCM", "PAPI_L2_TCM", "PAPI_L2_DCM"}},
    {"cpu_migrations", {"perf::CPU-MIGRATIONS"}},
    {"page_faults", {"perf::PAGE-FAULTS"}},
    {"context_switches", {"perf::CONTEXT-SWITCHES"}},
};

struct bl_counters_thread {
    int eventset;
    int slot[BL_NCOUNTERS];  /* position in the event set, -1 if not added */
    int nadded;
    bl_counter c[BL_NCOUNTERS];
};

static int lib_ready;
static char lib_note[96];

const char *bl_counters_name(int i)
{
    return quantities[i].name;
}

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

int bl_counters_init(void)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(lib_note, sizeof lib_note, "PAPI_library_init: %s",
                 rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return -1;
    }
    rc = PAPI_thread_init(thread_id);
    if (rc != PAPI_OK) {
        snprintf(lib_note, sizeof lib_note, "PAPI_thread_init: %s",
                 PAPI_strerror(rc));
        return -1;
    }
    lib_ready = 1;
    return 0;
}

static void set_note(bl_counter *c, const char *what, int rc)
{
    snprintf(c->note, sizeof c->note, "%s: %s", what, PAPI_strerror(rc));
}

/* Adds the first event of quantity i that PAPI accepts. */
static void add_quantity(bl_counters_thread *t, int i, int software_only)
{
    bl_counter *c = &t->c[i];
    int last_rc = PAPI_ENOEVNT;
    t->slot[i] = -1;
    for (int k = 0; k < 4 && quantities[i].events[k]; k++) {
        const char *ev = quantities[i].events[k];
        int code, rc;
        if (software_only && strncmp(ev, "perf::", 6) != 0)
            continue;
        rc = PAPI_event_name_to_code(ev, &code);
        if (rc == PAPI_OK)
            rc = PAPI_add_event(t->eventset, code);
        if (rc == PAPI_OK) {
            snprintf(c->event, sizeof c->event, "%s", ev);
            t->slot[i] = t->nadded++;
            return;
        }
        last_rc = rc;
    }
    if (software_only && strncmp(quantities[i].events[0], "perf::", 6) != 0)
        snprintf(c->note, sizeof c->note,
                 "hardware counters could not start on this machine");
    else
        set_note(c, quantities[i].events[0], last_rc);
}

static int build_and_start(bl_counters_thread *t, int software_only)
{
    int rc;
    t->eventset = PAPI_NULL;
    t->nadded = 0;
    for (int i = 0; i < BL_NCOUNTERS; i++) {
        t->c[i].event[0] = '\0';
        t->c[i].note[0] = '\0';
    }
    rc = PAPI_create_eventset(&t->eventset);
    if (rc != PAPI_OK) {
        for (int i = 0; i < BL_NCOUNTERS; i++)
            set_note(&t->c[i], "PAPI_create_eventset", rc);
        return rc;
    }
    for (int i = 0; i < BL_NCOUNTERS; i++)
        add_quantity(t, i, software_only);
    if (t->nadded == 0)
        return PAPI_ENOEVNT;
    return PAPI_start(t->eventset);
}

static void destroy_set(bl_counters_thread *t)
{
    if (t->eventset != PAPI_NULL) {
        PAPI_cleanup_eventset(t->eventset);
        PAPI_destroy_eventset(&t->eventset);
    }
}

bl_counters_thread *bl_counters_start(void)
{
    bl_counters_thread *t;
    int rc;

    if (!lib_ready)
        return NULL;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    for (int i = 0; i < BL_NCOUNTERS; i++)
        snprintf(t->c[i].name, sizeof t->c[i].name, "%s", quantities[i].name);
    PAPI_register_thread();
    rc = build_and_start(t, 0);
    if (rc != PAPI_OK) {
        /* A VM often lists hardware events that cannot be started; the
         * kernel's software events still work, so try those alone. */
        destroy_set(t);
        rc = build_and_start(t, 1);
    }
    if (rc != PAPI_OK) {
        for (int i = 0; i < BL_NCOUNTERS; i++)
            if (t->slot[i] >= 0) {
                set_note(&t->c[i], "PAPI_start", rc);
                t->slot[i] = -1;
            }
        destroy_set(t);
        t->nadded = 0;
    }
    return t;
}

void bl_counters_stop(bl_counters_thread *t, bl_counter out[BL_NCOUNTERS])
{
    long long values[BL_NCOUNTERS] = {0};
    int rc = PAPI_OK;

    if (!t) {
        for (int i = 0; i < BL_NCOUNTERS; i++) {
            memset(&out[i], 0, sizeof out[i]);
            snprintf(out[i].name, sizeof out[i].name, "%s", quantities[i].name);
            snprintf(out[i].note, sizeof out[i].note, "%s",
                     lib_note[0] ? lib_note : "PAPI could not start");
        }
        return;
    }
    if (t->nadded > 0)
        rc = PAPI_stop(t->eventset, values);
    for (int i = 0; i < BL_NCOUNTERS; i++) {
        out[i] = t->c[i];
        if (t->slot[i] >= 0 && rc == PAPI_OK) {
            out[i].value = values[t->slot[i]];
            out[i].available = 1;
        } else if (t->slot[i] >= 0) {
            set_note(&out[i], "PAPI_stop", rc);
        }
    }
    if (t->nadded > 0)
        destroy_set(t);
    PAPI_unregister_thread();
    free(t);
}
