/* The line bindlab-app prints on stdout (rank 0, flushed) once every rank
 * has returned from MPI_Init: "bindlab-app: started: N ranks past
 * MPI_Init". The harness reads it to tell a launch that died before the app
 * started (a launcher or MPI_Init failure: run again with --retry) from a
 * run that started and then failed (never run again). Shared by app/ and
 * harness/: the harness knows the app only through its CLI, its output
 * and its files. */
#ifndef BL_APP_STARTED_H
#define BL_APP_STARTED_H

#define BL_APP_STARTED "bindlab-app: started:"

#endif
