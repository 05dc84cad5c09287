/* What turning probe files into a run record costs when a process had
 * many threads: P processes (default 2), each with N threads (default
 * 10000) that each were sampled, ran and ended (a "thread" and a
 * "thread_end" line, as a program that starts and ends worker threads
 * over its life leaves them), one affinity change each 100 threads.
 * Times the three steps of bindlab run after the launch: reading the
 * files into rows (bl_run_record_read), the cross-check and the probe's
 * flags (bl_crosscheck, bl_run_flags), and writing the HDF5 record
 * (bl_h5_write_sweep_run); prints each and the total per process, wall
 * time and this process's CPU time (which a loaded machine moves less).
 * usage: bindlab-probe-record [THREADS [PROCESSES]] (bench/probe_record.sh) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bindreport/crosscheck.h"
#include "results/results_file.h"
#include "run/run.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* One probe file of a rank with n threads besides main, on CPU rank. */
static int write_probe(const char *dir, int rank, int nproc, int n)
{
    char path[4200];
    FILE *f;
    int pid = 100000 + rank;
    snprintf(path, sizeof path, "%s/bindlab-probe.bench.%d", dir, pid);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "bindlab-probe 1\nprocess pid=%d ppid=1 host=bench exe=/bin/x "
            "argv0=x rank=%d rank_from=OMPI_COMM_WORLD_RANK size=%d "
            "size_from=OMPI_COMM_WORLD_SIZE period_ms=5 start_unix=1.0\n",
            pid, rank, nproc);
    fprintf(f, "cpus moment=start tid=%d t=0.0001 cpus=%d\n", pid, rank);
    fprintf(f, "thread tid=%d label=main object=- t=0.0002 phase=before-init "
            "cpus=%d\nmpi call=MPI_Init t=0.1 rc=0\n", pid, rank);
    fprintf(f, "cpus moment=init tid=%d t=0.1 cpus=%d\n", pid, rank);
    for (int i = 1; i <= n; i++) {
        int tid = pid * 100 + i;
        fprintf(f, "thread tid=%d label=openmp object=/lib/libgomp.so.1 "
                "t=%.4f phase=after-init cpus=%d\n", tid, 0.1 + i * 1e-4, rank);
        if (i % 100 == 0)
            fprintf(f, "affinity t=%.4f tid=%d target=%d phase=after-init "
                    "call=pthread_setaffinity_np old=%d new=%d asked=%d "
                    "changed=0 ok=1 caller=/lib/libgomp.so.1 by=openmp\n",
                    0.1 + i * 1e-4, tid, tid, rank, rank, rank);
        fprintf(f, "thread_end tid=%d t=%.4f cpus=%d seen=%d samples=%d "
                "migrations=0 vcsw=3 ivcsw=1\n", tid, 0.2 + i * 1e-4, rank,
                rank, 1 + i % 7);
    }
    fprintf(f, "mpi call=MPI_Finalize t=9.0\ncpus moment=finalize tid=%d "
            "t=9.0 cpus=%d\npages node=0 n=5000 kernelpagesize_kB=4 "
            "at=finalize\nthread_end tid=%d t=9.1 cpus=%d seen=%d "
            "samples=1800 migrations=0 vcsw=40 ivcsw=12\ncpus moment=exit "
            "tid=%d t=9.1 cpus=%d\nend t=9.1\n", pid, rank, pid, rank, rank,
            pid, rank);
    return fclose(f);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000, np = argc > 2 ? atoi(argv[2]) : 2;
    char dir[] = "/tmp/bl-probe-record-XXXXXX", out[4200], flags[512];
    bl_run_outcome o;
    bl_h5_machine m = {0};
    bl_binding_report rep = {0};
    hwloc_topology_t topo;
    struct stat st;
    bl_err err;
    double t0, t1, t2, t3, c0, c3;
    if (n < 1 || np < 1 || !mkdtemp(dir))
        return 2;
    for (int r = 0; r < np; r++)
        if (write_probe(dir, r, np, n) != 0)
            return 1;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    memset(&o, 0, sizeof o);
    o.h.status = strdup("ok");
    t0 = now();
    c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (bl_run_record_read(dir, topo, &o.run, &err) != 0) {
        fprintf(stderr, "read: %s\n", err.msg);
        return 1;
    }
    t1 = now();
    bl_crosscheck(&rep, &o.run, 0, NULL, &o.h.checks, &o.h.nchecks, flags,
                  sizeof flags);
    bl_run_flags(&o.run, flags, sizeof flags, &o);
    o.h.flags = strdup(flags);
    t2 = now();
    m.hostname = strdup("bench");
    bl_h5_machine_topology(&m, topo);
    snprintf(out, sizeof out, "%s/record.h5", dir);
    if (bl_h5_write_sweep_run(AT_FDCWD, out, "bench", &m, 1, &o.run, &o.h,
                              &err) != 0) {
        fprintf(stderr, "write: %s\n", err.msg);
        return 1;
    }
    t3 = now();
    c3 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    stat(out, &st);
    printf("%d processes x %d threads (%zu placement rows): read %.3f s, "
           "checks %.3f s, write %.3f s (%lld bytes); per process %.4f s "
           "wall, %.4f s CPU\n", np, n, o.run.nplacement, t1 - t0, t2 - t1,
           t3 - t2, (long long)st.st_size, (t3 - t0) / np, (c3 - c0) / np);
    printf("bench-result probe_record.seconds_per_process %.4f\n",
           (t3 - t0) / np);
    printf("bench-result probe_record.cpu_seconds_per_process %.4f\n",
           (c3 - c0) / np);
    bl_run_outcome_free(&o);
    bl_h5_machine_free(&m);
    hwloc_topology_destroy(topo);
    remove(out);
    for (int r = 0; r < np; r++) {
        snprintf(out, sizeof out, "%s/bindlab-probe.bench.%d", dir, 100000 + r);
        remove(out);
    }
    rmdir(dir);
    return 0;
}
