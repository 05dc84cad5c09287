#include "core_clock.h"

#include <stdint.h>
#include <time.h>

#define ADDS_PER_LOOP 8
#define LOOPS ((uint64_t)1 << 16)     /* 512 Ki additions per chain */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The empty asm says x is used and changed, so the compiler keeps every
 * addition, one after another in one register; eight per loop so that the
 * loop's own counter and branch run beside the chain instead of setting
 * its pace. */
#define STEP(k)                                                             \
    do {                                                                    \
        x += (k);                                                           \
        __asm__ volatile("" : "+r"(x));                                     \
    } while (0)

static uint64_t chain(uint64_t k)
{
    uint64_t x = 0;
    for (uint64_t i = 0; i < LOOPS; i++) {
        STEP(k);
        STEP(k);
        STEP(k);
        STEP(k);
        STEP(k);
        STEP(k);
        STEP(k);
        STEP(k);
    }
    return x;
}

double bl_core_clock_ghz(int tries)
{
    double best = 0.0;
    volatile uint64_t sink, k = 3;
    for (int t = 0; t < tries; t++) {
        double t0 = now_ns(), ns;
        sink = chain(k);
        ns = now_ns() - t0;
        if (ns > 0 && (double)(LOOPS * ADDS_PER_LOOP) / ns > best)
            best = (double)(LOOPS * ADDS_PER_LOOP) / ns;
    }
    (void)sink;
    return best;
}
