/* Counters when bindlab is built without PAPI: all unavailable. */
#include "counters.h"

#include <stdio.h>
#include <string.h>

static const char *const names[BL_NCOUNTERS] = {
    "cycles", "instructions", "llc_misses",
    "cpu_migrations", "page_faults", "context_switches"};

const char *bl_counters_name(int i)
{
    return names[i];
}

int bl_counters_init(void)
{
    return 0;
}

bl_counters_thread *bl_counters_start(void)
{
    return NULL;
}

void bl_counters_stop(bl_counters_thread *t, bl_counter out[BL_NCOUNTERS])
{
    (void)t;
    for (int i = 0; i < BL_NCOUNTERS; i++) {
        memset(&out[i], 0, sizeof out[i]);
        snprintf(out[i].name, sizeof out[i].name, "%s", names[i]);
        snprintf(out[i].note, sizeof out[i].note,
                 "bindlab was built without PAPI (install libpapi-dev)");
    }
}
