/* One run of a sweep: its command line, its launch, and its record (the
 * per-run sweep file). Shared by sweep.c; not a public interface. */
#ifndef BL_SWEEP_ITEM_H
#define BL_SWEEP_ITEM_H

#include <limits.h>

#include <hwloc.h>

#include "sweep/sweep_file.h"
#include "h5/h5schema.h"
#include "proc/launch.h"
#include "launcher/launcher_choice.h"
#include "launcher/launcher_info.h"
#include "slurm/slurm_alloc.h"
#include "sweep/sweep.h"

typedef struct bl_sweep_item {
    const bl_layout *layout;
    int rep;                    /* 1-based repetition */
    int layout_index;           /* index of layout in the sweep */
    char run_id[32];            /* r0003, or r0003.2 with repetitions */
    bl_layout_check check;      /* threads and PUs per rank when valid */
    int valid;
    const char *reason;         /* why not valid (the layout's, shared by
                                   its repetitions); NULL when valid */
} bl_sweep_item;

typedef struct bl_sweep_ctx {
    const bl_sweep_opts *o;
    bl_sweep sweep;
    hwloc_topology_t topo;
    bl_launcher_info launcher;  /* what the program answered */
    bl_launcher_want want;      /* what the sweep asked for */
    char program[PATH_MAX];     /* the launcher program, argv[0] */
    bl_slurm_alloc alloc;       /* the Slurm allocation's nodes, read when a
                                   layout names its nodes (n 0: none) */
    hwloc_topology_t *node_topos; /* --node-topologies: alloc.n entries,
                                   NULL where this machine's stands in
                                   (sweep_nodes.h) */
    hwloc_topology_t job_topo;  /* topo cut to the CPUs the job may use
                                   (common/allowed.h); NULL: all of it */
    char job_cpus[512];         /* that set and its sources, in words */
    char results[PATH_MAX], dir[PATH_MAX], out[PATH_MAX], app[PATH_MAX];
    char app_libomp[PATH_MAX];  /* omp_runtime libomp's app (sweep_omp.h) */
    char libomp[PATH_MAX];      /* the libomp that app runs with */
    char libiomp5[PATH_MAX];    /* omp_runtime intel's preload */
    int dirfd, appfd;           /* dir and dir/app held open (sweep_dir.h);
                                   -1 before the sweep holds them */
    char gpu_wrap[PATH_MAX];    /* bindlab-gpu-wrap, beside bindlab or in
                                   PATH (layouts with gpu_bind) */
    int is_root;
    bl_sweep_item *items;        /* in the order they run */
    char **reasons;              /* per layout: why it cannot run, or NULL */
    int nitems;
    bl_rep_order order;          /* what the items' order follows */
} bl_sweep_ctx;

void bl_sweep_ctx_free(bl_sweep_ctx *c);

/* The launcher's argv for a valid item (free with bl_argv_free). */
char **bl_sweep_item_argv(const bl_sweep_ctx *c, const bl_sweep_item *it,
                          bl_err *err);

/* 1 when the item's record exists, reads back, and is of the same layout. */
int bl_sweep_item_done(const bl_sweep_ctx *c, const bl_sweep_item *it,
                       bl_err *err);

/* Runs (or, for an invalid item, records) one item and writes its record.
 * Fills h (free with bl_h5_harness_free) and the headline rate. Returns 0,
 * -1 with err when the record cannot be written, -2 when interrupted. */
int bl_sweep_item_run(bl_sweep_ctx *c, const bl_sweep_item *it,
                      bl_h5_harness *h, double *rate, char *unit,
                      size_t unit_len, bl_err *err);

#endif
