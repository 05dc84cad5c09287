/* bindlab-app: the CLI. Parses options, starts MPI, runs, exits with the
 * run's status (0 verified, 1 failure or wrong answer, 2 bad input). */
#include <stdio.h>

#include <mpi.h>

#include "app_cli.h"
#include "app_run.h"
#include "app_threads.h"
#include "isa.h"
#include "measure/omp_record.h"
#include "placement_check.h"

/* Before MPI_Init the rank is only known from the launcher's environment;
 * bad options are reported by the first rank alone (or by the process
 * when no launcher's rank is found). */
static int first_rank(void)
{
    return bl_pcheck_launcher_rank() <= 0;
}

int main(int argc, char **argv)
{
    bl_app_opts o;
    bl_err err = {""};
    int provided = 0, status;

    if (bl_app_parse(argc, argv, &o, &err) < 0) {
        if (first_rank())
            fprintf(stderr, "bindlab-app: %s\n", err.msg);
        return 2;
    }
    if (o.help) {
        bl_app_usage_write(stdout);
        printf("\nKernels: %s\n", bl_kernel_names());
        return 0;
    }
    if (o.version) {
        char levels[64];
        bl_isa_list_here(levels, sizeof levels);
        printf("bindlab-app %s\n", bl_app_version());
        /* for scripts (bench/all.sh): the levels --isa accepts here */
        printf("isa levels on this CPU: %s (best %s)\n", levels,
               bl_isa_name(bl_isa_best()));
        bl_omp_record_print_loaded(stdout);
        return 0;
    }
    /* before MPI and before the first parallel region */
    if (bl_app_threads_check(&err) < 0) {
        if (first_rank())
            fprintf(stderr, "bindlab-app: %s\n", err.msg);
        return 2;
    }
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
        MPI_SUCCESS) {
        fprintf(stderr, "bindlab-app: MPI_Init_thread failed\n");
        return 1;
    }
    if (provided < MPI_THREAD_FUNNELED) {
        if (first_rank())
            fprintf(stderr, "bindlab-app: the MPI library gives thread level "
                    "%d, below MPI_THREAD_FUNNELED; rebuild MPI with thread "
                    "support\n", provided);
        MPI_Finalize();
        return 1;
    }
    status = bl_app_run(&o, argc, argv, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
