/* LD_PRELOAD library for tests/integration/test_sweep_retry.sh: makes one
 * rank of bindlab-app fail at a chosen point, the way launches and runs
 * fail on real clusters. Written for the test (no MPI header: the two calls
 * are looked up with dlsym).
 *
 * BL_CRASH_AT=init  the rank dies of SIGSEGV as soon as its MPI_Init_thread
 *                   returns, before the app's first collective: as when
 *                   Open MPI 4.1's wire-up race kills a rank still in
 *                   MPI_Init's last fence while the others have left it
 *                   (they wait in their first collective until mpirun
 *                   ends the job). The app never started.
 * BL_CRASH_AT=run   the rank dies of SIGSEGV at its first MPI_Wtime (the
 *                   timed iterations): the app had started.
 * BL_CRASH_AT=hang  the rank sleeps for ever at its first MPI_Wtime.
 * BL_CRASH_RANK=R   the rank that fails (default 1).
 * BL_CRASH_MARKER=F fail only when F does not exist, creating it: the next
 *                   launch runs through. Without it every launch fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int my_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return atoi(v);
    }
    return 0;
}

/* 1 when this rank fails now at `where` (at most once per marker file). */
static int fails_at(const char *where)
{
    const char *at = getenv("BL_CRASH_AT"), *rank = getenv("BL_CRASH_RANK");
    const char *marker = getenv("BL_CRASH_MARKER");
    int fd;
    if (!at || strcmp(at, where) != 0 ||
        my_rank() != (rank ? atoi(rank) : 1))
        return 0;
    if (!marker)
        return 1;
    fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return 0; /* failed once already (or cannot tell): run through */
    close(fd);
    return 1;
}

static void fail_now(void)
{
    const char *at = getenv("BL_CRASH_AT");
    if (at && strcmp(at, "hang") == 0)
        for (;;)
            pause();
    /* the default action, not a sanitizer's handler: killed by the signal */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
}

typedef int init_fn(int *, char ***, int, int *);
typedef double wtime_fn(void);

/* The next definition of name (the MPI library's), as a function pointer:
 * copied, since ISO C has no cast from dlsym's object pointer. */
static void next_symbol(const char *name, void *fn, size_t size)
{
    void *p = dlsym(RTLD_NEXT, name);
    memcpy(fn, &p, size);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
double MPI_Wtime(void);

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    init_fn *real;
    int rc;
    next_symbol("MPI_Init_thread", &real, sizeof real);
    rc = real(argc, argv, required, provided);
    if (fails_at("init"))
        fail_now();
    return rc;
}

double MPI_Wtime(void)
{
    static int first = 1;
    wtime_fn *real;
    next_symbol("MPI_Wtime", &real, sizeof real);
    if (first) {
        first = 0;
        if (fails_at("run") || fails_at("hang"))
            fail_now();
    }
    return real();
}
