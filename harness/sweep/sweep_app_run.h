/* One run of a sweep's app: (sweep_app.h): the program's argv and env
 * filled for the layout, launched as `bindlab run` launches a program
 * (run/run.h: the probe preloaded, its files the record's rows), and the
 * rate read from the program's output. Shared by sweep_item.c. */
#ifndef BL_SWEEP_APP_RUN_H
#define BL_SWEEP_APP_RUN_H

#include <limits.h>

#include "run/run.h"
#include "sweep/sweep_item.h"

typedef struct bl_sweep_app_run {
    bl_run_launch rl;
    char **program;             /* the ranks' argv, filled, [0] found */
    char **env;                 /* NAME=VALUE for every rank, filled */
    char probe[PATH_MAX];
    char probe_dir[PATH_MAX];   /* DIR/<run_id>.probe */
} bl_sweep_app_run;

/* The command of a valid item of an app: sweep (hosts: the layout's, or
 * NULL), a filled in. 0, or -1 with err (a placeholder that cannot be
 * filled, the program missing or static, no probe). */
int bl_sweep_app_command(const bl_sweep_ctx *c, const bl_sweep_item *it,
                         const char *hosts, bl_sweep_app_run *a,
                         bl_command *cmd, bl_err *err);

/* An empty probe directory for the launch: 0, or -1 with err. */
int bl_sweep_app_probe_dir(const bl_sweep_app_run *a, int dirfd,
                           bl_err *err);

/* After the launch: the probe's rows, the status (a rate regex that
 * does not match fails the run), the rate, the record written at
 * record. 0, or -1 with err when the record cannot be written. */
int bl_sweep_app_record(const bl_sweep_ctx *c, bl_sweep_app_run *a,
                        const char *record, const bl_launch_result *res,
                        const bl_launch_opts *lo, bl_h5_harness *h,
                        double *rate, char *unit, size_t unit_len,
                        bl_err *err);

void bl_sweep_app_run_free(bl_sweep_app_run *a);

#endif
