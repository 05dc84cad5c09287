/* One run of bindlab-app: set the kernel up, first-touch, time every
 * iteration between barriers, record placement, counters and pages, gather
 * everything on rank 0, print and write the run file. */
#ifndef BL_APP_RUN_H
#define BL_APP_RUN_H

#include <mpi.h>

#include "app_cli.h"

/* Returns the process exit status: 0 verified, 1 run-time failure or wrong
 * answer, 2 bad input. argc/argv are recorded as the command. */
int bl_app_run(const bl_app_opts *o, int argc, char **argv, MPI_Comm comm);

#endif
