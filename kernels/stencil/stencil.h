/* The stencil kernel's pieces: 2D decomposition, the row sweep, the halo
 * exchange and the state they share. kernels/stencil/stencil.c puts them behind
 * the bl_kernel interface; tests call the pieces directly.
 *
 * The grid is NX columns (i, contiguous in memory) by NY rows (j). Each
 * step computes u' = u + S u on every point at least R away from the
 * global edge, where S is the classic star stencil of radius R (weight
 * +-1/(2kR) at distance k on each axis). For u = a*i + b*j + c, S u = a + b
 * exactly, so after t steps every point holds a*i + b*j + t*(a + b): the
 * input changes every step, and a stale or wrong halo shows. The global
 * edge strips (width R) are a moving Dirichlet boundary: u' = u + (a + b). */
#ifndef BL_STENCIL_H
#define BL_STENCIL_H

#include <stddef.h>

#include <mpi.h>

#include "kernel.h"

#define BL_STENCIL_RADIUS_MAX 4
#define BL_STENCIL_DEFAULT_RADIUS 2
#define BL_STENCIL_DEFAULT_N 8000
/* The linear input a*i + b*j; a != b so that swapped axes show. */
#define BL_STENCIL_COEF_X 1.0
#define BL_STENCIL_COEF_Y 2.0
#define BL_STENCIL_TOLERANCE 1e-8

/* --test-hook values: deliberate faults that verification must catch. */
enum {
    BL_STENCIL_HOOK_NONE = 0,
    BL_STENCIL_HOOK_HALO_CELL = 1, /* one received ghost cell is wrong */
    BL_STENCIL_HOOK_DECOMP = 2,    /* tiles start one column off */
    BL_STENCIL_HOOK_RACE = 3,      /* --overlap: borders before the wait */
};

/* Neighbour directions, in the order of the ghost strips. */
enum { BL_STENCIL_WEST, BL_STENCIL_EAST, BL_STENCIL_SOUTH, BL_STENCIL_NORTH };

/* A rectangle of array coordinates (ghost cells included): columns
 * [i0, i1), rows [j0, j1). Empty when i0 >= i1 or j0 >= j1. */
typedef struct bl_stencil_rect {
    long i0, i1, j0, j1;
} bl_stencil_rect;

/* Narrower rects (the R-wide borders of --overlap) store normally. */
#define BL_STENCIL_STREAM_MIN_WIDTH 64

typedef struct bl_stencil_sweep_cfg {
    int streaming;     /* write rows of at least BL_STENCIL_STREAM_MIN_WIDTH
                        * points with streaming (non-temporal) stores */
    long block_cols;   /* sweep in column strips this wide (0: whole rows) */
    /* --align-shares: each thread sweeps, of any rect, the rows of its
     * share of rows [share_j0, share_j1) with each share starting on a
     * multiple of share_align bytes (bl_share_range); 0: each rect's rows
     * split as schedule(static) would */
    size_t share_align;
    long share_j0, share_j1;
} bl_stencil_sweep_cfg;

typedef struct bl_stencil {
    long nx, ny;          /* global grid */
    int radius;
    int dims[2];          /* ranks along y (rows), along x (columns) */
    int coords[2];
    MPI_Comm cart;
    int nbr[4];           /* MPI_PROC_NULL at the global edge */
    long x0, y0;          /* global index of the first owned cell */
    long lx, ly;          /* owned cells */
    long ld;              /* doubles per array row: lx + 2R, padded */
    size_t rows;          /* ly + 2R */
    size_t bytes;         /* per array as mapped */
    double *cur, *next;   /* input and output of the next step */
    bl_stencil_rect update;  /* points the stencil updates */
    bl_stencil_rect inner;   /* of those, the ones that read no ghost */
    bl_stencil_rect edge[4]; /* owned global-boundary strips */
    MPI_Datatype row_strip, col_strip;
    bl_stencil_sweep_cfg cfg; /* streaming stores, column blocking */
    long steps;           /* steps done since first_touch */
    /* What halo_post sent each neighbour since first_touch (payload bytes
     * from the datatypes' sizes, messages): the kernel's traffic. */
    double sent_bytes[4], sent_msgs[4];
    int hook;
    /* Per-step times of the last `ring` steps, for the metrics. */
    double *t_halo, *t_comp;
    int ring;
} bl_stencil;

/* The [start, start + count) cells that part `index` of `parts` gets of n:
 * the first n % parts parts get one cell more. */
void bl_stencil_split(long n, int parts, int index, long *start, long *count);

/* 0 if an nx x ny grid splits over dims[1] x dims[0] ranks (columns x
 * rows) into tiles of at least `radius` cells each way and has interior
 * points; else -1 with a message naming the sizes. */
int bl_stencil_check_grid(long nx, long ny, const int dims[2], int radius,
                          bl_err *err);

/* The grid from the options: --grid NX[xNY] (NX alone: square), else the
 * square grid whose two arrays fill --size per rank, else the default. */
int bl_stencil_grid_from_opts(const bl_kernel_opts *o, int nranks, long *nx,
                              long *ny, bl_err *err);

/* The calling thread's rows of rect r of array (ld doubles a row), as
 * offsets from r.j0: schedule(static)'s split of r's rows, or with
 * cfg->share_align its aligned share's rows inside r. The first touch's
 * and the sweep's. */
void bl_stencil_thread_rows(const double *array, long ld, bl_stencil_rect r,
                            const bl_stencil_sweep_cfg *cfg, size_t *lo,
                            size_t *hi);

/* u' = u + S u over rect r; rows split among threads by schedule(static),
 * or with cfg->share_align by the aligned shares. Radius 1..4. cfg:
 * streaming stores and/or column blocking, the same rows per thread and
 * the same answer; NULL: normal stores, no blocking. */
void bl_stencil_sweep_ex(const double *in, double *out, long ld, int radius,
                         bl_stencil_rect r, const bl_stencil_sweep_cfg *cfg);

/* 1 when this build has streaming stores (x86 SSE2 or wider), else 0. */
int bl_stencil_streaming_available(void);

/* The strip width that keeps the 2R + 1 input rows of a strip in half of
 * the core's L2 (sysconf; 1 MiB if unknown), or 0 when rows of `width`
 * points already fit and no blocking is needed. */
long bl_stencil_block_cols(int radius, long width);

/* out = in + shift over rect r (the moving boundary). */
void bl_stencil_shift(const double *in, double *out, long ld, double shift,
                      bl_stencil_rect r);

/* Derived datatypes for the ghost strips; free with bl_stencil_halo_free. */
int bl_stencil_halo_types(bl_stencil *s, bl_err *err);
void bl_stencil_halo_free(bl_stencil *s);

/* Starts the exchange of s->cur's ghost strips with the four neighbours
 * (8 requests into req), and completes it. */
void bl_stencil_halo_post(bl_stencil *s, MPI_Request req[8]);
void bl_stencil_halo_wait(bl_stencil *s, MPI_Request req[8]);

/* The exact value at global (gi, gj) after t steps. */
static inline double bl_stencil_exact(long gi, long gj, long t)
{
    return BL_STENCIL_COEF_X * (double)gi + BL_STENCIL_COEF_Y * (double)gj +
           (double)t * (BL_STENCIL_COEF_X + BL_STENCIL_COEF_Y);
}

/* Address of owned cell (i, j) (0-based within the tile) in array a. */
static inline double *bl_stencil_at(const bl_stencil *s, double *a, long i,
                                    long j)
{
    return a + (j + s->radius) * s->ld + (i + s->radius);
}

extern const bl_kernel bl_kernel_stencil;

#endif
