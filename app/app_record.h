/* Everything one rank measured, in fixed-size records that travel to rank 0
 * with plain MPI_BYTE gathers. */
#ifndef BL_APP_RECORD_H
#define BL_APP_RECORD_H

#include <hwloc.h>
#include <mpi.h>

#include "measure/counters.h"
#include "h5/h5schema.h"
#include "kernel.h"
#include "measure/numa_account.h"
#include "measure/placement.h"

#define BL_MAX_METRICS 32

typedef struct bl_rank_record {
    int nthreads;
    bl_thread_place *threads;          /* [nthreads] */
    bl_counter (*counters)[BL_NCOUNTERS]; /* [nthreads] */
    double *times;                     /* [iters]: this rank's step times */
    int nnodes;                        /* NUMA nodes of this node */
    long long *pages;                  /* [nnodes + 1] pages per NUMA node
                                        * after the timed region */
    long long *pages_init;             /* [nnodes + 1] after first touch */
    long long *share_pages[2];         /* scratch: [nthreads][nnodes + 1]
                                        * per moment (first touch, end) */
    long long pages_local, pages_total;
    bl_numa_account account;           /* the kernel's, around the run */
    bl_verify verify;
    bl_metric metrics[BL_MAX_METRICS];
    int nmetrics;
    bl_work work;
} bl_rank_record;

/* Right after first touch: where each share's pages are (the first
 * moment), the arrays' huge-page share and the best local fraction first
 * touch can reach with it (rec->account; the counters' first reading must
 * have been taken before first touch). */
int bl_record_first_touch(hwloc_topology_t topo, const bl_kernel *k,
                          const bl_kernel_ctx *ctx, bl_rank_record *rec,
                          bl_err *err);

/* After the timed region, with each thread's NUMA node known: where the
 * pages are now (the second moment), and for both moments the counts per
 * node and the pages on the NUMA node of the thread whose share holds
 * them. */
int bl_record_pages(hwloc_topology_t topo, const bl_kernel *k,
                    const bl_kernel_ctx *ctx, bl_rank_record *rec,
                    bl_err *err);

/* Gathers every rank's record on rank 0 into the run's tables. Collective.
 * nnodes: the NUMA nodes of this rank's node (rec->pages holds nnodes + 1);
 * ranks on nodes of different shapes give different counts, each kept with
 * its rank (a memory row's NUMA node is one of its rank's node). On rank 0 fills r (placement, counters, memory, ranks, metrics, timings)
 * and the per-iteration maximum over ranks in iter_max[iters]. -1 with err
 * set: on every rank when rank 0 could not allocate its receive buffers; on
 * rank 0 alone when it could not build the tables (r is then partly filled:
 * release it with bl_h5_run_free). */
int bl_record_gather(MPI_Comm comm, int iters, int nnodes,
                     const bl_rank_record *rec, bl_h5_run *r,
                     double *iter_max, bl_err *err);

#endif
