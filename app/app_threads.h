/* OpenMP threads the process cannot create are refused before the first
 * parallel region: with OMP_NUM_THREADS=100000 libgomp dies of SIGSEGV
 * (its team start data is allocated on the stack) with nothing said, and
 * short of that a failed pthread_create ends the run inside the kernel. */
#ifndef BL_APP_THREADS_H
#define BL_APP_THREADS_H

#include "err.h"

/* bindlab-app's own cap on threads per rank (README's bindlab-app
 * section): far above the PUs of any node a rank runs on. */
#define BL_APP_THREADS_MAX 8192

/* 0 when the threads OpenMP will start (OMP_NUM_THREADS, at most
 * OMP_THREAD_LIMIT) are within every limit of this process: the cap above,
 * the kernel's threads-max and pid_max, and RLIMIT_NPROC (ulimit -u; not
 * for root, whom it does not bind). Else -1 with one line naming the
 * count and the limit. */
int bl_app_threads_check(bl_err *err);

#endif
