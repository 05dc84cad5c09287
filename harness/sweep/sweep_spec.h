/* A sweep: its name, its kernels and the expanded list of layouts, however
 * it was made (read from a sweep file by sweep_file.h, or built in code by
 * tests and bindlab slurm). */
#ifndef BL_SWEEP_SPEC_H
#define BL_SWEEP_SPEC_H

#include "layout/layout.h"
#include "sweep/sweep_app.h"

/* The order of a sweep's repetitions: interleaved runs repetition 1 of
 * every layout, then repetition 2 of every layout, ... (A B A B), so that
 * a drift of the machine (another job, a thermal limit, a page cache
 * filling) hits every layout alike; consecutive runs each layout's
 * repetitions one after the other (A A B B), as bindlab did before. */
typedef enum bl_rep_order {
    BL_REP_ORDER_UNSET = 0,     /* not given: interleaved */
    BL_REP_INTERLEAVED,
    BL_REP_CONSECUTIVE
} bl_rep_order;

/* "interleaved" or "consecutive" (UNSET reads as interleaved); parse
 * returns -1 for anything else. */
const char *bl_rep_order_name(bl_rep_order o);
int bl_rep_order_parse(const char *text, bl_rep_order *o);

typedef struct bl_sweep {
    char name[64];          /* name:, or the file name without .yaml */
    char description[512];
    char file[512];         /* the path it was read from */
    char launcher[512];     /* launcher: as written (launcher_choice.h), or
                             * "" when the file names none */
    int launcher_line, launcher_col;
    bl_kernel_spec *kernels;    /* with app: one entry, the program's name */
    int nkernels;
    bl_app_spec *app;           /* app: (a program of anyone's), or NULL */
    bl_layout *layouts;     /* in run id order: layouts[i].run_id = r%04d */
    int nlayouts;
    bl_rep_order repetition_order;  /* repetition_order: */
} bl_sweep;

/* 1 when name can be a sweep's name: one path component of 1 to 63
 * characters from [A-Za-z0-9._-], not starting with '.' or '-' (it becomes
 * RESULTS/NAME.h5, RESULTS/NAME.d/ and a Slurm metadata directory). */
int bl_sweep_name_ok(const char *name);

/* Releases what a sweep holds and empties it. */
void bl_sweep_free(bl_sweep *s);

#endif
