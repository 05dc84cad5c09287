/* Sweep files (the YAML under configs/sweeps/, see docs/sweep-files.md):
 * YAML read with libyaml into a sweep, i.e. its kernels and the expanded
 * list of layouts. Every error names FILE:LINE:COLUMN, what is wrong and
 * what is accepted; unknown keys are errors. Nothing here checks a layout
 * against a node: that is bl_layout_validate. */
#ifndef BL_CONFIG_H
#define BL_CONFIG_H

#include "err.h"
#include "layout.h"

typedef struct bl_sweep {
    char name[64];          /* name:, or the file name without .yaml */
    char description[512];
    char file[512];         /* the path it was read from */
    bl_kernel_spec *kernels;
    int nkernels;
    bl_layout *layouts;     /* in run id order: layouts[i].run_id = r%04d */
    int nlayouts;
} bl_sweep;

/* Limits on a sweep file, so that a wrong file (a log, /dev/zero, a
 * generated monster) is refused at once instead of eating memory. */
#define BL_SWEEP_FILE_MAX (1L << 20)  /* bytes */
#define BL_SWEEP_LINE_MAX 4096        /* characters in one line */

/* 1 when name can be a sweep's name: one path component of 1 to 63
 * characters from [A-Za-z0-9._-], not starting with '.' or '-' (it becomes
 * RESULTS/NAME.h5, RESULTS/NAME.d/ and a Slurm metadata directory). */
int bl_sweep_name_ok(const char *name);

/* Reads and expands the sweep file at path (a regular file or a pipe). On success fills *out, to be
 * released with bl_sweep_free; on failure *out is left empty. */
int bl_config_load(const char *path, bl_sweep *out, bl_err *err);

/* The same from text in memory; name stands for the file in messages. */
int bl_config_load_string(const char *text, const char *name, bl_sweep *out,
                          bl_err *err);

void bl_sweep_free(bl_sweep *s);

#endif
