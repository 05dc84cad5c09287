/* Showing a placement plan (plan.h) on its topology: the table of rank and
 * thread rows, the same as tab-separated values for scripts, a compact text
 * map of the node (one block per package, one cell per core), and the
 * warnings a plan deserves, in plain words.
 *
 * PUs are written as OS indexes (as Linux, taskset and Slurm number CPUs);
 * cores, L3 caches, NUMA nodes and packages as hwloc logical indexes ('-'
 * when the topology has no such level). A plan without thread rows is
 * shown with one row per rank. The writers return 0, or -1 when f reports
 * a write error. */
#ifndef BL_PLAN_OUTPUT_H
#define BL_PLAN_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include <hwloc.h>

#include "err.h"
#include "plan/plan.h"

/* Aligned columns: rank thread place PUs core L3 NUMA package, one line
 * per rank.thread; place is '-' for a thread OpenMP does not bind. */
int bl_plan_write_table(FILE *f, hwloc_topology_t topo, const bl_plan *p);

/* A header line "rank thread pus core l3 numa package", then one line per
 * rank.thread with those columns separated by tabs. */
int bl_plan_write_tsv(FILE *f, hwloc_topology_t topo, const bl_plan *p);

/* The node as text, at most width columns (>= 40) wide where the cells
 * allow: one block per package, cores grouped by L3 (or by NUMA node when a
 * package has one L3), one line per NUMA node at least, a group wrapped
 * when it is wider than the line. Each core's cell says who runs there:
 *   r.t     thread t of rank r, pinned to this core
 *   r.t+n   ... and n more threads pinned to this core
 *   r.t~    a thread bound to a place wider than one core (every core of
 *           the place shows it)
 *   r.*     rank r's threads are not bound: they float over its binding
 *   .       an idle core: no thread may run there
 * followed by a legend line. */
int bl_plan_write_map(FILE *f, hwloc_topology_t topo, const bl_plan *p,
                      int width);

/* What a warning is about; tests look at the kind, people at the text. */
typedef enum bl_plan_warning_kind {
    BL_PLAN_W_IDLE_CORES,       /* cores no thread may run on */
    BL_PLAN_W_SMT_SHARED,       /* threads pinned to PUs of one core */
    BL_PLAN_W_PU_SHARED,        /* threads pinned to the same PU */
    BL_PLAN_W_OVERLOADED,       /* a rank (or the node) has more threads
                                 * than PUs */
    BL_PLAN_W_UNBOUND,          /* ranks the launcher left unbound */
    BL_PLAN_W_SPANS_NUMA,       /* a rank's binding covers 2+ NUMA nodes */
    BL_PLAN_W_SPANS_PACKAGE,    /* ... 2+ packages */
    BL_PLAN_W_UNEVEN_PACKAGES,  /* packages hold different rank counts */
    BL_PLAN_W_UNEVEN_NUMA,      /* NUMA nodes hold different rank counts */
    BL_PLAN_W_L3_SHARED,        /* an L3 domain serves 2+ ranks */
    /* devices (plan_devices.h): */
    BL_PLAN_W_NO_LOCAL_GPU,     /* a rank whose cores have no GPU local
                                 * while the node has GPUs */
    BL_PLAN_W_NO_LOCAL_NIC,     /* ... no NIC local */
    BL_PLAN_W_GPU_REMOTE,       /* a rank given a GPU not local to its
                                 * cores (another NUMA node or package) */
    BL_PLAN_W_GPU_SHARED        /* two ranks given one GPU while another
                                 * GPU is given to none */
} bl_plan_warning_kind;

typedef struct bl_plan_warning {
    bl_plan_warning_kind kind;
    char text[512];             /* one sentence, no trailing newline */
} bl_plan_warning;

/* The warnings of plan p on topo, in the order of the enum, at most one of
 * each kind. *out is malloc'ed (free() it; NULL when *n is 0). */
int bl_plan_warnings(hwloc_topology_t topo, const bl_plan *p,
                     bl_plan_warning **out, size_t *n, bl_err *err);

#endif
