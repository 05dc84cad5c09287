/* Test tool: which counters the kernel offers this process, asked with
 * perf_event_open directly (tests/unit/kernel_perf_probe.h), apart from
 * bindlab's own counter code. One line per quantity:
 *   BINDLAB-NAME PERF-NAME 0|1
 * The integration scripts expect bindlab-app's `available` from it. */
#include <stdio.h>

#include "../unit/kernel_perf_probe.h"

int main(void)
{
    for (size_t i = 0; i < PROBE_NEVENTS; i++)
        printf("%s %s %d\n", probe_events[i].bindlab, probe_events[i].name,
               probe_kernel_offers(&probe_events[i]));
    return 0;
}
