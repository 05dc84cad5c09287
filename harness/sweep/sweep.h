/* bindlab sweep: every layout of a sweep file run under the launcher, each
 * run recorded in its own sweep file under results/NAME.d/ as soon as it
 * ends (ok, failed, timeout or invalid) and merged into results/NAME.h5.
 * Killing the harness loses no finished run; --resume continues. */
#ifndef BL_SWEEP_H
#define BL_SWEEP_H

#include <stdio.h>

#include "sweep/sweep_file.h"
#include "err.h"

typedef struct bl_sweep_opts {
    const char *file;          /* the sweep file */
    const char *results;       /* results directory (default "results") */
    const char *out;           /* merged file; default RESULTS/NAME.h5 */
    const char *app;           /* bindlab-app; default beside bindlab */
    const char *app_libomp;    /* omp_runtime libomp's app, libiomp5 intel's
                                * preload; NULL: from the environment
                                * (sweep_omp.h) */
    const char *libiomp5;
    const char *launcher;      /* --launcher (launcher_choice.h: a family,
                                * mpirun, srun or a path); NULL: the sweep
                                * file's launcher:, else mpirun */
    const char *launcher_path; /* --mpirun: program to run; default the
                                * family's (mpirun, mpiexec, srun) */
    int dry_run, resume, skip_invalid, oversubscribe;
    int shard, nshards;        /* --shard I/K: runs with index % K == I-1,
                                  counted layout by layout, repetition by
                                  repetition, whatever order they run in */
    double timeout_s;          /* > 0: overrides every layout's timeout */
    int retry_given, retry;    /* --retry N: overrides every layout's
                                * retry (sweep_retry.h) */
    bl_rep_order repetition_order; /* UNSET: the sweep file's */
    const char *noisy;         /* --noisy: every layout's neighbour (noisy.h) */
    const char *node_topologies; /* --node-topologies DIR: DIR/HOST.xml is
                                  * node HOST's topology (sweep_nodes.h) */
    FILE *progress;            /* progress lines (stdout) */
} bl_sweep_opts;

typedef struct bl_sweep_totals {
    int runs, ok, failed, timeout, invalid, skipped;
    double wall_s;             /* the whole sweep */
    double launch_s;           /* sum of the launcher's wall times */
} bl_sweep_totals;

/* Runs the sweep. Returns 0 when it ran to the end (see totals for how
 * the runs fared), -1 with err for bad input or a setup failure (nothing
 * ran), -2 when interrupted (finished runs are kept), -3 with err when
 * another sweep is running on the same results (sweep_lock.h). */
int bl_sweep_run(const bl_sweep_opts *o, bl_sweep_totals *t, bl_err *err);

#endif
