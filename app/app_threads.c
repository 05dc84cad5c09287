#include "app_threads.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <omp.h>

/* A number from a /proc/sys file, or -1. */
static long proc_sys_long(const char *path)
{
    long v = -1;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

int bl_app_threads_check(bl_err *err)
{
    /* nthreads-var, capped as libgomp caps a team (no region has run yet,
     * so asking starts no thread) */
    long want = omp_get_max_threads(), limit = omp_get_thread_limit();
    long threads_max = proc_sys_long("/proc/sys/kernel/threads-max");
    long pid_max = proc_sys_long("/proc/sys/kernel/pid_max");
    struct rlimit nproc;
    if (limit > 0 && limit < want)
        want = limit;
    if (want > BL_APP_THREADS_MAX)
        return bl_err_set(err, "%ld OpenMP threads (OMP_NUM_THREADS): more "
                          "than %d, bindlab-app's cap per rank; give fewer",
                          want, BL_APP_THREADS_MAX);
    if (threads_max > 0 && want > threads_max)
        return bl_err_set(err, "%ld OpenMP threads (OMP_NUM_THREADS): more "
                          "than the system's limit of %ld threads "
                          "(/proc/sys/kernel/threads-max)", want, threads_max);
    if (pid_max > 0 && want > pid_max)
        return bl_err_set(err, "%ld OpenMP threads (OMP_NUM_THREADS): more "
                          "than the system's %ld process ids "
                          "(/proc/sys/kernel/pid_max)", want, pid_max);
    if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &nproc) == 0 &&
        nproc.rlim_cur != RLIM_INFINITY && (rlim_t)want > nproc.rlim_cur)
        return bl_err_set(err, "%ld OpenMP threads (OMP_NUM_THREADS): more "
                          "than this user may have (RLIMIT_NPROC, ulimit -u: "
                          "%ld)", want, (long)nproc.rlim_cur);
    return 0;
}
