/* Sweep files: one per run under results/NAME.d/ (written by the harness
 * when a run ends, whatever its fate) and the merged results/NAME.h5. Both
 * have the same layout, so one reader serves them:
 *   /machine, /runs/<run-id> (the app's /run plus the harness record),
 *   /summary (one row per run). */
#ifndef BL_H5SWEEP_H
#define BL_H5SWEEP_H

#include "h5schema.h"

/* Writes one run's sweep file atomically (temp + rename). machine and app
 * may be NULL (the app never wrote its file: failed, timed out, invalid). */
int bl_h5_write_sweep_run(const char *path, const char *command,
                          const bl_h5_machine *machine, const bl_h5_run *app,
                          const bl_h5_harness *h, bl_err *err);

/* Merges sweep files (per-run or merged) into out, atomically. A run id
 * that appears twice is kept once (the first) and counted in *duplicates.
 * Inputs that cannot be read are skipped and counted in *unreadable, with
 * the first message in err; the merge still succeeds. */
int bl_h5_merge(const char *out, const char *command,
                const char *const *inputs, size_t ninputs, int *duplicates,
                int *unreadable, bl_err *err);

/* Reads /summary of a sweep file (rows freed with bl_h5_table_free). */
int bl_h5_read_summary(const char *path, bl_h5_summary **rows, size_t *n,
                       bl_err *err);

/* Group path of a run: "runs/<run_id>". */
void bl_h5_run_path(const char *run_id, char *buf, size_t len);

#endif
