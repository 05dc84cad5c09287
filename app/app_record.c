#include "app_record.h"
#include "app_result.h"

#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 16

int bl_record_pages(hwloc_topology_t topo, const bl_kernel *k,
                    const bl_kernel_ctx *ctx, bl_rank_record *rec,
                    bl_err *err)
{
    bl_region regs[MAX_REGIONS];
    size_t nreg = k->regions(ctx, regs, MAX_REGIONS);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

    rec->pages = calloc((size_t)nnodes + 1, sizeof *rec->pages);
    if (!rec->pages)
        return bl_err_set(err, "out of memory");
    if (nreg > MAX_REGIONS)
        nreg = MAX_REGIONS;
    for (size_t r = 0; r < nreg; r++) {
        const char *base = regs[r].base;
        size_t bytes = regs[r].units * regs[r].unit_bytes;
        if (bl_place_pages_by_node(topo, base, bytes, rec->pages, err) < 0)
            return -1;
        /* A page belongs to the thread whose static share holds its first
         * byte; that thread's NUMA node is where it should live. */
        for (int t = 0; t < rec->nthreads; t++) {
            size_t lo, hi;
            uintptr_t start, end;
            bl_static_range(regs[r].units, rec->nthreads, t, &lo, &hi);
            start = (uintptr_t)base + lo * regs[r].unit_bytes;
            end = (uintptr_t)base + hi * regs[r].unit_bytes;
            start = (start + page - 1) & ~(page - 1);
            if (t == 0)
                start = (uintptr_t)base & ~(page - 1);
            if (end <= start || rec->threads[t].numa < 0)
                continue;
            if (bl_place_pages_local(topo, (const void *)start, end - start,
                                     rec->threads[t].numa, &rec->pages_local,
                                     &rec->pages_total, err) < 0)
                return -1;
        }
    }
    return 0;
}

/* Gathers `bytes` from every rank into one buffer on rank 0; counts holds
 * each rank's byte count there. */
static void *gather_bytes(MPI_Comm comm, const void *mine, int bytes,
                          int **counts_out)
{
    int rank, nranks, total = 0;
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        for (int r = 0; r < nranks; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(total > 0 ? (size_t)total : 1);
    }
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    free(displs);
    if (counts_out)
        *counts_out = counts;
    else
        free(counts);
    return all;
}

static void fill_placement(bl_h5_run *r, const bl_thread_place *p, size_t n)
{
    r->placement = calloc(n + 1, sizeof *r->placement);
    r->nplacement = n;
    for (size_t i = 0; i < n; i++) {
        bl_h5_placement *row = &r->placement[i];
        row->rank = p[i].rank;
        row->thread = p[i].thread;
        row->host = strdup(p[i].host);
        row->rank_cpuset = strdup(p[i].rank_cpuset);
        row->cpuset = strdup(p[i].cpuset);
        row->cpu_first = p[i].cpu_first;
        row->cpu_last = p[i].cpu_last;
        row->core = p[i].core;
        row->l3 = p[i].l3;
        row->numa = p[i].numa;
        row->package = p[i].package;
        row->migrations = p[i].migrations;
        row->pid = p[i].pid;
    }
}

static void fill_counters(bl_h5_run *r, const bl_thread_place *p,
                          const bl_counter (*c)[BL_NCOUNTERS], size_t nthr)
{
    size_t n = nthr * BL_NCOUNTERS;
    r->counters = calloc(n + 1, sizeof *r->counters);
    r->ncounters = n;
    for (size_t t = 0; t < nthr; t++)
        for (int e = 0; e < BL_NCOUNTERS; e++) {
            bl_h5_counter *row = &r->counters[t * BL_NCOUNTERS + (size_t)e];
            row->rank = p[t].rank;
            row->thread = p[t].thread;
            row->name = strdup(c[t][e].name);
            row->event = strdup(c[t][e].event);
            row->value = c[t][e].value;
            row->available = (int8_t)c[t][e].available;
            row->note = strdup(c[t][e].note);
        }
}

int bl_record_gather(MPI_Comm comm, int iters, int nnodes,
                     const bl_rank_record *rec, bl_h5_run *r,
                     double *iter_max, bl_err *err)
{
    int rank, nranks;
    int *thr_bytes = NULL, *met_bytes = NULL;
    bl_thread_place *places;
    bl_counter(*counters)[BL_NCOUNTERS];
    double *times = NULL, *amounts = NULL;
    long long *pages = NULL, local_total[2];
    long long *lt = NULL;
    bl_verify *verifies;
    bl_metric *metrics;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    places = gather_bytes(comm, rec->threads,
                          (int)(sizeof *rec->threads * (size_t)rec->nthreads),
                          &thr_bytes);
    counters = gather_bytes(comm, rec->counters,
                            (int)(sizeof *rec->counters * (size_t)rec->nthreads),
                            NULL);
    verifies = gather_bytes(comm, &rec->verify, (int)sizeof rec->verify, NULL);
    metrics = gather_bytes(comm, rec->metrics,
                           (int)(sizeof rec->metrics[0] * (size_t)rec->nmetrics),
                           &met_bytes);
    if (rank == 0) {
        times = malloc(sizeof *times * (size_t)iters * (size_t)nranks);
        amounts = malloc(sizeof *amounts * (size_t)nranks);
        pages = malloc(sizeof *pages * (size_t)(nnodes + 1) * (size_t)nranks);
        lt = malloc(sizeof *lt * 2 * (size_t)nranks);
    }
    MPI_Gather(rec->times, iters, MPI_DOUBLE, times, iters, MPI_DOUBLE, 0,
               comm);
    MPI_Gather(&rec->work.amount, 1, MPI_DOUBLE, amounts, 1, MPI_DOUBLE, 0,
               comm);
    MPI_Gather(rec->pages, nnodes + 1, MPI_LONG_LONG, pages, nnodes + 1,
               MPI_LONG_LONG, 0, comm);
    local_total[0] = rec->pages_local;
    local_total[1] = rec->pages_total;
    MPI_Gather(local_total, 2, MPI_LONG_LONG, lt, 2, MPI_LONG_LONG, 0, comm);

    if (rank == 0) {
        size_t nthr = 0, nmet = 0, k = 0;
        for (int q = 0; q < nranks; q++) {
            nthr += (size_t)thr_bytes[q] / sizeof *places;
            nmet += (size_t)met_bytes[q] / sizeof *metrics;
        }
        fill_placement(r, places, nthr);
        fill_counters(r, places, (const bl_counter(*)[BL_NCOUNTERS])counters,
                      nthr);
        /* timings[iteration][rank], and the slowest rank per iteration. */
        r->timings = malloc(sizeof *r->timings * (size_t)iters * (size_t)nranks);
        for (int it = 0; it < iters; it++)
            for (int q = 0; q < nranks; q++)
                r->timings[(size_t)it * (size_t)nranks + (size_t)q] =
                    times[(size_t)q * (size_t)iters + (size_t)it];
        bl_result_slowest(times, nranks, iters, iter_max);
        r->memory = calloc((size_t)(nnodes + 1) * (size_t)nranks + 1,
                           sizeof *r->memory);
        r->rank_rows = calloc((size_t)nranks + 1, sizeof *r->rank_rows);
        r->nrank_rows = (size_t)nranks;
        for (int q = 0; q < nranks; q++) {
            const double *mine = times + (size_t)q * (size_t)iters;
            bl_h5_rank *row = &r->rank_rows[q];
            const bl_thread_place *first = places;
            double mn = mine[0];
            for (int it = 1; it < iters; it++)
                if (mine[it] < mn)
                    mn = mine[it];
            for (size_t t = 0; t < nthr; t++)
                if (places[t].rank == q) {
                    first = &places[t];
                    break;
                }
            row->rank = q;
            row->host = strdup(first->host);
            row->median_s = bl_result_median(mine, iters);
            row->min_s = mn;
            row->rate = row->median_s > 0 ? amounts[q] / row->median_s : 0;
            row->pages_local = lt[2 * q];
            row->pages_total = lt[2 * q + 1];
            row->local_page_fraction =
                row->pages_total > 0
                    ? (double)row->pages_local / (double)row->pages_total
                    : -1.0;
            for (int node = 0; node <= nnodes; node++) {
                long long cnt = pages[(size_t)q * (size_t)(nnodes + 1) +
                                      (size_t)node];
                if (cnt == 0)
                    continue;
                r->memory[k].rank = q;
                r->memory[k].numa_node = node < nnodes ? node : -1;
                r->memory[k].pages = cnt;
                k++;
            }
        }
        r->nmemory = k;
        r->metrics = calloc(nmet + 1, sizeof *r->metrics);
        r->nmetrics = nmet;
        {
            size_t m = 0;
            for (int q = 0; q < nranks; q++) {
                size_t cnt = (size_t)met_bytes[q] / sizeof *metrics;
                for (size_t j = 0; j < cnt; j++, m++) {
                    r->metrics[m].rank = q;
                    r->metrics[m].name = strdup(metrics[m].name);
                    r->metrics[m].value = metrics[m].value;
                    r->metrics[m].unit = strdup(metrics[m].unit);
                }
            }
        }
        /* The run is verified when every rank is; keep the first complaint. */
        r->result.verified = 1;
        r->result.error = 0.0;
        r->result.checksum = verifies[0].checksum;
        r->result.verify_detail = NULL;
        for (int q = 0; q < nranks; q++) {
            if (verifies[q].error > r->result.error)
                r->result.error = verifies[q].error;
            if (!verifies[q].verified && r->result.verified) {
                r->result.verified = 0;
                r->result.verify_detail = strdup(verifies[q].detail);
            }
        }
        if (!r->result.verify_detail)
            r->result.verify_detail = strdup(verifies[0].detail);
    }
    free(places);
    free(counters);
    free(verifies);
    free(metrics);
    free(thr_bytes);
    free(met_bytes);
    free(times);
    free(amounts);
    free(pages);
    free(lt);
    (void)err;
    return 0;
}
