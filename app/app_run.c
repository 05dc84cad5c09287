#include "app_run.h"

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_machine.h"
#include "app_print.h"
#include "app_record.h"
#include "atomic_file.h"
#include "topo.h"

/* Every rank learns whether any rank failed; rank 0 gets the message of the
 * lowest failing rank, so that it is printed exactly once. */
static int agree(MPI_Comm comm, int rc, bl_err *err)
{
    int rank, first;
    MPI_Comm_rank(comm, &rank);
    first = rc < 0 ? rank : INT_MAX;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT_MAX)
        return 0;
    MPI_Bcast(err->msg, sizeof err->msg, MPI_CHAR, first, comm);
    return -1;
}

static int local_ranks(MPI_Comm comm)
{
    MPI_Comm node;
    int n = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    return n;
}

static char *join_argv(int argc, char **argv)
{
    size_t len = 1;
    char *s;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    s = calloc(len, 1);
    for (int i = 0; s && i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Counters and placement are taken inside parallel regions around the timed
 * loop; libgomp keeps the same OS thread for each thread number between
 * regions of the same size, so begin and end see the same thread. */
static void threads_begin(bl_rank_record *rec, bl_counters_thread **cts)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        bl_place_thread_begin(&rec->threads[t]);
        cts[t] = bl_counters_start();
    }
}

static void threads_end(hwloc_topology_t topo, bl_rank_record *rec,
                        bl_counters_thread **cts)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        bl_counters_stop(cts[t], rec->counters[t]);
        bl_place_thread_end(topo, &rec->threads[t]);
    }
}

static int time_loop(const bl_kernel *k, bl_kernel_ctx *ctx, int warmup,
                     int iters, double *times, bl_err *err)
{
    int rc = 0;
    for (int it = 0; it < warmup + iters && rc == 0; it++) {
        double t0;
        if (k->before_step)
            k->before_step(ctx);
        MPI_Barrier(ctx->comm);
        t0 = MPI_Wtime();
        rc = k->step(ctx, err);
        if (it >= warmup)
            times[it - warmup] = MPI_Wtime() - t0;
    }
    return rc;
}

static void init_record(bl_rank_record *rec, int rank, int nthreads,
                        int iters, hwloc_const_bitmap_t rank_set)
{
    char host[BL_HOST_MAX] = "";
    memset(rec, 0, sizeof *rec);
    gethostname(host, sizeof host - 1);
    rec->nthreads = nthreads;
    rec->threads = calloc((size_t)nthreads, sizeof *rec->threads);
    rec->counters = calloc((size_t)nthreads, sizeof *rec->counters);
    rec->times = calloc((size_t)iters, sizeof *rec->times);
    for (int t = 0; t < nthreads; t++) {
        bl_thread_place *p = &rec->threads[t];
        p->rank = rank;
        p->thread = t;
        memcpy(p->host, host, sizeof p->host);
        bl_place_cpuset_text(rank_set, p->rank_cpuset, sizeof p->rank_cpuset);
        p->migrations = -1;
    }
}

static void free_record(bl_rank_record *rec)
{
    free(rec->threads);
    free(rec->counters);
    free(rec->times);
    free(rec->pages);
}

/* Rank 0: the run's result from the slowest rank of every iteration. */
static void summarise(const bl_app_opts *o, const bl_work *w, int nranks,
                      double *iter_max, double total_amount, bl_h5_run *r)
{
    double *s = malloc(sizeof *s * (size_t)o->iters);
    memcpy(s, iter_max, sizeof *s * (size_t)o->iters);
    qsort(s, (size_t)o->iters, sizeof *s, cmp_double);
    r->result.min_s = s[0];
    r->result.max_s = s[o->iters - 1];
    r->result.median_s = o->iters % 2 ? s[o->iters / 2]
                                      : 0.5 * (s[o->iters / 2 - 1] +
                                               s[o->iters / 2]);
    free(s);
    r->result.rate = r->result.median_s > 0
                         ? total_amount / r->result.median_s / w->scale
                         : 0.0;
    r->result.rate_unit = strdup(w->rate_unit);
    r->result.work_model = strdup(w->model ? w->model : "");
    for (size_t q = 0; q < r->nrank_rows; q++)
        r->rank_rows[q].rate /= w->scale;
    {
        long long local = 0, total = 0;
        for (size_t q = 0; q < r->nrank_rows; q++) {
            local += r->rank_rows[q].pages_local;
            total += r->rank_rows[q].pages_total;
        }
        r->result.local_page_fraction =
            total > 0 ? (double)local / (double)total : -1.0;
    }
    (void)nranks;
}

int bl_app_run(const bl_app_opts *o, int argc, char **argv, MPI_Comm comm)
{
    const bl_kernel *k = o->kernel;
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t rank_set = hwloc_bitmap_alloc();
    bl_kernel_ctx ctx = {0};
    bl_rank_record rec;
    bl_counters_thread **cts;
    bl_err err = {""};
    int rank, nranks, nnodes, rc, status = 0;
    double total_amount = 0.0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    /* A bad --out is bad input, found before the computation rather than
     * after it; rank 0 writes the file, so rank 0 looks. */
    rc = rank == 0 && o->out ? bl_atomic_check_target(o->out, &err) : 0;
    if (agree(comm, rc, &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-app: --out %s\n", err.msg);
        hwloc_bitmap_free(rank_set);
        return 2;
    }
    omp_set_dynamic(0);
    /* The launcher's binding, read before anything can change it. */
    rc = bl_topo_load(NULL, &topo, &err);
    if (rc == 0)
        rc = bl_place_rank_cpuset(topo, rank_set, &err);
    if (agree(comm, rc, &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-app: %s\n", err.msg);
        if (topo)
            hwloc_topology_destroy(topo);
        hwloc_bitmap_free(rank_set);
        return 1;
    }
    nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

    ctx.comm = comm;
    ctx.rank = rank;
    ctx.nranks = nranks;
    ctx.nthreads = omp_get_max_threads();
    ctx.local_ranks = local_ranks(comm);
    ctx.opts = &o->k;
    rc = k->setup(&ctx, &err);
    if (agree(comm, rc, &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-app: %s\n", err.msg);
        if (k->teardown)
            k->teardown(&ctx);
        hwloc_topology_destroy(topo);
        hwloc_bitmap_free(rank_set);
        return 2;
    }

    init_record(&rec, rank, ctx.nthreads, o->iters, rank_set);
    cts = calloc((size_t)ctx.nthreads, sizeof *cts);
    bl_counters_init();
    k->first_touch(&ctx);
    threads_begin(&rec, cts);
    rc = time_loop(k, &ctx, o->warmup, o->iters, rec.times, &err);
    threads_end(topo, &rec, cts);
    free(cts);
    if (agree(comm, rc, &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-app: run failed: %s\n", err.msg);
        status = 1;
    }

    /* Pages are located as the timed region left them: the serial verify
     * below touches every page from one thread, and NUMA balancing would
     * migrate them towards it. */
    if (bl_record_pages(topo, k, &ctx, &rec, &err) < 0)
        fprintf(stderr, "bindlab-app: rank %d: page locations: %s\n", rank,
                err.msg);
    if (status == 0) {
        k->verify(&ctx, &rec.verify);
        if (k->metrics)
            rec.nmetrics = (int)k->metrics(&ctx, rec.metrics, BL_MAX_METRICS);
    }
    k->work(&ctx, &rec.work);
    if (!rec.pages)
        rec.pages = calloc((size_t)nnodes + 1, sizeof *rec.pages);
    MPI_Reduce(&rec.work.amount, &total_amount, 1, MPI_DOUBLE, MPI_SUM, 0,
               comm);

    {
        bl_h5_run run = {0};
        double *iter_max = calloc((size_t)o->iters, sizeof *iter_max);
        bl_record_gather(comm, o->iters, nnodes, &rec, &run, iter_max, &err);
        if (rank == 0) {
            bl_h5_machine m;
            char *command = join_argv(argc, argv);
            run.kernel = strdup(k->name);
            run.args = strdup(command);
            run.init = strdup(o->k.serial_init ? "serial" : "parallel");
            run.status = strdup(status == 0 ? "ok" : "failed");
            run.size_bytes = (long long)o->k.size_bytes;
            run.iterations = o->iters;
            run.warmup = o->warmup;
            run.ranks = nranks;
            run.threads = ctx.nthreads;
            run.result.bytes_per_iteration = rec.work.bytes * nranks;
            run.result.flops_per_iteration = rec.work.flops * nranks;
            summarise(o, &rec.work, nranks, iter_max, total_amount, &run);
            bl_machine_env(&run.env, &run.nenv);
            bl_machine_describe(topo, &m);
            if (status == 0 && !run.result.verified)
                status = 1;
            bl_print_run(stdout, o, &m, &run, &rec.work);
            if (o->out) {
                if (bl_h5_write_run_file(o->out, command, &m, &run, &err) < 0) {
                    fprintf(stderr, "bindlab-app: %s\n", err.msg);
                    status = 1;
                } else {
                    printf("bindlab-app: wrote %s\n", o->out);
                }
            }
            fflush(stdout);
            free(command);
            bl_h5_machine_free(&m);
        }
        bl_h5_run_free(&run);
        free(iter_max);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (k->teardown)
        k->teardown(&ctx);
    free_record(&rec);
    hwloc_topology_destroy(topo);
    hwloc_bitmap_free(rank_set);
    return status;
}
