/* Test helper: prints what a record of `bindlab run` says (a sweep file's
 * /runs/run, or /runs/RUN_ID of a sweep's record when given: the run and
 * the harness's record), one fact per line:
 *   status S / exit_status N / flags F / log PATH / ranks N / reason R
 *   place R.T host H cpuset C rank_cpuset G cpu_last P numa N
 *   thread R.T label L
 *   tid R.T TID
 *   affinity R phase P changed C call K target T old O new N caller OBJECT
 *   process R pid P complete C mpi_init M
 *   memory R numa N pages P
 *   check R claimed C seen S matches M
 *   gpus R seen BUSES far BUSES (the GPUs it could see; "-" none)
 *   finding R SEVERITY ID TEXT */
#include <stdio.h>

#include "h5/h5schema.h"
#include "results/results_file.h"

static void dump(const bl_h5_run *r, const bl_h5_harness *h)
{
    printf("status %s\nexit_status %d\nflags %s\nlog %s\nranks %d\n"
           "reason %s\n", h->status, h->exit_status, h->flags, h->log,
           r->ranks, h->reason ? h->reason : "");
    for (size_t i = 0; i < r->nplacement; i++) {
        const bl_h5_placement *p = &r->placement[i];
        printf("place %d.%d host %s cpuset %s rank_cpuset %s cpu_last %d "
               "numa %d\n", p->rank, p->thread, p->host, p->cpuset,
               p->rank_cpuset, p->cpu_last, p->numa);
    }
    for (size_t i = 0; i < r->nthread_rows; i++) {
        printf("thread %d.%d label %s\n", r->thread_rows[i].rank,
               r->thread_rows[i].thread, r->thread_rows[i].label);
        printf("tid %d.%d %lld\n", r->thread_rows[i].rank,
               r->thread_rows[i].thread, (long long)r->thread_rows[i].tid);
    }
    for (size_t i = 0; i < r->naffinity; i++)
        printf("affinity %d phase %s changed %d call %s target %lld old %s "
               "new %s caller %s\n", r->affinity[i].rank,
               r->affinity[i].phase, r->affinity[i].changed,
               r->affinity[i].call, (long long)r->affinity[i].target,
               r->affinity[i].old_cpus, r->affinity[i].new_cpus,
               r->affinity[i].caller);
    for (size_t i = 0; i < r->nprocesses; i++)
        printf("process %d pid %lld complete %d mpi_init %d\n",
               r->processes[i].rank, (long long)r->processes[i].pid,
               r->processes[i].complete, r->processes[i].mpi_init);
    for (size_t i = 0; i < r->nmemory; i++)
        printf("memory %d numa %d pages %lld\n", r->memory[i].rank,
               r->memory[i].numa_node, (long long)r->memory[i].pages);
    for (size_t i = 0; i < r->nrank_rows; i++) {
        const bl_h5_rank *k = &r->rank_rows[i];
        printf("gpus %d seen %s far %s\n", k->rank,
               k->gpus && *k->gpus ? k->gpus : "-",
               k->gpus_far && *k->gpus_far ? k->gpus_far : "-");
    }
    for (size_t i = 0; i < r->nfindings; i++)
        printf("finding %d %s %s %s\n", r->findings[i].rank,
               r->findings[i].severity, r->findings[i].id,
               r->findings[i].text);
    for (size_t i = 0; i < h->nchecks; i++)
        printf("check %d claimed %s seen %s matches %d\n", h->checks[i].rank,
               h->checks[i].claimed, h->checks[i].seen, h->checks[i].matches);
}

int main(int argc, char **argv)
{
    bl_h5_run r = {0};
    bl_h5_harness h = {0};
    bl_err err;
    char group[96];
    hid_t f;
    int rc = 0;
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: runrecord_dump FILE.h5 [RUN_ID]\n");
        return 2;
    }
    snprintf(group, sizeof group, "runs/%s", argc == 3 ? argv[2] : "run");
    if ((f = bl_h5_open_read(argv[1], &err)) < 0) {
        fprintf(stderr, "runrecord_dump: %s\n", err.msg);
        return 1;
    }
    if (bl_h5_read_run(f, group, &r, &err) < 0 ||
        bl_h5_read_harness(f, group, &h, &err) < 0) {
        fprintf(stderr, "runrecord_dump: %s\n", err.msg);
        rc = 1;
    } else {
        dump(&r, &h);
    }
    bl_h5_run_free(&r);
    bl_h5_harness_free(&h);
    H5Fclose(f);
    return rc;
}
