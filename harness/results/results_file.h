/* The harness's HDF5 files (results/): its record of each run and the sweep
 * files. One per run under results/NAME.d/ (written by the harness when a
 * run ends, whatever its fate) and the merged results/NAME.h5. Both have
 * the same layout, so one reader serves them:
 *   /machine, /runs/<run-id> (the app's /run plus the harness record),
 *   /summary (one row per run).
 *
 * Why this lives in harness/ and not common/: only bindlab writes and reads
 * these records (bindlab-app must not link harness code), while the layout
 * itself, the record structs and their column/attribute descriptions, stays
 * in common/h5/h5schema.h, the one definition of the schema both programs
 * share; this file only drives the engine (common/h5/h5table.h) with it. */
#ifndef BL_RESULTS_FILE_H
#define BL_RESULTS_FILE_H

#include "h5/h5schema.h"
#include "proc/launch.h"

/* Writes the harness's attributes, binding report and checks into the run
 * group `group` (created when the app left no run). */
int bl_h5_write_harness(hid_t file, const char *group, const bl_h5_harness *h,
                        bl_err *err);
int bl_h5_read_harness(hid_t file, const char *group, bl_h5_harness *h,
                       bl_err *err);
void bl_h5_harness_free(bl_h5_harness *h);

/* How res ended into h (stderr_tail: its last 12 lines, exit_status -1
 * when a signal ended it, term_signal, timed_out, wall_s), and in words
 * into how ("exit status 3", bl_launch_describe). */
void bl_h5_harness_launched(bl_h5_harness *h, const bl_launch_result *res,
                            const bl_launch_opts *lo, char *how, size_t len);

/* The /summary row of a run: app result (may be NULL) + harness. Strings
 * point into app/h (not copied). */
void bl_h5_summary_row(const bl_h5_run *app, const bl_h5_harness *h,
                       bl_h5_summary *row);

/* Writes one run's sweep file atomically (temp + rename): the nmachines
 * machine records as /nodes/<k>, the app's run and the harness record.
 * machines and app may be NULL (the app never wrote its file: failed,
 * timed out, invalid). When h->nodes is NULL or "", the run's "nodes" are
 * the node indexes of app's rank rows ("0" for a run on one machine), or
 * "" without machines. dirfd: the directory of path held open (its last
 * component is written there, bl_atomic_write_in), or AT_FDCWD. */
int bl_h5_write_sweep_run(int dirfd, const char *path, const char *command,
                          const bl_h5_machine *machines, size_t nmachines,
                          const bl_h5_run *app, const bl_h5_harness *h,
                          bl_err *err);

/* Merges sweep files (per-run or merged) into out, atomically. Machine
 * records are kept once per distinct node (bl_h5_node_key_eq) as
 * /nodes/<k> of out, and every run's "nodes", summary "nodes" and rank
 * rows' "node" are renumbered to them; a run of a file written before
 * /nodes that has a result ran on that file's /machine. A run id that
 * appears twice on the same nodes is kept once (the first) and counted in
 * *duplicates; the same id on other nodes (two machines' sweeps) is kept
 * under "<run_id>@<hostname>" (or "@n<k>" when that is taken too).
 * Inputs that cannot be read are skipped and counted in *unreadable, with
 * the first message in err; the merge still succeeds. */
/* Called for a run id kept once whose two copies have different labels
 * (two sweeps whose ids collide on the same machine): the kept copy's
 * input and label, then the dropped one's. */
typedef void bl_h5_merge_conflict_fn(void *ctx, const char *run_id,
                                     const char *kept_file,
                                     const char *kept_label,
                                     const char *dropped_file,
                                     const char *dropped_label);

/* Called for each input that cannot be read, with its message. */
typedef void bl_h5_merge_unreadable_fn(void *ctx, const char *file,
                                       const char *msg);

/* Inputs are read one at a time, once each, into an HDF5 file built in
 * memory, written to OUT.tmp.PID and renamed over out when complete
 * (bl_atomic_write; a full disk is an error, never a crash). When no input
 * can be read, or on any failure, out is left as it was (-1). conflict and
 * bad (each may be NULL) are called for each label conflict and each
 * unreadable input. */
int bl_h5_merge(const char *out, const char *command,
                   const char *const *inputs, size_t ninputs,
                   bl_h5_merge_conflict_fn *conflict,
                   bl_h5_merge_unreadable_fn *bad, void *ctx,
                   int *duplicates, int *unreadable, bl_err *err);

/* Adds the runs of the sweep files records[0..n) to the merged file path
 * in place, in time proportional to what is added, not to what path
 * holds (docs/sweep-runs.md, "The merged file"): the additions are made in
 * its twin file `twin` (a copy of path that lags it by the last append),
 * which is then renamed over path while path becomes the twin. Every
 * moment leaves a complete path: a kill in the middle of an append leaves
 * path as it was before it; the twin is then made anew from path by the
 * next append. path is created (empty) when missing. Duplicates and
 * unreadable records as bl_h5_merge; the caller holds the sweep's lock
 * (one appender at a time). */
int bl_h5_append(const char *path, const char *twin, const char *command,
                 const char *const *records, size_t n, int *duplicates,
                 int *unreadable, bl_err *err);

/* Reads /summary of a sweep file (rows freed with bl_h5_table_free). */
int bl_h5_read_summary(const char *path, bl_h5_summary **rows, size_t *n,
                       bl_err *err);

/* "0,2" from the distinct node indexes of r's rank rows ("0" when it has
 * none); buf holds "" when nmachines is 0. */
void bl_h5_run_nodes(const bl_h5_run *r, size_t nmachines, char *buf,
                     size_t len);

/* Group path of a run: "runs/<run_id>". */
void bl_h5_run_path(const char *run_id, char *buf, size_t len);

#endif
