/* MPI_Init, MPI_Init_thread and MPI_Finalize (and gfortran's mpi_init_,
 * mpi_init_thread_, mpi_finalize_) interposed and forwarded to the next
 * definition found with dlsym(RTLD_NEXT), or in the caller's scope when
 * the MPI library is not in the global one (bp_next_from): the prototypes
 * are declared here with the C types every MPI shares at these calls
 * (int, pointers), so one probe serves any MPI's ABI and no MPI header is
 * needed. They mark the phases of affinity changes and the moments "init"
 * (at the return) and "finalize" (at the entry, with the pages per NUMA
 * node). A call made
 * from inside another (a Fortran binding calling the C one) is only
 * forwarded. */
#include "probe_priv.h"

#define BP_MPI_ERR_OTHER 16 /* what a missing MPI returns; any non-zero would do */

#define EXPORT __attribute__((visibility("default")))
/* In the hook itself: the return address is the hook's caller. */
#define NEXT(name) bp_next_from(name, __builtin_return_address(0))

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
void mpi_init_(int *ierr);
void mpi_init_thread_(int *required, int *provided, int *ierr);
void mpi_finalize_(int *ierr);

static __thread int depth;

static int enter(void)
{
    bp_ensure();
    return depth++ == 0 && bp.enabled;
}

/* The phase changes after a sample of every thread, which closes the
 * previous phase for changes made behind the interposers. */
static void set_phase(int phase)
{
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask); /* see bp_lock_blocked */
    bp_sample_all();
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    bp.phase = phase;
}

static void init_enter(void)
{
    set_phase(BP_IN_INIT);
}

static void init_leave(const char *call, int rc)
{
    set_phase(BP_AFTER_INIT);
    bp_emit("mpi call=%s t=%.6f rc=%d", call, bp_now(), rc);
    bp_record_moment("init");
}

static void finalize_enter(const char *call)
{
    double t = bp_now();
    bp_emit("mpi call=%s t=%.6f", call, t);
    bp_record_moment("finalize");
    bp_pages_record("finalize");
    bp.finalize_seen = 1;
    set_phase(BP_IN_FINALIZE);
    bp.cost_finalize_s += bp_now() - t;
}

static void finalize_leave(void)
{
    set_phase(BP_AFTER_FINALIZE);
}

EXPORT int MPI_Init(int *argc, char ***argv)
{
    int (*real)(int *, char ***) = (int (*)(int *, char ***))NEXT("MPI_Init");
    int mine = enter(), rc;
    if (mine)
        init_enter();
    rc = real ? real(argc, argv) : BP_MPI_ERR_OTHER;
    if (mine)
        init_leave("MPI_Init", rc);
    depth--;
    return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int (*real)(int *, char ***, int, int *) =
        (int (*)(int *, char ***, int, int *))NEXT("MPI_Init_thread");
    int mine = enter(), rc;
    if (mine)
        init_enter();
    rc = real ? real(argc, argv, required, provided) : BP_MPI_ERR_OTHER;
    if (mine)
        init_leave("MPI_Init_thread", rc);
    depth--;
    return rc;
}

EXPORT int MPI_Finalize(void)
{
    int (*real)(void) = (int (*)(void))NEXT("MPI_Finalize");
    int mine = enter(), rc;
    if (mine)
        finalize_enter("MPI_Finalize");
    rc = real ? real() : BP_MPI_ERR_OTHER;
    if (mine)
        finalize_leave();
    depth--;
    return rc;
}

EXPORT void mpi_init_(int *ierr)
{
    void (*real)(int *) = (void (*)(int *))NEXT("mpi_init_");
    int mine = enter();
    if (mine)
        init_enter();
    if (real)
        real(ierr);
    else
        *ierr = BP_MPI_ERR_OTHER;
    if (mine)
        init_leave("mpi_init_", *ierr);
    depth--;
}

EXPORT void mpi_init_thread_(int *required, int *provided, int *ierr)
{
    void (*real)(int *, int *, int *) =
        (void (*)(int *, int *, int *))NEXT("mpi_init_thread_");
    int mine = enter();
    if (mine)
        init_enter();
    if (real)
        real(required, provided, ierr);
    else
        *ierr = BP_MPI_ERR_OTHER;
    if (mine)
        init_leave("mpi_init_thread_", *ierr);
    depth--;
}

EXPORT void mpi_finalize_(int *ierr)
{
    void (*real)(int *) = (void (*)(int *))NEXT("mpi_finalize_");
    int mine = enter();
    if (mine)
        finalize_enter("mpi_finalize_");
    if (real)
        real(ierr);
    else
        *ierr = BP_MPI_ERR_OTHER;
    if (mine)
        finalize_leave();
    depth--;
}
