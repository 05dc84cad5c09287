/* A library that links MPI and runs it, loaded by local_loader with
 * RTLD_LOCAL as Python loads mpi4py's module (test_probe.sh): its MPI
 * library is then outside the global scope, and the probe's MPI hooks
 * must still reach it. Returns the first failing call's code, else 0. */
#include <mpi.h>

int bl_mpi_module_run(void);

int bl_mpi_module_run(void)
{
    int provided = 0, rc;
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Finalize();
}
