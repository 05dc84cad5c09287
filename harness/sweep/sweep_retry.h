/* A run launched again when its launch died before the app started
 * (sweep --retry N, retry: in the sweep file): no rank got past MPI_Init,
 * as with Open MPI 4.1's wire-up race, a node's daemon slow to start or a
 * PMIx fence timing out. Never a run that started (the app's line of
 * common/app_started.h), wrote its file, said what was wrong, or timed
 * out. Each failed attempt keeps its log and a row of the record's
 * retries. Shared by sweep_item.c; not a public interface. */
#ifndef BL_SWEEP_RETRY_H
#define BL_SWEEP_RETRY_H

#include "sweep/sweep_item.h"

/* How many more launches the item may have: --retry, else its layout's. */
int bl_sweep_retry_max(const bl_sweep_ctx *c, const bl_sweep_item *it);

/* 1 when the launch in res died before the app started: not timed out, no
 * run file at appfile, no started line on stdout, and no message of the
 * app's own on stderr (bad input is not a launch failure) other than that
 * MPI_Init_thread failed. */
int bl_sweep_retry_died_before_start(const bl_launch_result *res,
                                     const char *appfile);

/* Keeps attempt h->attempts, which died of `reason`: its log renamed to
 * DIR/RUN.tryK.log, a row in h->retries, and the progress line
 * "RUN: retry K/MAX: REASON". 0, or -1 with err. */
int bl_sweep_retry_keep(bl_sweep_ctx *c, const bl_sweep_item *it,
                        const bl_launch_result *res, const char *reason,
                        const char *log, bl_h5_harness *h, bl_err *err);

#endif
