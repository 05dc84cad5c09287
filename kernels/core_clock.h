/* The clock the calling thread's core runs at, measured: a chain of
 * dependent integer additions takes one cycle each on every current x86
 * and Arm core, so additions per nanosecond is the core clock in GHz,
 * turbo and a hypervisor's TSC scaling included (which /proc/cpuinfo's
 * "cpu MHz" and the TSC do not show). Used to turn ns into cycles. */
#ifndef BL_CORE_CLOCK_H
#define BL_CORE_CLOCK_H

/* The fastest of `tries` timed chains (other load can only slow a chain
 * down), in GHz; 0 if tries < 1. Takes about tries x 0.2 ms at 3 GHz:
 * short chains, so that on a busy machine some of them run undisturbed. */
double bl_core_clock_ghz(int tries);

#endif
