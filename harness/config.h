/* Sweep files (the YAML under configs/sweeps/, see docs/sweep-files.md):
 * YAML read with libyaml into a sweep, i.e. its kernels and the expanded
 * list of layouts. Every error names FILE:LINE:COLUMN, what is wrong and
 * what is accepted; unknown keys are errors. Nothing here checks a layout
 * against a node: that is bl_layout_validate. */
#ifndef BL_CONFIG_H
#define BL_CONFIG_H

#include "../common/err.h"
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

/* Reads and expands the sweep file at path. On success fills *out, to be
 * released with bl_sweep_free; on failure *out is left empty. */
int bl_config_load(const char *path, bl_sweep *out, bl_err *err);

/* The same from text in memory; name stands for the file in messages. */
int bl_config_load_string(const char *text, const char *name, bl_sweep *out,
                          bl_err *err);

void bl_sweep_free(bl_sweep *s);

#endif
