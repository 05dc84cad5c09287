/* The program test_probe.sh runs under libbindlab-probe.so: MPI and OpenMP,
 * nothing of bindlab. Options, in any order:
 *   --setter LIB  after MPI_Init, dlopen LIB and call its
 *                 bl_probe_setter() (an affinity change made by a library
 *                 the probe must name as the caller)
 *   --raw         after MPI_Init, widen the affinity to every CPU by the
 *                 raw system call (behind the probe's interposers)
 *   --move        after MPI_Init, bind the main thread to an allowed CPU
 *                 other than the one it runs on (the kernel must migrate
 *                 it; needs two allowed CPUs)
 *   --fork        after MPI_Init, fork a child that changes its affinity,
 *                 starts a thread and exits without exec
 *   --ready DIR   after the parallel region, create DIR/ready.RANK
 *   --wait        then block until killed
 *   --exit N      exit status after MPI_Finalize (default 0)
 *   --touch MIB   before MPI_Finalize, write MIB MiB of heap, kept until
 *                 exit (pages the probe counts at MPI_Finalize, placed by
 *                 the memory policy the program was started under)
 * Rank 0 prints one line that does not depend on timing or placement. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

static void all_cpus(cpu_set_t *all)
{
    CPU_ZERO(all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, all);
}

/* --touch's memory: a global, so that its writes are not optimised away */
char *volatile touched;

/* Binds the calling thread to an allowed CPU it is not running on. */
static int move_elsewhere(void)
{
    cpu_set_t allowed, other;
    int here = sched_getcpu();
    if (here < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (c != here && CPU_ISSET(c, &allowed)) {
            CPU_ZERO(&other);
            CPU_SET(c, &other);
            return sched_setaffinity(0, sizeof other, &other);
        }
    return -1;
}

static void *nothing(void *arg)
{
    return arg;
}

/* A child that uses what the probe interposes, then exits (destructors
 * run) without exec. 0 when it exited 0. */
static int fork_child(void)
{
    int status;
    pid_t pid = fork();
    if (pid == 0) {
        cpu_set_t all;
        pthread_t th;
        all_cpus(&all);
        sched_setaffinity(0, sizeof all, &all);
        if (pthread_create(&th, NULL, nothing, NULL) == 0)
            pthread_join(th, NULL);
        exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *setter = NULL, *ready = NULL;
    int wait = 0, status = 0, raw = 0, forks = 0, move = 0, rank, size;
    int provided;
    size_t touch = 0;
    double sum = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--setter") == 0 && i + 1 < argc)
            setter = argv[++i];
        else if (strcmp(argv[i], "--ready") == 0 && i + 1 < argc)
            ready = argv[++i];
        else if (strcmp(argv[i], "--raw") == 0)
            raw = 1;
        else if (strcmp(argv[i], "--move") == 0)
            move = 1;
        else if (strcmp(argv[i], "--fork") == 0)
            forks = 1;
        else if (strcmp(argv[i], "--wait") == 0)
            wait = 1;
        else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
            status = atoi(argv[++i]);
        else if (strcmp(argv[i], "--touch") == 0 && i + 1 < argc)
            touch = strtoul(argv[++i], NULL, 10) << 20;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (setter && call_setter(setter) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (raw) {
        cpu_set_t all;
        all_cpus(&all);
        if (syscall(SYS_sched_setaffinity, 0, sizeof all, &all) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (move && move_elsewhere() != 0) {
        fprintf(stderr, "probe_target: no other CPU to move to\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (forks && fork_child() != 0) {
        fprintf(stderr, "probe_target: the forked child failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
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
    if (touch && (touched = malloc(touch)) != NULL)
        memset(touched, 1, touch);
    MPI_Finalize();
    return status;
}
