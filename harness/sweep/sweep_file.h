/* Sweep files (the YAML under configs/sweeps/, see docs/sweep-files.md):
 * YAML read with libyaml into a sweep, i.e. its kernels and the expanded
 * list of layouts. Every error names FILE:LINE:COLUMN, what is wrong and
 * what is accepted; unknown keys are errors. Nothing here checks a layout
 * against a node: that is bl_layout_validate. */
#ifndef BL_SWEEP_FILE_H
#define BL_SWEEP_FILE_H

#include <stddef.h>

#include "err.h"
#include "sweep/sweep_spec.h"

/* Limits on a sweep file, so that a wrong file (a log, /dev/zero, a
 * generated monster) is refused at once instead of eating memory. */
#define BL_SWEEP_FILE_MAX (1L << 20)  /* bytes */
#define BL_SWEEP_LINE_MAX 4096        /* characters in one line */
/* Lists and mappings inside each other: libyaml's time grows with the
 * square of the depth (100,000 levels in 200 KB take it seconds to
 * minutes), and a sweep file needs about 5. */
#define BL_SWEEP_DEPTH_MAX 64
/* Runs (each layout times its repetitions) a sweep may expand to, unless
 * its file raises the cap with max_runs: N (at most BL_SWEEP_RUNS_CEILING):
 * 2,000 layouts x 10,000 repetitions would otherwise be planned until
 * memory runs out, with no count said. */
#define BL_SWEEP_RUNS_MAX 100000L
#define BL_SWEEP_RUNS_CEILING 10000000L

/* Reads and expands the sweep file at path (a regular file or a pipe). On
 * success fills *out, to be released with bl_sweep_free; on failure *out is
 * left empty. */
int bl_sweep_file_load(const char *path, bl_sweep *out, bl_err *err);

/* Runs of a loaded sweep: each layout times its repetitions. */
long bl_sweep_runs(const bl_sweep *s);

/* The same from text in memory; name stands for the file in messages. */
int bl_sweep_file_load_string(const char *text, const char *name,
                              bl_sweep *out, bl_err *err);

/* sweep_file_read.c: the file's text (a regular file or a pipe, at most
 * BL_SWEEP_FILE_MAX bytes, NUL-terminated, *len set; NULL with err on
 * failure), the refusal of a line over BL_SWEEP_LINE_MAX at that line, and
 * of nesting deeper than BL_SWEEP_DEPTH_MAX where it gets too deep (a YAML
 * syntax error is left to the loader, which reports it). */
char *bl_sweep_file_read(const char *path, size_t *len, bl_err *err);
int bl_sweep_file_check_lines(const char *text, size_t len, const char *file,
                              bl_err *err);
int bl_sweep_file_check_depth(const char *text, size_t len, const char *file,
                              bl_err *err);

#endif
