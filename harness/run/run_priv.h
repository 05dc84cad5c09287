/* bindlab run's internals shared by its files (harness/run/ only). */
#ifndef BL_RUN_PRIV_H
#define BL_RUN_PRIV_H

#include "h5/h5schema.h"
#include "results/probe_file.h"
#include "run/run.h"

/* The probe file of one process of a record and the CPUs it was given
 * (its rank row's set). */
typedef struct bl_run_gpu_proc {
    const bl_probe_file *file;
    const char *cpus;
} bl_run_gpu_proc;

/* The GPUs each process of r could see into its rank row (gpus,
 * gpus_far), procs[i] being rank row i's, and the gpu-not-local and
 * gpu-shared findings into r->findings (run_gpus.c). */
void bl_run_gpus(bl_h5_run *r, const bl_run_gpu_proc *procs);

#endif
