/* The program test_probe.sh runs under libbindlab-probe.so: MPI and OpenMP,
 * nothing of bindlab. Options, in any order:
 *   --setter LIB  after MPI_Init, dlopen LIB and call its
 *                 bl_probe_setter() (an affinity change made by a library
 *                 the probe must name as the caller)
 *   --ready DIR   after the parallel region, create DIR/ready.RANK
 *   --wait        then block until killed
 *   --exit N      exit status after MPI_Finalize (default 0)
 * Rank 0 prints one line that does not depend on timing or placement. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <omp.h>

static int call_setter(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW);
    void *sym = h ? dlsym(h, "bl_probe_setter") : NULL;
    int (*setter)(void);
    if (!sym) {
        fprintf(stderr, "probe_target: %s\n", dlerror());
        return -1;
    }
    memcpy(&setter, &sym, sizeof setter);
    return setter();
}

int main(int argc, char **argv)
{
    const char *setter = NULL, *ready = NULL;
    int wait = 0, status = 0, rank, size, provided;
    double sum = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--setter") == 0 && i + 1 < argc)
            setter = argv[++i];
        else if (strcmp(argv[i], "--ready") == 0 && i + 1 < argc)
            ready = argv[++i];
        else if (strcmp(argv[i], "--wait") == 0)
            wait = 1;
        else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
            status = atoi(argv[++i]);
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (setter && call_setter(setter) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
#pragma omp parallel reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
    if (ready) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ready.%d", ready, rank);
        close(open(path, O_WRONLY | O_CREAT, 0644));
    }
    while (wait)
        pause();
    if (rank == 0)
        printf("probe_target: %d ranks, thread sum %.0f\n", size, sum);
    MPI_Finalize();
    return status;
}
