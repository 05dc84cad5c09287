/* The app's record of the OpenMP runtime it ran with (common/omp_runtime.h
 * finds it in the process): the run's omp_* attributes and the lines its
 * text output shows. */
#ifndef BL_OMP_RECORD_H
#define BL_OMP_RECORD_H

#include <stdio.h>

#include "h5/h5schema.h"

/* Fills run->omp_runtime, omp_runtime_version, omp_runtime_path,
 * omp_runtimes_other and omp_gomp_runtime from this process. -1 out of
 * memory. */
int bl_omp_record(bl_h5_run *run);

/* "openmp runtime: KIND VERSION (PATH)" and, when another runtime is
 * loaded too, a warning line naming it with what to do. */
void bl_omp_record_print(FILE *out, const bl_h5_run *run, int detail);

/* For --version: "openmp runtime: KIND VERSION FILE" for the runtime
 * serving the app's calls, "openmp also loaded: ..." for each other one
 * (bindlab sweep reads them: sweep_omp.h). */
void bl_omp_record_print_loaded(FILE *out);

#endif
