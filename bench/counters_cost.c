/* Fixed cost of counting one thread's region: microseconds per
 * bl_counters_start + bl_counters_stop pair (open, enable, disable, read,
 * close of every counter), on the calling thread. Prints where each counter
 * comes from, then one line per round:
 *   ROUND WALL_US CPU_US
 * per start + stop pair: wall clock, and the thread's own CPU time (user +
 * system), which other load on the machine does not inflate.
 * usage: bindlab-counters-cost [PAIRS] [ROUNDS]   (default 2000 7) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "measure/counters.h"

static double now_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 2000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    static bl_counter c[BL_NCOUNTERS];
    volatile long long sink = 0;

    if (pairs < 1 || rounds < 1) {
        fprintf(stderr, "usage: bindlab-counters-cost [PAIRS] [ROUNDS]\n");
        return 2;
    }
    bl_counters_init();
    bl_counters_stop(bl_counters_start(), c);
    for (int i = 0; i < BL_NCOUNTERS; i++)
        printf("# %s: %s %s\n", c[i].name,
               c[i].available ? c[i].event : "unavailable", c[i].note);
    for (int r = 1; r <= rounds; r++) {
        double w0 = now_s(CLOCK_MONOTONIC);
        double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < pairs; i++) {
            bl_counters_stop(bl_counters_start(), c);
            sink += c[0].value;
        }
        printf("%d %.3f %.3f\n", r, 1e6 * (now_s(CLOCK_MONOTONIC) - w0) / pairs,
               1e6 * (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) / pairs);
    }
    return sink == 42 ? 3 : 0;
}
