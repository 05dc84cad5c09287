/* One interface for every kernel of bindlab-app. A kernel is one file that
 * allocates its arrays untouched, first-touches them with the same
 * schedule(static) as its compute loop, runs one timed iteration at a time,
 * verifies its own answer and states the work it did. Adding a kernel is
 * adding one file and one entry in kernels/registry.c.
 *
 * The app owns MPI initialisation, timing, placement records and output;
 * kernels never print and never exit. */
#ifndef BL_KERNEL_H
#define BL_KERNEL_H

#include <stddef.h>

#include <mpi.h>

#include "err.h"
#include "units.h"

/* Options from the app's command line. Each kernel reads the fields it
 * needs; 0 / NULL means "not given on the command line". */
typedef struct bl_kernel_opts {
    size_t size_bytes;  /* --size: bytes across one rank's arrays */
    int serial_init;    /* --init serial: the master thread touches all */
    int iters;          /* --iters: timed iterations */
    /* --grid AxB[xC]: the stencil's global grid NX[xNY[xNZ]], or the LU's
     * process grid PxQ; each kernel gives it its meaning. */
    long grid[3];
    int grid_dims;      /* how many of grid[] were given (0 = none) */
    int radius;         /* --radius (stencil) */
    int overlap;        /* --overlap (stencil) */
    long n;             /* --n (lu): matrix order */
    int nb;             /* --nb (lu): block size */
    unsigned long seed; /* --seed: for kernels with random input */
    int write_percent;  /* --writes (shared): lookups that write, 0..100 */
    int huge_pages;     /* --huge-pages (latency): BL_HUGE_* below */
    int access;         /* --access (latency): BL_ACCESS_* below */
    long round_trips;   /* --round-trips (c2c): per pair and iteration */
    int test_hook;      /* --test-hook N: deliberate fault for tests */
    /* --align-shares (triad): every thread's share starts on a multiple of
     * this many bytes (the huge page size), in first touch and compute
     * alike; 0: schedule(static) */
    size_t share_align;
} bl_kernel_opts;

/* --huge-pages: how the latency kernel asks for 2 MiB pages. */
enum { BL_HUGE_OFF = 0, BL_HUGE_THP, BL_HUGE_HUGETLB };

/* --access: how the latency kernel walks its lines. chase: dependent loads
 * in a random cycle (the latency); lines: one independent load per line in
 * address order (what likwid-bench's clload times). */
enum { BL_ACCESS_CHASE = 0, BL_ACCESS_LINES };

/* One PU of the rank's binding, as hwloc places it (logical indexes, -1
 * unknown). The app fills them; kernels need no hwloc. */
typedef struct bl_kernel_cpu {
    int os;                     /* OS index, as Linux numbers CPUs */
    int pu, core, l3, numa, package;
} bl_kernel_cpu;

typedef struct bl_kernel_ctx {
    MPI_Comm comm;             /* all ranks of the run */
    int rank, nranks;
    int nthreads;              /* OpenMP threads of this rank */
    int local_ranks;           /* ranks of this run on this node */
    const bl_kernel_opts *opts;
    const bl_kernel_cpu *cpus; /* the rank's PUs in hwloc logical order */
    int ncpus;
    size_t llc_bytes;          /* the largest cache above the rank's first
                                * PU (its last level), 0 unknown */
    void *state;               /* the kernel's own */
} bl_kernel_ctx;

/* A memory region that the compute loop splits among threads with
 * schedule(static) over `units` units of `unit_bytes` each (elements for a
 * vector, rows for a grid). The app uses it to find out whether each page
 * sits on the NUMA node of the thread that computes on it. */
typedef struct bl_region {
    const void *base;
    size_t units;
    size_t unit_bytes;
    size_t align;   /* the shares' alignment (bl_share_range), 0 static */
} bl_region;

/* What one timed iteration of this rank does. rate = amount / seconds /
 * scale, in rate_unit (e.g. bytes, 1e9, "GB/s"). */
typedef struct bl_work {
    double amount;
    double scale;
    const char *rate_unit;
    double bytes;              /* memory traffic model, per iteration */
    double flops;              /* floating-point operations, per iteration */
    const char *model;         /* one line: how bytes/flops were counted */
} bl_work;

typedef struct bl_verify {
    int verified;              /* 1: the answer is right */
    double error;              /* the kernel's own error measure */
    double checksum;           /* a figure of the answer that must not depend
                                * on ranks x threads (e.g. a norm) */
    char detail[256];          /* one line, e.g. the first wrong element */
} bl_verify;

/* A kernel-specific figure of this rank, stored with the results as a
 * table (rank, name, value, unit), e.g. the halo-exchange time fraction. */
typedef struct bl_metric {
    char name[48];
    double value;
    char unit[16];
} bl_metric;

/* One phase of this rank's last timed iteration (e.g. the LU's panel,
 * broadcast, swap, update, wait, solve), from its master thread's clock:
 * the phases of a rank do not overlap and add up to `total`, that
 * iteration's time on this rank (the same in each of its rows). Recorded
 * as /run/time_split. */
typedef struct bl_phase {
    char name[24];
    double seconds;
    double total;
} bl_phase;

/* What this rank sends to one peer in one timed iteration: the payload
 * of its messages (no MPI envelope). A collective counts the data each
 * member needs from this rank as sent to it directly (a broadcast: the
 * root to every other member), whatever tree or ring the MPI library runs
 * it over; each kernel says so in its traffic function. */
typedef struct bl_peer_traffic {
    int peer;                  /* rank in ctx->comm */
    double bytes;              /* per iteration */
    double messages;           /* per iteration */
} bl_peer_traffic;

struct bl_h5_matrix; /* common/h5/h5schema.h */

typedef struct bl_kernel {
    const char *name;
    const char *summary;
    /* Validate options and allocate without touching memory. Collective:
     * every rank calls it; returns 0, or -1 with err (exit status 2). */
    int (*setup)(bl_kernel_ctx *ctx, bl_err *err);
    /* First touch: parallel with schedule(static), or by the master alone
     * when opts->serial_init. Sets the input values. */
    void (*first_touch)(bl_kernel_ctx *ctx);
    /* Optional untimed preparation before every iteration (may be NULL). */
    void (*before_step)(bl_kernel_ctx *ctx);
    /* One timed iteration; called warmup + iters times in all, each time
     * between an MPI_Barrier and the time stamps. Returns 0, or -1 with err
     * on a run-time failure. */
    int (*step)(bl_kernel_ctx *ctx, bl_err *err);
    /* Check the answer after the last iteration. Collective. */
    int (*verify)(bl_kernel_ctx *ctx, bl_verify *out);
    void (*work)(const bl_kernel_ctx *ctx, bl_work *out);
    /* Fills up to max regions; returns how many there are. */
    size_t (*regions)(const bl_kernel_ctx *ctx, bl_region *out, size_t max);
    /* Optional extra figures; returns how many. Collective. May be NULL. */
    size_t (*metrics)(bl_kernel_ctx *ctx, bl_metric *out, size_t max);
    /* Optional: a matrix this rank measured (c2c), written with the run.
     * Fills out (allocated with malloc; the caller frees it with
     * bl_h5_matrix_free); returns 0, or -1 when there is none. */
    int (*matrix)(bl_kernel_ctx *ctx, struct bl_h5_matrix *out);
    void (*teardown)(bl_kernel_ctx *ctx);
    /* Optional: this rank's last iteration split into phases; returns how
     * many (at most max). Not collective. May be NULL. */
    size_t (*time_split)(bl_kernel_ctx *ctx, bl_phase *out, size_t max);
    /* Optional: what this rank sent to each peer per timed iteration, one
     * entry per peer it sends to (at most max = ctx->nranks). The app sorts
     * the peers into this rank's node and the others (/run/traffic). Not
     * collective. May be NULL. */
    size_t (*traffic)(bl_kernel_ctx *ctx, bl_peer_traffic *out, size_t max);
} bl_kernel;

/* The kernel called name, or NULL. */
const bl_kernel *bl_kernel_find(const char *name);

/* Names of all kernels, "triad, stencil, ..." for messages. */
const char *bl_kernel_names(void);

/* The [lo, hi) range of units that thread tid of nthreads gets from
 * schedule(static) with no chunk size: the first n % nthreads threads get
 * one unit more. This is what libgomp and LLVM's runtime do. */
void bl_static_range(size_t n, int nthreads, int tid, size_t *lo, size_t *hi);

/* malloc that does not touch the pages: large blocks come straight from
 * mmap, page-aligned, so first touch decides where they live. Returns NULL
 * on failure. Free with bl_untouched_free(p, bytes). */
void *bl_untouched_alloc(size_t bytes);
void bl_untouched_free(void *p, size_t bytes);
/* The same, starting at a multiple of align bytes (a power of two; 0 or
 * the page size: bl_untouched_alloc). Freed with bl_untouched_free. */
void *bl_untouched_alloc_aligned(size_t bytes, size_t align);

/* 0 if `bytes` per rank fits this rank's share of the node's free memory;
 * else -1 with a message naming `what` (e.g. "--size '64GiB'"). */
int bl_kernel_fits_memory(const bl_kernel_ctx *ctx, size_t bytes,
                          const char *what, bl_err *err);

#endif
