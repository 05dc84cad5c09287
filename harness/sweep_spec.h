/* A sweep: its name, its kernels and the expanded list of layouts, however
 * it was made (read from a sweep file by sweep_file.h, or built in code by
 * tests and bindlab slurm). */
#ifndef BL_SWEEP_SPEC_H
#define BL_SWEEP_SPEC_H

#include "layout.h"

typedef struct bl_sweep {
    char name[64];          /* name:, or the file name without .yaml */
    char description[512];
    char file[512];         /* the path it was read from */
    char launcher[512];     /* launcher: as written (launcher_choice.h), or
                             * "" when the file names none */
    int launcher_line, launcher_col;
    bl_kernel_spec *kernels;
    int nkernels;
    bl_layout *layouts;     /* in run id order: layouts[i].run_id = r%04d */
    int nlayouts;
} bl_sweep;

/* 1 when name can be a sweep's name: one path component of 1 to 63
 * characters from [A-Za-z0-9._-], not starting with '.' or '-' (it becomes
 * RESULTS/NAME.h5, RESULTS/NAME.d/ and a Slurm metadata directory). */
int bl_sweep_name_ok(const char *name);

/* Releases what a sweep holds and empties it. */
void bl_sweep_free(bl_sweep *s);

#endif
