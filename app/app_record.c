#include "app_record.h"
#include "app_result.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shares.h"

#define MAX_REGIONS 16

/* The kernel's regions (a kernel that leaves align unset gets 0). */
static size_t regions_of(const bl_kernel *k, const bl_kernel_ctx *ctx,
                         bl_region *regs)
{
    size_t n;
    memset(regs, 0, sizeof *regs * MAX_REGIONS);
    n = k->regions(ctx, regs, MAX_REGIONS);
    return n > MAX_REGIONS ? MAX_REGIONS : n;
}

static bl_shares shares_of(const bl_region *r, int nthreads)
{
    bl_shares s = {(uintptr_t)r->base, r->units, r->unit_bytes, nthreads,
                   r->align};
    return s;
}

/* One moment: the pages of every thread's share per NUMA node, into
 * rec->share_pages[moment] ([thread][nnodes + 1]). A page belongs to the
 * thread whose share holds its first byte; that thread's NUMA node is
 * where it should live. */
static int page_moment(hwloc_topology_t topo, const bl_kernel *k,
                       const bl_kernel_ctx *ctx, bl_rank_record *rec,
                       int moment, bl_err *err)
{
    bl_region regs[MAX_REGIONS];
    size_t nreg = regions_of(k, ctx, regs);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    size_t slots = (size_t)rec->nnodes + 1;
    long long *counts = calloc((size_t)rec->nthreads * slots, sizeof *counts);

    if (!counts)
        return bl_err_set(err, "out of memory");
    free(rec->share_pages[moment]);
    rec->share_pages[moment] = counts;
    for (size_t r = 0; r < nreg; r++) {
        bl_shares s = shares_of(&regs[r], rec->nthreads);
        for (int t = 0; t < rec->nthreads; t++) {
            size_t lo, hi;
            uintptr_t start, end;
            bl_share_range(&s, t, &lo, &hi);
            start = s.base + lo * s.unit_bytes;
            end = s.base + hi * s.unit_bytes;
            start = t == 0 ? start & ~(page - 1)
                           : (start + page - 1) & ~(page - 1);
            if (end <= start)
                continue;
            if (bl_place_pages_by_node(topo, (const void *)start,
                                       end - start, counts + (size_t)t * slots,
                                       err) < 0)
                return -1;
        }
    }
    return 0;
}

int bl_record_first_touch(hwloc_topology_t topo, const bl_kernel *k,
                          const bl_kernel_ctx *ctx, bl_rank_record *rec,
                          bl_err *err)
{
    bl_region regs[MAX_REGIONS];
    bl_shares shares[MAX_REGIONS];
    bl_span spans[MAX_REGIONS];
    bl_straddle st;
    bl_numa_account *a = &rec->account;
    size_t nreg = regions_of(k, ctx, regs);

    for (size_t r = 0; r < nreg; r++) {
        shares[r] = shares_of(&regs[r], rec->nthreads);
        spans[r].lo = shares[r].base;
        spans[r].hi = shares[r].base + regs[r].units * regs[r].unit_bytes;
    }
    bl_numa_account_huge(a, spans, nreg);
    if (a->huge_page_bytes > 0 && a->huge_share > 0) {
        bl_straddle_compute(shares, nreg, (size_t)a->page_bytes,
                            (size_t)a->huge_page_bytes, a->huge_share, &st);
        a->straddles = st.straddles;
        a->best_local_fraction = st.best;
    } else if (a->huge_share == 0) {
        a->best_local_fraction = 1.0; /* no huge page to straddle */
    }
    return page_moment(topo, k, ctx, rec, 0, err);
}

/* Per-node totals of one moment and its local pages, now that every
 * thread's NUMA node is known. */
static void sum_moment(const bl_rank_record *rec, const long long *shares,
                       long long *by_node, long long *local,
                       long long *total)
{
    size_t slots = (size_t)rec->nnodes + 1;
    *local = *total = 0;
    for (int t = 0; shares && t < rec->nthreads; t++) {
        const long long *c = shares + (size_t)t * slots;
        int numa = rec->threads[t].numa;
        for (size_t node = 0; node < slots; node++) {
            by_node[node] += c[node];
            if (node + 1 < slots)
                *total += c[node];
        }
        if (numa >= 0 && numa < rec->nnodes)
            *local += c[numa];
    }
}

int bl_record_pages(hwloc_topology_t topo, const bl_kernel *k,
                    const bl_kernel_ctx *ctx, bl_rank_record *rec,
                    bl_err *err)
{
    size_t slots = (size_t)rec->nnodes + 1;
    rec->pages = calloc(slots, sizeof *rec->pages);
    rec->pages_init = calloc(slots, sizeof *rec->pages_init);
    if (!rec->pages || !rec->pages_init)
        return bl_err_set(err, "out of memory");
    if (page_moment(topo, k, ctx, rec, 1, err) < 0)
        return -1;
    sum_moment(rec, rec->share_pages[1], rec->pages, &rec->pages_local,
               &rec->pages_total);
    sum_moment(rec, rec->share_pages[0], rec->pages_init,
               &rec->account.pages_local_init,
               &rec->account.pages_total_init);
    return 0;
}

/* Every rank learns whether rank 0 could allocate its receive buffers, so
 * that no rank sends into a gather that rank 0 cannot take. */
static int root_ready(MPI_Comm comm, int ok, bl_err *err)
{
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        return 0;
    return bl_err_set(err, "gathering the results on rank 0: out of memory");
}

/* Gathers `bytes` from every rank into one buffer on rank 0 (*all_out);
 * *counts_out then holds each rank's byte count. Collective; -1 on every
 * rank when rank 0 could not allocate. */
static int gather_bytes(MPI_Comm comm, const void *mine, int bytes,
                        void **all_out, int **counts_out, bl_err *err)
{
    int rank, nranks, total = 0, ok = 1;
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
        ok = counts && displs;
    }
    if (root_ready(comm, ok, err) < 0) {
        free(counts);
        free(displs);
        return -1;
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        for (int r = 0; r < nranks; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(total > 0 ? (size_t)total : 1);
        ok = all != NULL;
    }
    if (root_ready(comm, ok, err) < 0) {
        free(counts);
        free(displs);
        return -1;
    }
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    free(displs);
    *all_out = all;
    if (counts_out)
        *counts_out = counts;
    else
        free(counts);
    return 0;
}

/* What rank 0 holds after the gathers, rank after rank. */
typedef struct gathered {
    int nranks, iters;
    bl_thread_place *places;              /* [nthreads of all ranks] */
    int *place_bytes;                     /* [nranks] */
    bl_counter (*counters)[BL_NCOUNTERS]; /* [nthreads of all ranks] */
    bl_verify *verifies;                  /* [nranks] */
    bl_metric *metrics;                   /* [nmetrics of all ranks] */
    int *metric_bytes;                    /* [nranks] */
    double *times;                        /* [nranks][iters] */
    double *amounts;                      /* [nranks] */
    long long *pages;                     /* each rank's [its nnodes + 1],
                                           * one after the other */
    int *page_bytes;                      /* [nranks] */
    long long *local_total;               /* [nranks][2] */
    long long *pages_init;                /* as pages, after first touch */
    int *page_init_bytes;                 /* [nranks] */
    bl_numa_account *accounts;            /* [nranks] */
    size_t nthreads, nmetrics;
} gathered;

static void gathered_free(gathered *g)
{
    free(g->places);
    free(g->place_bytes);
    free(g->counters);
    free(g->verifies);
    free(g->metrics);
    free(g->metric_bytes);
    free(g->times);
    free(g->amounts);
    free(g->pages);
    free(g->page_bytes);
    free(g->local_total);
    free(g->pages_init);
    free(g->page_init_bytes);
    free(g->accounts);
}

/* The records of variable size: threads, counters, verification, metrics,
 * and the pages per NUMA node (the NUMA nodes are those of each rank's
 * own node: nodes of different shapes have different counts). */
static int gather_records(MPI_Comm comm, const bl_rank_record *rec,
                          int nnodes, gathered *g, bl_err *err)
{
    int nthr = rec->nthreads;
    if (gather_bytes(comm, rec->threads,
                     (int)(sizeof *rec->threads * (size_t)nthr),
                     (void **)&g->places, &g->place_bytes, err) < 0 ||
        gather_bytes(comm, rec->counters,
                     (int)(sizeof *rec->counters * (size_t)nthr),
                     (void **)&g->counters, NULL, err) < 0 ||
        gather_bytes(comm, &rec->verify, (int)sizeof rec->verify,
                     (void **)&g->verifies, NULL, err) < 0 ||
        gather_bytes(comm, rec->metrics,
                     (int)(sizeof rec->metrics[0] * (size_t)rec->nmetrics),
                     (void **)&g->metrics, &g->metric_bytes, err) < 0 ||
        gather_bytes(comm, rec->pages,
                     rec->pages ? (int)(sizeof *rec->pages *
                                        ((size_t)nnodes + 1))
                                : 0,
                     (void **)&g->pages, &g->page_bytes, err) < 0 ||
        gather_bytes(comm, rec->pages_init,
                     rec->pages_init ? (int)(sizeof *rec->pages_init *
                                             ((size_t)nnodes + 1))
                                     : 0,
                     (void **)&g->pages_init, &g->page_init_bytes, err) < 0 ||
        gather_bytes(comm, &rec->account, (int)sizeof rec->account,
                     (void **)&g->accounts, NULL, err) < 0)
        return -1;
    for (int q = 0; g->place_bytes && q < g->nranks; q++) {
        g->nthreads += (size_t)g->place_bytes[q] / sizeof *g->places;
        g->nmetrics += (size_t)g->metric_bytes[q] / sizeof *g->metrics;
    }
    return 0;
}

/* The records of fixed size: times, work, local and total pages. */
static int gather_numbers(MPI_Comm comm, const bl_rank_record *rec,
                          gathered *g, bl_err *err)
{
    int rank, ok = 1;
    size_t nranks = (size_t)g->nranks;
    long long local_total[2] = {rec->pages_local, rec->pages_total};
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        g->times = malloc(sizeof *g->times * (size_t)g->iters * nranks);
        g->amounts = malloc(sizeof *g->amounts * nranks);
        g->local_total = malloc(sizeof *g->local_total * 2 * nranks);
        ok = g->times && g->amounts && g->local_total;
    }
    if (root_ready(comm, ok, err) < 0)
        return -1;
    MPI_Gather(rec->times, g->iters, MPI_DOUBLE, g->times, g->iters,
               MPI_DOUBLE, 0, comm);
    MPI_Gather(&rec->work.amount, 1, MPI_DOUBLE, g->amounts, 1, MPI_DOUBLE, 0,
               comm);
    MPI_Gather(local_total, 2, MPI_LONG_LONG, g->local_total, 2,
               MPI_LONG_LONG, 0, comm);
    return 0;
}

static int oom(bl_err *err, const char *what)
{
    return bl_err_set(err, "recording the %s on rank 0: out of memory", what);
}

static int fill_placement(bl_h5_run *r, const gathered *g, bl_err *err)
{
    const bl_thread_place *p = g->places;
    if (!(r->placement = calloc(g->nthreads + 1, sizeof *r->placement)))
        return oom(err, "placement");
    r->nplacement = g->nthreads;
    for (size_t i = 0; i < g->nthreads; i++) {
        bl_h5_placement *row = &r->placement[i];
        row->rank = p[i].rank;
        row->thread = p[i].thread;
        row->host = strdup(p[i].host);
        row->rank_cpuset = strdup(p[i].rank_cpuset);
        row->main_cpuset_init = strdup(p[i].main_cpuset_init);
        row->cpuset = strdup(p[i].cpuset);
        if (!row->host || !row->rank_cpuset || !row->cpuset)
            return oom(err, "placement");
        row->cpu_first = p[i].cpu_first;
        row->cpu_last = p[i].cpu_last;
        row->core = p[i].core;
        row->l3 = p[i].l3;
        row->numa = p[i].numa;
        row->package = p[i].package;
        row->migrations = p[i].migrations;
        row->pid = p[i].pid;
        row->ctx_voluntary = p[i].ctx_voluntary;
        row->ctx_involuntary = p[i].ctx_involuntary;
    }
    return 0;
}

static int fill_counters(bl_h5_run *r, const gathered *g, bl_err *err)
{
    size_t n = g->nthreads * BL_NCOUNTERS;
    if (!(r->counters = calloc(n + 1, sizeof *r->counters)))
        return oom(err, "counters");
    r->ncounters = n;
    for (size_t t = 0; t < g->nthreads; t++)
        for (int e = 0; e < BL_NCOUNTERS; e++) {
            const bl_counter *c = &g->counters[t][e];
            bl_h5_counter *row = &r->counters[t * BL_NCOUNTERS + (size_t)e];
            row->rank = g->places[t].rank;
            row->thread = g->places[t].thread;
            row->name = strdup(c->name);
            row->event = strdup(c->event);
            row->note = strdup(c->note);
            if (!row->name || !row->event || !row->note)
                return oom(err, "counters");
            row->value = c->value;
            row->available = (int8_t)c->available;
        }
    return 0;
}

/* timings[iteration][rank] from times[rank][iteration], and the slowest
 * rank per iteration. */
static int fill_timings(bl_h5_run *r, const gathered *g, double *iter_max,
                        bl_err *err)
{
    size_t nranks = (size_t)g->nranks, iters = (size_t)g->iters;
    if (!(r->timings = malloc(sizeof *r->timings * iters * nranks)))
        return oom(err, "timings");
    for (size_t it = 0; it < iters; it++)
        for (size_t q = 0; q < nranks; q++)
            r->timings[it * nranks + q] = g->times[q * iters + it];
    bl_result_slowest(g->times, g->nranks, g->iters, iter_max);
    return 0;
}

/* The host of rank q: that of its first thread (of the first thread of all
 * when q has none). */
static const char *host_of(const gathered *g, int q)
{
    for (size_t t = 0; t < g->nthreads; t++)
        if (g->places[t].rank == q)
            return g->places[t].host;
    return g->places[0].host;
}

static int fill_rank_rows(bl_h5_run *r, const gathered *g, bl_err *err)
{
    if (!(r->rank_rows = calloc((size_t)g->nranks + 1, sizeof *r->rank_rows)))
        return oom(err, "ranks");
    r->nrank_rows = (size_t)g->nranks;
    for (int q = 0; q < g->nranks; q++) {
        const double *mine = g->times + (size_t)q * (size_t)g->iters;
        bl_h5_rank *row = &r->rank_rows[q];
        double mn = mine[0];
        for (int it = 1; it < g->iters; it++)
            if (mine[it] < mn)
                mn = mine[it];
        row->rank = q;
        if (!(row->host = strdup(host_of(g, q))))
            return oom(err, "ranks");
        row->median_s = bl_result_median(mine, g->iters);
        row->min_s = mn;
        row->rate = row->median_s > 0 ? g->amounts[q] / row->median_s : 0;
        row->pages_local = g->local_total[2 * q];
        row->pages_total = g->local_total[2 * q + 1];
        row->local_page_fraction =
            row->pages_total > 0
                ? (double)row->pages_local / (double)row->pages_total
                : -1.0;
    }
    return 0;
}

/* One row per rank and NUMA node that holds pages (node -1: not present).
 * Rank q sent its own node's NUMA nodes and one more slot (not present):
 * its count says how many. pages/bytes: after the run or after first
 * touch. */
static int fill_memory_rows(bl_h5_memory **out, size_t *nout,
                            const gathered *g, const long long *pages,
                            const int *bytes, bl_err *err)
{
    size_t k = 0, all = 0, at = 0;
    bl_h5_memory *rows;
    for (int q = 0; q < g->nranks; q++)
        all += (size_t)bytes[q] / sizeof *pages;
    if (!(rows = calloc(all + 1, sizeof *rows)))
        return oom(err, "page locations");
    *out = rows;
    for (int q = 0; q < g->nranks; q++) {
        size_t npg = (size_t)bytes[q] / sizeof *pages;
        for (size_t node = 0; node < npg; node++) {
            long long cnt = pages[at + node];
            if (cnt == 0)
                continue;
            rows[k].rank = q;
            rows[k].numa_node = node + 1 < npg ? (int)node : -1;
            rows[k].pages = cnt;
            k++;
        }
        at += npg;
    }
    *nout = k;
    return 0;
}

static int fill_memory(bl_h5_run *r, const gathered *g, bl_err *err)
{
    return fill_memory_rows(&r->memory, &r->nmemory, g, g->pages,
                            g->page_bytes, err) < 0 ||
                   fill_memory_rows(&r->memory_init, &r->nmemory_init, g,
                                    g->pages_init, g->page_init_bytes,
                                    err) < 0
               ? -1
               : 0;
}

/* One /run/numa row per rank from its account. */
static int fill_numa(bl_h5_run *r, const gathered *g, bl_err *err)
{
    if (!(r->numa = calloc((size_t)g->nranks + 1, sizeof *r->numa)))
        return oom(err, "NUMA account");
    r->nnuma = (size_t)g->nranks;
    for (int q = 0; q < g->nranks; q++) {
        const bl_numa_account *a = &g->accounts[q];
        bl_h5_numa *row = &r->numa[q];
        row->rank = q;
        row->numa_balancing = a->numa_balancing;
        if (!(row->thp_enabled = strdup(a->thp)))
            return oom(err, "NUMA account");
        row->page_bytes = a->page_bytes;
        row->huge_page_bytes = a->huge_page_bytes;
        row->share_align = a->share_align;
        row->huge_share = a->huge_share;
        row->straddles = a->straddles;
        row->best_local_fraction = a->best_local_fraction;
        row->pages_local_init = a->pages_local_init;
        row->pages_total_init = a->pages_total_init;
        row->local_page_fraction_init =
            a->pages_total_init > 0
                ? (double)a->pages_local_init / (double)a->pages_total_init
                : -1.0;
        row->task_numa_pages_migrated = a->task_migrated;
        row->task_numa_faults = a->task_faults;
        row->vm_numa_pages_migrated = a->vm.pages_migrated;
        row->vm_numa_hint_faults = a->vm.hint_faults;
        row->vm_numa_hint_faults_local = a->vm.hint_faults_local;
        row->vm_numa_pte_updates = a->vm.pte_updates;
        row->vm_pgmigrate_success = a->vm.pgmigrate_success;
    }
    return 0;
}

static int fill_metrics(bl_h5_run *r, const gathered *g, bl_err *err)
{
    size_t m = 0;
    if (!(r->metrics = calloc(g->nmetrics + 1, sizeof *r->metrics)))
        return oom(err, "metrics");
    r->nmetrics = g->nmetrics;
    for (int q = 0; q < g->nranks; q++) {
        size_t cnt = (size_t)g->metric_bytes[q] / sizeof *g->metrics;
        for (size_t j = 0; j < cnt; j++, m++) {
            r->metrics[m].rank = q;
            r->metrics[m].name = strdup(g->metrics[m].name);
            r->metrics[m].value = g->metrics[m].value;
            r->metrics[m].unit = strdup(g->metrics[m].unit);
            if (!r->metrics[m].name || !r->metrics[m].unit)
                return oom(err, "metrics");
        }
    }
    return 0;
}

/* The run is verified when every rank is; keep the first complaint. */
static int fill_verify(bl_h5_run *r, const gathered *g, bl_err *err)
{
    const bl_verify *v = g->verifies;
    const char *detail = v[0].detail;
    r->result.verified = 1;
    r->result.error = 0.0;
    r->result.checksum = v[0].checksum;
    for (int q = 0; q < g->nranks; q++) {
        if (v[q].error > r->result.error)
            r->result.error = v[q].error;
        if (!v[q].verified && r->result.verified) {
            r->result.verified = 0;
            detail = v[q].detail;
        }
    }
    if (!(r->result.verify_detail = strdup(detail)))
        return oom(err, "verification");
    return 0;
}

int bl_record_gather(MPI_Comm comm, int iters, int nnodes,
                     const bl_rank_record *rec, bl_h5_run *r,
                     double *iter_max, bl_err *err)
{
    gathered g = {0};
    int rank, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &g.nranks);
    g.iters = iters;
    rc = gather_records(comm, rec, nnodes, &g, err);
    if (rc == 0)
        rc = gather_numbers(comm, rec, &g, err);
    if (rc == 0 && rank == 0 &&
        (fill_placement(r, &g, err) < 0 || fill_counters(r, &g, err) < 0 ||
         fill_timings(r, &g, iter_max, err) < 0 ||
         fill_rank_rows(r, &g, err) < 0 || fill_memory(r, &g, err) < 0 ||
         fill_numa(r, &g, err) < 0 ||
         fill_metrics(r, &g, err) < 0 || fill_verify(r, &g, err) < 0))
        rc = -1;
    gathered_free(&g);
    return rc;
}
