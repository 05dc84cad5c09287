/* A library that changes its caller's affinity (test_probe.sh): the probe
 * must name this object as the caller. Widens the calling thread to every
 * CPU the kernel allows it (the set asked is all CPUs; the kernel keeps
 * the allowed ones). */
#include <sched.h>

int bl_probe_setter(void);

int bl_probe_setter(void)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    return sched_setaffinity(0, sizeof all, &all);
}
