#include "app_run.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_check.h"
#include "app_cpus.h"
#include "app_machine.h"
#include "app_gpus.h"
#include "app_isa.h"
#include "measure/omp_record.h"
#include "app_mempolicy.h"
#include "app_rank_text.h"
#include "app_nodes.h"
#include "app_print.h"
#include "app_record.h"
#include "app_result.h"
#include "app_started.h"
#include "app_time_split.h"
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

/* iters steps, each timed when times is not NULL (the warm-up is not). */
static int time_loop(const bl_kernel *k, bl_kernel_ctx *ctx, int iters,
                     double *times, bl_err *err)
{
    int rc = 0;
    for (int it = 0; it < iters && rc == 0; it++) {
        double t0;
        if (k->before_step)
            k->before_step(ctx);
        MPI_Barrier(ctx->comm);
        t0 = MPI_Wtime();
        rc = k->step(ctx, err);
        if (times)
            times[it] = MPI_Wtime() - t0;
    }
    return rc;
}

static int init_record(bl_rank_record *rec, int rank, int nthreads,
                       int nnodes, int iters, hwloc_const_bitmap_t rank_set,
                       hwloc_const_bitmap_t main_set, bl_err *err)
{
    char host[BL_HOST_MAX] = "";
    memset(rec, 0, sizeof *rec);
    gethostname(host, sizeof host - 1);
    rec->nthreads = nthreads;
    rec->nnodes = nnodes;
    rec->threads = calloc((size_t)nthreads, sizeof *rec->threads);
    rec->counters = calloc((size_t)nthreads, sizeof *rec->counters);
    rec->times = calloc((size_t)iters, sizeof *rec->times);
    if (!rec->threads || !rec->counters || !rec->times)
        return bl_err_set(err, "rank %d: out of memory for the record of "
                          "%d threads and %d iterations", rank, nthreads,
                          iters);
    for (int t = 0; t < nthreads; t++) {
        bl_thread_place *p = &rec->threads[t];
        p->rank = rank;
        p->thread = t;
        memcpy(p->host, host, sizeof p->host);
        bl_place_cpuset_text(rank_set, p->rank_cpuset, sizeof p->rank_cpuset);
        bl_place_cpuset_text(main_set, p->main_cpuset_init,
                             sizeof p->main_cpuset_init);
        p->migrations = p->ctx_voluntary = p->ctx_involuntary = -1;
    }
    return 0;
}

static void free_record(bl_rank_record *rec)
{
    free(rec->threads);
    free(rec->counters);
    free(rec->times);
    free(rec->pages);
    free(rec->pages_init);
    free(rec->share_pages[0]);
    free(rec->share_pages[1]);
}

/* A run in progress: what every step below reads or fills. */
typedef struct app_run {
    const bl_app_opts *o;
    const bl_kernel *k;
    MPI_Comm comm;
    int rank, nranks, nnodes;
    hwloc_topology_t topo;
    hwloc_bitmap_t rank_set;
    hwloc_bitmap_t main_set;   /* the main thread's binding after MPI_Init:
                                * the runtimes bind it at different times
                                * (libgomp when loaded, Intel's at the first
                                * parallel region) */
    bl_app_nodes hosts;        /* which ranks share a node (host) */
    bl_kernel_ctx ctx;
    bl_kernel_cpu *cpus;       /* the rank's PUs, for the kernel */
    bl_h5_matrix *matrix;      /* the kernel's matrix (c2c), or NULL */
    int kernel_set_up;
    bl_rank_record rec;
    char mem_policy[BL_MEMPOL_TEXT]; /* as the kernel reports it */
    bl_pcheck_findings findings;      /* --check, before the first touch */
    double total_amount;       /* rank 0: the work of all ranks */
    bl_err err;
} app_run;

/* On every rank when any rank failed: rank 0 prints the failing rank's
 * message, after `what`. */
static int failed_somewhere(app_run *a, int rc, const char *what)
{
    if (agree(a->comm, rc, &a->err) == 0)
        return 0;
    if (a->rank == 0)
        fprintf(stderr, "bindlab-app: %s%s\n", what, a->err.msg);
    return -1;
}

/* A bad --out is bad input, found before the computation rather than after
 * it; rank 0 writes the file, so rank 0 looks. */
static int check_out(app_run *a)
{
    int rc = a->rank == 0 && a->o->out
                 ? bl_atomic_check_target(a->o->out, &a->err)
                 : 0;
    return failed_somewhere(a, rc, "--out ");
}

/* The launcher's binding, read before anything can change it. */
static int read_binding(app_run *a)
{
    int rc = -1;
    if (a->rank_set)
        rc = bl_topo_load(NULL, &a->topo, &a->err);
    else
        bl_err_set(&a->err, "out of memory for a cpuset");
    if (rc == 0 && !a->main_set)
        rc = bl_err_set(&a->err, "out of memory for a cpuset");
    if (rc == 0 &&
        hwloc_get_cpubind(a->topo, a->main_set, HWLOC_CPUBIND_THREAD) < 0)
        rc = bl_err_set(&a->err, "hwloc_get_cpubind: %s", strerror(errno));
    if (rc == 0)
        rc = bl_place_rank_cpuset(a->topo, a->rank_set, &a->err);
    if (failed_somewhere(a, rc, "") < 0)
        return -1;
    a->nnodes = hwloc_get_nbobjs_by_type(a->topo, HWLOC_OBJ_NUMANODE);
    return failed_somewhere(a, bl_app_nodes_find(a->comm, &a->hosts, &a->err),
                            "");
}

/* --mem-policy in every thread before anything is touched, and what the
 * kernel then reports (recorded per rank). */
static int apply_mem_policy(app_run *a)
{
    int rc = bl_mempol_apply(&a->o->mem_policy, a->topo, a->rank_set,
                             &a->err);
    bl_mempol_kernel_text(a->mem_policy, sizeof a->mem_policy);
    if (rc == 0 && a->o->check)
        bl_app_check_local(a->rank_set, &a->findings);
    return failed_somewhere(a, rc, "");
}

static int set_up_kernel(app_run *a)
{
    /* the level first: a kernel's setup may ask what the level offers */
    if (failed_somewhere(a, bl_app_isa_choose(a->o, &a->err), "") < 0)
        return -1;
    a->ctx.comm = a->comm;
    a->ctx.rank = a->rank;
    a->ctx.nranks = a->nranks;
    a->ctx.nthreads = omp_get_max_threads();
    a->ctx.local_ranks = local_ranks(a->comm);
    a->ctx.opts = &a->o->k;
    if (bl_app_kernel_cpus(a->topo, a->rank_set, &a->cpus, &a->ctx.ncpus,
                           &a->ctx.llc_bytes, &a->err) < 0)
        return failed_somewhere(a, -1, "");
    a->ctx.cpus = a->cpus;
    a->kernel_set_up = 1;
    return failed_somewhere(a, a->k->setup(&a->ctx, &a->err), "");
}

/* The record and counter handles, then first touch and the timed loop
 * inside the placement and counter regions. MEASURED, STEP_FAILED (the
 * record is still worth reporting) or NOT_MEASURED; the same on every
 * rank. */
enum { MEASURED, STEP_FAILED, NOT_MEASURED };

static int measure(app_run *a)
{
    bl_counters_thread **cts = NULL;
    int rc = init_record(&a->rec, a->rank, a->ctx.nthreads, a->nnodes,
                         a->o->iters, a->rank_set, a->main_set, &a->err);
    if (rc == 0 && !(cts = calloc((size_t)a->ctx.nthreads, sizeof *cts)))
        rc = bl_err_set(&a->err, "rank %d: out of memory", a->rank);
    if (failed_somewhere(a, rc, "") < 0) {
        free(cts);
        return NOT_MEASURED;
    }
    bl_counters_init();
    bl_numa_account_begin(&a->rec.account, a->o->k.share_align);
    a->k->first_touch(&a->ctx);
    /* The first moment: where first touch put the pages, before the
     * warm-up gives NUMA balancing a chance to move them. */
    if (bl_record_first_touch(a->topo, a->k, &a->ctx, &a->rec, &a->err) < 0)
        fprintf(stderr, "bindlab-app: rank %d: page locations after first "
                "touch: %s\n", a->rank, a->err.msg);
    /* Counters, migrations and context switches start after the warm-up,
     * so they are those of the timed iterations (and of the step's own
     * parallel regions, which these two regions bracket). */
    rc = time_loop(a->k, &a->ctx, a->o->warmup, NULL, &a->err);
    threads_begin(&a->rec, cts);
    if (rc == 0)
        rc = time_loop(a->k, &a->ctx, a->o->iters, a->rec.times, &a->err);
    threads_end(a->topo, &a->rec, cts);
    free(cts);
    return failed_somewhere(a, rc, "run failed: ") < 0 ? STEP_FAILED
                                                        : MEASURED;
}

/* Rank 0: the kernel's matrix, kept for the run file. */
static void take_matrix(app_run *a)
{
    if (!(a->matrix = calloc(1, sizeof *a->matrix)))
        return;
    if (a->k->matrix(&a->ctx, a->matrix) < 0) {
        fprintf(stderr, "bindlab-app: the %s matrix could not be built (out "
                "of memory?)\n", a->k->name);
        bl_h5_matrix_free(a->matrix);
        free(a->matrix);
        a->matrix = NULL;
    }
}

/* After the timed loop: pages, then (when the run did not fail) the
 * kernel's verification and metrics, then the work done. */
static void record_results(app_run *a, int run_ok)
{
    bl_rank_record *rec = &a->rec;
    bl_numa_account_end(&rec->account);
    /* Pages are located as the timed region left them: the serial verify
     * below touches every page from one thread, and NUMA balancing would
     * migrate them towards it. */
    if (bl_record_pages(a->topo, a->k, &a->ctx, rec, &a->err) < 0)
        fprintf(stderr, "bindlab-app: rank %d: page locations: %s\n",
                a->rank, a->err.msg);
    if (run_ok) {
        a->k->verify(&a->ctx, &rec->verify);
        if (a->k->metrics)
            rec->nmetrics =
                (int)a->k->metrics(&a->ctx, rec->metrics, BL_MAX_METRICS);
        if (a->k->matrix && a->rank == 0)
            take_matrix(a);
    }
    a->k->work(&a->ctx, &rec->work);
    /* Without a page table the gather still sends zeros of the right size;
     * if even that fails, the page counts are what is given up. */
    if (!rec->pages)
        rec->pages = calloc((size_t)a->nnodes + 1, sizeof *rec->pages);
    if (!rec->pages_init)
        rec->pages_init = calloc((size_t)a->nnodes + 1,
                                 sizeof *rec->pages_init);
    MPI_Reduce(&rec->work.amount, &a->total_amount, 1, MPI_DOUBLE, MPI_SUM,
               0, a->comm);
}

/* Rank 0: the run's result from the slowest rank of every iteration. */
static void summarise(const bl_work *w, int iters, const double *iter_max,
                      double total_amount, bl_h5_run *r)
{
    bl_result_times t;
    long long local = 0, total = 0;
    bl_result_summary(iter_max, iters, total_amount, w->scale, &t);
    r->result.min_s = t.min_s;
    r->result.max_s = t.max_s;
    r->result.median_s = t.median_s;
    r->result.rate = t.rate;
    for (size_t q = 0; q < r->nrank_rows; q++) {
        r->rank_rows[q].rate /= w->scale;
        local += r->rank_rows[q].pages_local;
        total += r->rank_rows[q].pages_total;
    }
    r->result.local_page_fraction =
        total > 0 ? (double)local / (double)total : -1.0;
    bl_first_touch_result(r);
}

/* Rank 0: the run's own fields next to the gathered tables. */
static int describe_run(const app_run *a, const char *command, int status,
                        const double *iter_max, bl_h5_run *run, bl_err *err)
{
    const bl_work *w = &a->rec.work;
    run->kernel = strdup(a->k->name);
    run->args = strdup(command);
    run->init = strdup(a->o->k.serial_init ? "serial" : "parallel");
    run->status = strdup(status == 0 ? "ok" : "failed");
    run->mem_policy = strdup(a->o->mem_policy.asked[0]
                                 ? a->o->mem_policy.asked
                                 : "firsttouch");
    run->result.rate_unit = strdup(w->rate_unit);
    run->result.work_model = strdup(w->model ? w->model : "");
    if (!run->kernel || !run->args || !run->init || !run->status ||
        !run->mem_policy ||
        !run->result.rate_unit || !run->result.work_model)
        return bl_err_set(err, "describing the run: out of memory");
    run->size_bytes = (long long)a->o->k.size_bytes;
    run->iterations = a->o->iters;
    run->warmup = a->o->warmup;
    run->ranks = a->nranks;
    run->threads = a->ctx.nthreads;
    run->result.bytes_per_iteration = w->bytes * a->nranks;
    run->result.flops_per_iteration = w->flops * a->nranks;
    summarise(w, a->o->iters, iter_max, a->total_amount, run);
    run->matrix = a->matrix; /* the run now owns it */
    bl_machine_env(&run->env, &run->nenv);
    return 0;
}

/* Rank 0: each rank row's node (the machine record of its host). */
static void set_rank_nodes(const app_run *a, bl_h5_run *run)
{
    for (size_t q = 0; q < run->nrank_rows; q++) {
        int r = run->rank_rows[q].rank;
        run->rank_rows[q].node =
            r >= 0 && r < a->nranks ? a->hosts.node_of[r] : -1;
    }
}

/* Rank 0: prints the run and writes the run file with the machine record
 * of every node (machines: one per node, or NULL when they could not be
 * gathered: then this node's alone, and every rank row names node 0);
 * returns the status. */
static int print_and_write(app_run *a, const char *command, bl_h5_run *run,
                           const bl_h5_machine *machines, int status)
{
    bl_h5_machine m;
    size_t nm = machines ? (size_t)a->hosts.n : 1;
    bl_machine_describe(a->topo, &m);
    if (!machines) {
        machines = &m;
        for (size_t q = 0; q < run->nrank_rows; q++)
            run->rank_rows[q].node = 0;
    }
    if (status == 0 && !run->result.verified)
        status = 1;
    bl_print_run(stdout, a->o, &m, run, &a->rec.work);
    if (a->o->out) {
        if (bl_h5_write_run_file_nodes(a->o->out, command, machines, nm, run,
                                       &a->err) < 0) {
            fprintf(stderr, "bindlab-app: %s\n", a->err.msg);
            status = 1;
        } else {
            printf("bindlab-app: wrote %s\n", a->o->out);
        }
    }
    fflush(stdout);
    bl_h5_machine_free(&m);
    return status;
}

/* Collective: gathers every rank's record; rank 0 prints and writes.
 * Returns the run's status on rank 0 (the others' is decided there). */
static int report(app_run *a, int argc, char **argv, int status)
{
    bl_h5_run run = {0};
    bl_h5_machine *machines = NULL;
    double *iter_max = NULL;
    char *command = NULL;
    int rc = 0;

    if (a->rank == 0 &&
        (!(iter_max = calloc((size_t)a->o->iters, sizeof *iter_max)) ||
         !(command = join_argv(argc, argv))))
        rc = bl_err_set(&a->err, "recording the run: out of memory");
    if (failed_somewhere(a, rc, "") == 0) {
        rc = bl_record_gather(a->comm, a->o->iters, a->nnodes, &a->rec, &run,
                              iter_max, &a->err);
        bl_rank_text_gather(a->comm, a->mem_policy,
                            a->rank == 0 && rc == 0 ? run.rank_rows : NULL,
                            run.nrank_rows, offsetof(bl_h5_rank, mem_policy));
        if (bl_app_isa_gather(a->comm, a->o, &run) < 0)
            rc = bl_err_set(&a->err, "recording the ISA level: out of "
                            "memory");
        if (a->rank == 0 && bl_omp_record(&run) < 0)
            rc = bl_err_set(&a->err, "recording the OpenMP runtime: out "
                            "of memory");
        if (a->o->check &&
            bl_app_check_gather(a->comm, &a->findings, &run.findings,
                                &run.nfindings, &a->err) < 0)
            fprintf(stderr, "bindlab-app: %s\n", a->err.msg);
        /* after --check's findings: it appends to them */
        bl_app_gpus_gather(a->comm, a->hosts.node_of, &run);
        if (rc == 0 && status == 0 &&
            bl_time_split_gather(a->comm, a->k, &a->ctx, &run, &a->err) < 0)
            rc = -1;
        /* status is the same on every rank, rc may not be: the gather is
         * collective */
        if (status == 0 &&
            bl_app_nodes_traffic(a->comm, &a->hosts, a->k, &a->ctx, &run,
                                 &a->err) < 0)
            rc = -1;
        /* a node whose record is missing costs the file that node's
         * record, not the run */
        if (bl_app_nodes_machines(a->comm, &a->hosts, a->topo, &machines,
                                  &a->err) < 0)
            fprintf(stderr, "bindlab-app: %s; the run file holds rank 0's "
                    "machine only\n", a->err.msg);
        if (a->rank == 0 && rc == 0) {
            set_rank_nodes(a, &run);
            rc = describe_run(a, command, status, iter_max, &run, &a->err);
            if (run.matrix)
                a->matrix = NULL;
        }
        if (a->rank == 0 && rc == 0)
            status = print_and_write(a, command, &run, machines, status);
        else if (a->rank == 0)
            fprintf(stderr, "bindlab-app: %s\n", a->err.msg);
    }
    if (rc < 0)
        status = 1;
    free(command);
    bl_h5_run_free(&run);
    bl_h5_nodes_free(machines, machines ? (size_t)a->hosts.n : 0);
    free(iter_max);
    return status;
}

/* Every rank is past MPI_Init once a barrier completes: said once, by rank
 * 0, before anything else runs (common/app_started.h). A rank that dies
 * inside MPI_Init (Open MPI 4.1's wire-up race, a launcher failing) keeps
 * the barrier, and so the line, from happening. */
static void say_started(const app_run *a)
{
    MPI_Barrier(a->comm);
    if (a->rank == 0) {
        printf(BL_APP_STARTED " %d rank%s past MPI_Init\n", a->nranks,
               a->nranks == 1 ? "" : "s");
        fflush(stdout);
    }
}

static void finish(app_run *a)
{
    if (a->kernel_set_up && a->k->teardown)
        a->k->teardown(&a->ctx);
    free_record(&a->rec);
    free(a->cpus);
    if (a->matrix)
        bl_h5_matrix_free(a->matrix);
    free(a->matrix);
    if (a->topo)
        hwloc_topology_destroy(a->topo);
    hwloc_bitmap_free(a->rank_set);
    hwloc_bitmap_free(a->main_set);
    bl_app_nodes_free(&a->hosts);
}

int bl_app_run(const bl_app_opts *o, int argc, char **argv, MPI_Comm comm)
{
    app_run a = {.o = o, .k = o->kernel, .comm = comm};
    int status = 1, measured;

    MPI_Comm_rank(comm, &a.rank);
    MPI_Comm_size(comm, &a.nranks);
    omp_set_dynamic(0);
    say_started(&a);
    a.rank_set = hwloc_bitmap_alloc();
    a.main_set = hwloc_bitmap_alloc();
    if (check_out(&a) < 0)
        status = 2;
    else if (read_binding(&a) < 0)
        status = 1;
    else if (apply_mem_policy(&a) < 0)
        status = 2;
    else if (set_up_kernel(&a) < 0)
        status = 2;
    else if ((measured = measure(&a)) != NOT_MEASURED) {
        status = measured == MEASURED ? 0 : 1;
        record_results(&a, status == 0);
        status = report(&a, argc, argv, status);
        MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    }
    finish(&a);
    return status;
}
