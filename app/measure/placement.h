/* Where a rank, its threads and its pages actually are: the calling thread's
 * cpuset and CPU, its core / L3 / NUMA node / package, migrations counted by
 * the Linux scheduler, and the NUMA node of every page of a buffer. */
#ifndef BL_PLACEMENT_H
#define BL_PLACEMENT_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"

#define BL_HOST_MAX 64
/* Cpusets travel between ranks as fixed text fields; a list that does not
 * fit ends in "+" (never silently cut). */
#define BL_CPUSET_TEXT 2048

/* One row of the placement record: one OpenMP thread of one rank. */
typedef struct bl_thread_place {
    int rank, thread;
    char host[BL_HOST_MAX];
    char rank_cpuset[BL_CPUSET_TEXT]; /* the rank's binding from the launcher */
    char main_cpuset_init[BL_CPUSET_TEXT]; /* the main thread's binding right
                                      * after MPI_Init (what an MPI's report
                                      * printed from MPI_Init saw) */
    char cpuset[BL_CPUSET_TEXT];      /* this thread's binding (OS indexes) */
    int cpu_first, cpu_last;          /* CPU at start / end of timed region */
    int core, l3, numa, package;      /* hwloc logical indexes, of cpu_last */
    long long migrations;             /* during the timed region, -1 unknown */
    long tid;                         /* Linux thread id */
    long pid;                         /* the rank's process id */
    long long mig_start;              /* scratch: counter at the start */
    /* Context switches of the thread during the timed region, from
     * getrusage(RUSAGE_THREAD): voluntary (it blocked or yielded: a wait,
     * a sleeping barrier) and involuntary (the scheduler preempted it for
     * another task: a neighbour); -1 unknown. */
    long long ctx_voluntary, ctx_involuntary;
    long long nvcsw_start, nivcsw_start; /* scratch */
} bl_thread_place;

/* The rank's binding as the launcher set it. It must be read before the
 * OpenMP runtime binds anything: with OMP_PROC_BIND set, libgomp re-binds
 * the initial thread to the first place while the program loads, so the
 * process mask is then narrower than the launcher's. The places list is
 * built from the original mask, so when places exist their union is used. */
int bl_place_rank_cpuset(hwloc_topology_t topo, hwloc_bitmap_t out,
                         bl_err *err);

/* By each thread at the start of the timed region. */
void bl_place_thread_begin(bl_thread_place *p);

/* By the same thread at the end: last CPU, migrations, its cpuset, and the
 * core / L3 / NUMA / package of the CPU it ended on. */
void bl_place_thread_end(hwloc_topology_t topo, bl_thread_place *p);

/* Writes set as a list into a fixed text field (see BL_CPUSET_TEXT). */
void bl_place_cpuset_text(hwloc_const_bitmap_t set, char *buf, size_t len);

/* Page counts of [base, base + bytes) per NUMA node. counts has nnodes + 1
 * slots: counts[i] for hwloc logical NUMA node i, counts[nnodes] for pages
 * that are not present (never touched). Uses move_pages(2) in query mode,
 * the call behind hwloc_get_area_memlocation(), because hwloc only returns
 * the union of nodes and bindlab wants counts; a page it reports absent
 * is looked up in /proc/self/pagemap when that shows frames (pagemap.h:
 * NUMA balancing's PROT_NONE pages). Adds to counts. */
int bl_place_pages_by_node(hwloc_topology_t topo, const void *base,
                           size_t bytes, long long *counts, bl_err *err);

/* Pages of [base, base + bytes) that sit on hwloc logical NUMA node numa
 * (local) and all present pages (total); both are added to. */
int bl_place_pages_local(hwloc_topology_t topo, const void *base,
                         size_t bytes, int numa, long long *local,
                         long long *total, bl_err *err);

#endif
