/* The noisy neighbour: a CPU hog and/or a memory hog that the harness runs
 * beside a run, pinned to given CPUs or left free, so that the effect of a
 * co-running job on a layout (its tail, its migrations) can be measured
 * (docs/sweep-runs.md). The hogs are `bindlab hog cpu|mem` (cli_hog.c),
 * started with argv + exec, each in a process group of its own, killed and
 * reaped by PID when the run ends, however it ends; they die with the
 * harness (PR_SET_PDEATHSIG) if it is killed itself.
 *
 * The spec, as a sweep key (`noisy:`) or `bindlab sweep --noisy`:
 *   none | cpu | mem | cpu+mem  [,free | ,pinned=CPULIST]
 * e.g. "cpu", "cpu+mem,pinned=1", "mem,free". Free is the default; pinned
 * binds every hog of the run to CPULIST (OS indexes, "1" or "0-1"). */
#ifndef BL_NOISY_H
#define BL_NOISY_H

#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "err.h"

typedef struct bl_noisy {
    int cpu, mem;        /* which hogs run */
    char pinned[40];     /* canonical CPU list; "" = free */
} bl_noisy;

/* Parses text (as above) into *out. -1 with err naming what is accepted. */
int bl_noisy_parse(const char *text, bl_noisy *out, bl_err *err);

/* The canonical text: "none", "cpu,free", "cpu+mem,pinned=1". */
void bl_noisy_text(const bl_noisy *n, char *buf, size_t len);

/* 1 when the spec starts anything. */
int bl_noisy_any(const bl_noisy *n);

/* -1 with err when the pinned CPUs are not all CPUs of topo. */
int bl_noisy_check(const bl_noisy *n, hwloc_topology_t topo, bl_err *err);

/* One running hog and, once stopped, what it used. */
typedef struct bl_noisy_proc {
    const char *kind;       /* "cpu" or "mem" */
    pid_t pid;              /* also its process group; 0 once reaped */
    pid_t started_pid;      /* the PID it had (kept after the reap) */
    char argv[1024];        /* the command, shell-quoted to read */
    char cpus[256];         /* the CPUs it was allowed to run on */
    int last_cpu;           /* the CPU it last ran on (-1 unknown) */
    double started;         /* bl_now_s() at the start */
    double cpu_s;           /* user + system CPU time, from wait4 */
    double wall_s;          /* start to kill */
} bl_noisy_proc;

typedef struct bl_noisy_run {
    bl_noisy_proc procs[2];
    int n;
} bl_noisy_run;

/* Starts the hogs of n by exec'ing `exe hog KIND ...` and waits until each
 * says it is running (its memory touched, its loop entered). Returns 0, -1
 * with err (nothing left running), or -2 when the harness was interrupted
 * meanwhile (nothing left running). */
int bl_noisy_start(const bl_noisy *n, const char *exe, bl_noisy_run *run,
                   bl_err *err);

/* Kills every hog of run (SIGKILL to its PID and its process group) and
 * reaps it, filling cpu_s, wall_s and last_cpu. Safe to call twice. */
void bl_noisy_stop(bl_noisy_run *run);

#endif
