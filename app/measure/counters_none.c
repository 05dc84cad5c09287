/* PAPI's part of the counters when bindlab is built without PAPI: it counts
 * nothing, and the kernel (counters_perf.c) is asked for every quantity. */
#include "counters_private.h"

#include <stdio.h>

int bl_papi_init(char *note, size_t cap)
{
    snprintf(note, cap, "PAPI not built in (install libpapi-dev, rebuild)");
    return -1;
}

bl_papi_thread *bl_papi_start(const int want[BL_NCOUNTERS],
                              int got[BL_NCOUNTERS], bl_counter c[BL_NCOUNTERS])
{
    (void)want;
    (void)c;
    for (int q = 0; q < BL_NCOUNTERS; q++)
        got[q] = 0;
    return NULL;
}

void bl_papi_stop(bl_papi_thread *t, const int got[BL_NCOUNTERS],
                  bl_counter c[BL_NCOUNTERS])
{
    (void)t;
    (void)got;
    (void)c;
}
