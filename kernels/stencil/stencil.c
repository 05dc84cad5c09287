/* --kernel stencil: 2D-decomposed star stencil of radius R with a halo
 * exchange each step and OpenMP over rows inside each rank. The maths and
 * the layout are described in stencil.h; this file is the bl_kernel. */
#include "stencil/stencil.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHIFT (BL_STENCIL_COEF_X + BL_STENCIL_COEF_Y)
/* Checksum cells in units of 2^-10: an integer sum does not depend on the
 * order of addition, so it is the same for any ranks x threads. */
#define CHECKSUM_SCALE 1024.0

static long max_l(long a, long b) { return a > b ? a : b; }
static long min_l(long a, long b) { return a < b ? a : b; }

/* Points at least R from the global edge, and the owned strips outside. */
static void set_rects(bl_stencil *s)
{
    const long r = s->radius;
    bl_stencil_rect u, in;
    u.i0 = r + max_l(0, r - s->x0);
    u.i1 = max_l(u.i0, r + min_l(s->lx, s->nx - r - s->x0));
    u.j0 = r + max_l(0, r - s->y0);
    u.j1 = max_l(u.j0, r + min_l(s->ly, s->ny - r - s->y0));
    s->update = u;
    s->edge[BL_STENCIL_SOUTH] = (bl_stencil_rect){r, r + s->lx, r, u.j0};
    s->edge[BL_STENCIL_NORTH] = (bl_stencil_rect){r, r + s->lx, u.j1,
                                                  r + s->ly};
    s->edge[BL_STENCIL_WEST] = (bl_stencil_rect){r, u.i0, u.j0, u.j1};
    s->edge[BL_STENCIL_EAST] = (bl_stencil_rect){u.i1, r + s->lx, u.j0, u.j1};
    /* Points within R of a side that has a neighbour read its ghosts. */
    in.i0 = s->nbr[BL_STENCIL_WEST] != MPI_PROC_NULL ? max_l(u.i0, 2 * r)
                                                     : u.i0;
    in.i1 = s->nbr[BL_STENCIL_EAST] != MPI_PROC_NULL ? min_l(u.i1, s->lx)
                                                     : u.i1;
    in.j0 = s->nbr[BL_STENCIL_SOUTH] != MPI_PROC_NULL ? max_l(u.j0, 2 * r)
                                                      : u.j0;
    in.j1 = s->nbr[BL_STENCIL_NORTH] != MPI_PROC_NULL ? min_l(u.j1, s->ly)
                                                      : u.j1;
    if (in.i1 <= in.i0 || in.j1 <= in.j0)
        in = (bl_stencil_rect){u.i0, u.i0, u.j0, u.j0};
    s->inner = in;
}

/* Streaming stores when the arrays of this node's ranks do not fit in the
 * last-level cache (a line the next step reads from cache is better not
 * sent to memory); column strips when 2R + 1 rows do not fit in L2.
 * BINDLAB_STENCIL_STORES=streaming|normal and BINDLAB_STENCIL_BLOCK=COLS
 * (0: none) override the choice, for A/B benchmarks and tests. */
static int choose_sweep(const bl_kernel_ctx *ctx, bl_stencil *s, bl_err *err)
{
    const char *stores = getenv("BINDLAB_STENCIL_STORES");
    const char *block = getenv("BINDLAB_STENCIL_BLOCK");
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    double node_bytes = 2.0 * (double)s->bytes *
                        (ctx->local_ranks > 0 ? ctx->local_ranks : 1);
    if (l3 <= 0)
        l3 = 32L << 20;
    s->cfg.streaming = bl_stencil_streaming_available() &&
                       node_bytes > (double)l3;
    s->cfg.block_cols = bl_stencil_block_cols(s->radius,
                                              s->update.i1 - s->update.i0);
    if (stores && *stores && strcmp(stores, "auto") != 0) {
        if (strcmp(stores, "streaming") == 0 &&
            bl_stencil_streaming_available())
            s->cfg.streaming = 1;
        else if (strcmp(stores, "normal") == 0)
            s->cfg.streaming = 0;
        else
            return bl_err_set(err, "BINDLAB_STENCIL_STORES='%s': accepted "
                              "are auto, normal%s", stores,
                              bl_stencil_streaming_available()
                                  ? ", streaming" : " (no streaming stores "
                                  "in this build)");
    }
    if (block && *block && strcmp(block, "auto") != 0) {
        char *end;
        long w = strtol(block, &end, 10);
        if (*end || w < 0 || (w > 0 && w < 8))
            return bl_err_set(err, "BINDLAB_STENCIL_BLOCK='%s': give auto, "
                              "0 (no column strips) or a strip width of at "
                              "least 8 cells", block);
        s->cfg.block_cols = w;
    }
    return 0;
}

static int make_tile(bl_kernel_ctx *ctx, bl_stencil *s, bl_err *err)
{
    const int periods[2] = {0, 0};
    /* reorder = 0: rank placement stays the launcher's. */
    if (MPI_Cart_create(ctx->comm, 2, s->dims, periods, 0, &s->cart) !=
        MPI_SUCCESS)
        return bl_err_set(err, "stencil: MPI_Cart_create failed for %dx%d "
                          "ranks", s->dims[1], s->dims[0]);
    MPI_Cart_coords(s->cart, ctx->rank, 2, s->coords);
    MPI_Cart_shift(s->cart, 0, 1, &s->nbr[BL_STENCIL_SOUTH],
                   &s->nbr[BL_STENCIL_NORTH]);
    MPI_Cart_shift(s->cart, 1, 1, &s->nbr[BL_STENCIL_WEST],
                   &s->nbr[BL_STENCIL_EAST]);
    bl_stencil_split(s->nx, s->dims[1], s->coords[1], &s->x0, &s->lx);
    bl_stencil_split(s->ny, s->dims[0], s->coords[0], &s->y0, &s->ly);
    if (s->hook == BL_STENCIL_HOOK_DECOMP) {
        /* Each tile believes it starts one cell later than the last. */
        s->x0 += s->coords[1];
        s->y0 += s->coords[0];
    }
    /* Rows padded to 64 bytes so that every row starts on a cache line. */
    s->ld = (s->lx + 2L * s->radius + 7) / 8 * 8;
    s->rows = (size_t)(s->ly + 2L * s->radius);
    s->bytes = s->rows * (size_t)s->ld * sizeof(double);
    set_rects(s);
    return choose_sweep(ctx, s, err);
}

static void stencil_teardown(bl_kernel_ctx *ctx);

/* Setup failed after allocating: release what there is. */
static int fail(bl_kernel_ctx *ctx)
{
    stencil_teardown(ctx);
    return -1;
}

static int stencil_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    const bl_kernel_opts *o = ctx->opts;
    int dims[2] = {0, 0};
    int radius = o->radius ? o->radius : BL_STENCIL_DEFAULT_RADIUS;
    long nx, ny, tile_x, tile_y;
    char what[96];
    bl_stencil *s;

    /* Every check below sees the same inputs on every rank, so all ranks
     * fail together and nothing is allocated before the grid is known. */
    if (bl_stencil_grid_from_opts(o, ctx->nranks, &nx, &ny, err) < 0)
        return -1;
    MPI_Dims_create(ctx->nranks, 2, dims);
    if (bl_stencil_check_grid(nx, ny, dims, radius, err) < 0)
        return -1;
    /* The largest tile with its ghosts and padding, for MPI's int counts
     * and the memory check. */
    tile_x = nx / dims[1] + 1 + 2L * radius + 8;
    tile_y = ny / dims[0] + 1 + 2L * radius;
    if (tile_x > INT_MAX || tile_y > INT_MAX)
        return bl_err_set(err, "--grid %ldx%ld: tiles of more than %d cells "
                          "a side do not fit MPI counts; use more ranks",
                          nx, ny, INT_MAX);
    snprintf(what, sizeof what, "--grid %ldx%ld", nx, ny);
    if (bl_kernel_fits_memory(ctx, 2 * sizeof(double) * (size_t)tile_x *
                                       (size_t)tile_y, what, err) < 0)
        return -1;
    s = calloc(1, sizeof *s);
    if (!s)
        return bl_err_set(err, "stencil: out of memory");
    ctx->state = s;
    s->nx = nx;
    s->ny = ny;
    s->radius = radius;
    s->dims[0] = dims[0];
    s->dims[1] = dims[1];
    s->hook = o->test_hook;
    s->cart = MPI_COMM_NULL;
    s->row_strip = s->col_strip = MPI_DATATYPE_NULL;
    if (make_tile(ctx, s, err) < 0 || bl_stencil_halo_types(s, err) < 0)
        return fail(ctx);
    s->ring = o->iters > 0 ? o->iters : 10;
    s->t_halo = calloc((size_t)s->ring, sizeof *s->t_halo);
    s->t_comp = calloc((size_t)s->ring, sizeof *s->t_comp);
    /* --align-shares: both arrays aligned alike, so the shares of rows
     * split both at the same rows */
    s->cur = bl_untouched_alloc_aligned(s->bytes, o->share_align);
    s->next = bl_untouched_alloc_aligned(s->bytes, o->share_align);
    s->cfg.share_align = o->share_align;
    s->cfg.share_j0 = s->update.j0;
    s->cfg.share_j1 = s->update.j1;
    if (!s->t_halo || !s->t_comp || !s->cur || !s->next) {
        bl_err_set(err, "%s: cannot map 2 x %zu bytes on rank %d", what,
                   s->bytes, ctx->rank);
        return fail(ctx);
    }
    return 0;
}

/* One array row: the exact input on owned cells, NaN on ghost cells so
 * that a ghost read before the first exchange poisons the answer. */
static void init_row(const bl_stencil *s, long row)
{
    const long r = s->radius, j = row - r;
    double *u = s->cur + row * s->ld, *v = s->next + row * s->ld;
    const int owned_row = j >= 0 && j < s->ly;
    for (long c = 0; c < s->ld; c++) {
        long i = c - r;
        int owned = owned_row && i >= 0 && i < s->lx;
        u[c] = owned ? bl_stencil_exact(s->x0 + i, s->y0 + j, 0) : NAN;
        v[c] = owned ? 0.0 : NAN;
    }
}

static void stencil_first_touch(bl_kernel_ctx *ctx)
{
    bl_stencil *s = ctx->state;
    const bl_stencil_rect u = s->update;
    s->steps = 0;
    memset(s->sent_bytes, 0, sizeof s->sent_bytes);
    memset(s->sent_msgs, 0, sizeof s->sent_msgs);
    if (ctx->opts->serial_init) {
        for (long row = 0; row < (long)s->rows; row++)
            init_row(s, row);
        return;
    }
    /* The rows the sweep updates, split as the sweep splits them
     * (schedule(static), or the aligned shares), so each page lands on the
     * NUMA node of the thread that computes on it; the few ghost and
     * boundary rows outside go to the master. */
#pragma omp parallel
    {
        size_t lo, hi;
        bl_stencil_thread_rows(s->cur, s->ld, u, &s->cfg, &lo, &hi);
        for (long row = u.j0 + (long)lo; row < u.j0 + (long)hi; row++)
            init_row(s, row);
    }
    for (long row = 0; row < (long)s->rows; row++)
        if (row < u.j0 || row >= u.j1)
            init_row(s, row);
}

static void sweep(bl_stencil *s, bl_stencil_rect r)
{
    bl_stencil_sweep_ex(s->cur, s->next, s->ld, s->radius, r, &s->cfg);
}

/* The update minus the inner rectangle: what reads ghost cells. */
static void sweep_borders(bl_stencil *s)
{
    const bl_stencil_rect u = s->update, in = s->inner;
    if (in.i0 >= in.i1) {
        sweep(s, u);
        return;
    }
    sweep(s, (bl_stencil_rect){u.i0, u.i1, u.j0, in.j0});
    sweep(s, (bl_stencil_rect){u.i0, u.i1, in.j1, u.j1});
    sweep(s, (bl_stencil_rect){u.i0, in.i0, in.j0, in.j1});
    sweep(s, (bl_stencil_rect){in.i1, u.i1, in.j0, in.j1});
}

static void shift_edges(bl_stencil *s)
{
    for (int d = 0; d < 4; d++)
        bl_stencil_shift(s->cur, s->next, s->ld, SHIFT, s->edge[d]);
}

static int stencil_step(bl_kernel_ctx *ctx, bl_err *err)
{
    bl_stencil *s = ctx->state;
    MPI_Request req[8];
    double t0, t1, t2, t3, halo, comp;
    double *tmp;
    (void)err;
    t0 = MPI_Wtime();
    bl_stencil_halo_post(s, req);
    if (ctx->opts->overlap) {
        t1 = MPI_Wtime();
        sweep(s, s->inner);
        shift_edges(s);
        if (s->hook == BL_STENCIL_HOOK_RACE)
            sweep_borders(s); /* the bug on purpose: ghosts not yet here */
        t2 = MPI_Wtime();
        bl_stencil_halo_wait(s, req);
        t3 = MPI_Wtime();
        if (s->hook != BL_STENCIL_HOOK_RACE)
            sweep_borders(s);
        halo = (t1 - t0) + (t3 - t2);
        comp = (t2 - t1) + (MPI_Wtime() - t3);
    } else {
        bl_stencil_halo_wait(s, req);
        t1 = MPI_Wtime();
        sweep(s, s->update);
        shift_edges(s);
        halo = t1 - t0;
        comp = MPI_Wtime() - t1;
    }
    s->t_halo[s->steps % s->ring] = halo;
    s->t_comp[s->steps % s->ring] = comp;
    tmp = s->cur;
    s->cur = s->next;
    s->next = tmp;
    s->steps++;
    return 0;
}

/* Worst relative error of this rank's owned cells and the fixed-point sum
 * of their values. */
static double check_tile(const bl_stencil *s, uint64_t *sum, long *bi,
                         long *bj)
{
    double worst = 0.0;
    *sum = 0;
    *bi = *bj = 0;
    for (long j = 0; j < s->ly; j++)
        for (long i = 0; i < s->lx; i++) {
            double v = *bl_stencil_at(s, s->cur, i, j);
            double ref = bl_stencil_exact(s->x0 + i, s->y0 + j, s->steps);
            double e = fabs(v - ref) / fmax(fabs(ref), 1.0);
            if (isnan(e))
                e = INFINITY;
            if (e > worst) {
                worst = e;
                *bi = i;
                *bj = j;
            }
            if (isfinite(v))
                *sum += (uint64_t)llround(v * CHECKSUM_SCALE);
        }
    return worst;
}

static int stencil_verify(bl_kernel_ctx *ctx, bl_verify *out)
{
    bl_stencil *s = ctx->state;
    uint64_t sum, total;
    long bi, bj;
    struct { double e; int rank; } mine, worst;
    mine.e = check_tile(s, &sum, &bi, &bj);
    mine.rank = ctx->rank;
    MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, ctx->comm);
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->comm);
    out->verified = worst.e <= BL_STENCIL_TOLERANCE;
    out->error = worst.e;
    /* The mean cell value, from the order-free integer sum. */
    out->checksum = (double)(int64_t)total / CHECKSUM_SCALE /
                    ((double)s->nx * (double)s->ny);
    if (out->verified)
        snprintf(out->detail, sizeof out->detail,
                 "all %ldx%ld points within %g of %g*i + %g*j + %g*t after "
                 "t = %ld steps", s->nx, s->ny, BL_STENCIL_TOLERANCE,
                 BL_STENCIL_COEF_X, BL_STENCIL_COEF_Y, SHIFT, s->steps);
    else if (ctx->rank == worst.rank)
        snprintf(out->detail, sizeof out->detail,
                 "rank %d: worst point (i=%ld, j=%ld) = %.17g, expected "
                 "%.17g after %ld steps (relative error %.3g)",
                 ctx->rank, s->x0 + bi, s->y0 + bj,
                 *bl_stencil_at(s, s->cur, bi, bj),
                 bl_stencil_exact(s->x0 + bi, s->y0 + bj, s->steps),
                 s->steps, worst.e);
    if (!out->verified)
        MPI_Bcast(out->detail, sizeof out->detail, MPI_CHAR, worst.rank,
                  ctx->comm);
    return 0;
}

static double updated_points(const bl_stencil *s)
{
    return (double)(s->update.i1 - s->update.i0) *
           (double)(s->update.j1 - s->update.j0);
}

/* The bytes that really move per point: the output written with
 * streaming stores is not read first. */
static double bytes_per_point(const bl_stencil *s)
{
    return s->cfg.streaming ? 16.0 : 24.0;
}

static void stencil_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const bl_stencil *s = ctx->state;
    double pts = updated_points(s);
    w->amount = pts;
    w->scale = 1e6;
    w->rate_unit = "MLUP/s";
    w->bytes = bytes_per_point(s) * pts;
    w->flops = 5.0 * s->radius * pts;
    w->model = s->cfg.streaming
                   ? "per updated point: 16 bytes (read input, write output "
                     "with streaming stores: no write-allocate; halos and "
                     "edge strips not counted), 5R flops"
                   : "per updated point: 24 bytes (read input, write output, "
                     "write-allocate of output; halos and edge strips not "
                     "counted), 5R flops";
}

static size_t stencil_regions(const bl_kernel_ctx *ctx, bl_region *out,
                              size_t max)
{
    const bl_stencil *s = ctx->state;
    const double *arrays[2] = {s->cur, s->next};
    /* The rows the sweep splits with schedule(static). */
    for (size_t k = 0; k < 2 && k < max; k++) {
        out[k].base = arrays[k] + s->update.j0 * s->ld;
        out[k].units = (size_t)(s->update.j1 - s->update.j0);
        out[k].unit_bytes = (size_t)s->ld * sizeof(double);
        out[k].align = s->cfg.share_align;
    }
    return 2;
}

static void put(bl_metric *out, size_t max, size_t *n, const char *name,
                double value, const char *unit)
{
    if (*n < max) {
        snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
        out[*n].value = value;
        snprintf(out[*n].unit, sizeof out[*n].unit, "%s", unit);
    }
    (*n)++;
}

static size_t stencil_metrics(bl_kernel_ctx *ctx, bl_metric *out, size_t max)
{
    const bl_stencil *s = ctx->state;
    long n = s->steps < s->ring ? s->steps : s->ring;
    double h = 0.0, c = 0.0, t, pts = updated_points(s);
    size_t k = 0;
    /* The last `iters` steps: the timed ones. */
    for (long i = 0; i < n; i++) {
        h += s->t_halo[i];
        c += s->t_comp[i];
    }
    t = h + c > 0.0 ? h + c : 1.0;
    put(out, max, &k, "halo_fraction", h / t, "1");
    put(out, max, &k, "compute_fraction", c / t, "1");
    put(out, max, &k, "halo_s_per_step", n ? h / (double)n : 0.0, "s");
    put(out, max, &k, "flops_per_point", 5.0 * s->radius, "flop");
    put(out, max, &k, "bytes_per_point", bytes_per_point(s), "B");
    put(out, max, &k, "gflops", 5.0 * s->radius * pts * (double)n / t / 1e9,
        "GFLOP/s");
    put(out, max, &k, "gbytes", bytes_per_point(s) * pts * (double)n / t / 1e9,
        "GB/s");
    put(out, max, &k, "mlups", pts * (double)n / t / 1e6, "MLUP/s");
    put(out, max, &k, "tile_x", (double)s->lx, "cells");
    put(out, max, &k, "tile_y", (double)s->ly, "cells");
    put(out, max, &k, "streaming_stores", s->cfg.streaming, "bool");
    put(out, max, &k, "block_cols", (double)s->cfg.block_cols, "cells");
    return k < max ? k : max;
}

/* The halos this rank sent each neighbour per step, counted as they were
 * posted (each strip's datatype size), averaged over the steps since the
 * first touch (every step sends the same strips). The neighbours are ranks
 * of the Cartesian communicator, made without reordering: ranks of
 * ctx->comm. */
static size_t stencil_traffic(bl_kernel_ctx *ctx, bl_peer_traffic *out,
                              size_t max)
{
    const bl_stencil *s = ctx->state;
    size_t n = 0;
    for (int d = 0; d < 4 && n < max; d++) {
        if (s->nbr[d] == MPI_PROC_NULL || s->steps == 0)
            continue;
        out[n].peer = s->nbr[d];
        out[n].bytes = s->sent_bytes[d] / (double)s->steps;
        out[n].messages = s->sent_msgs[d] / (double)s->steps;
        n++;
    }
    return n;
}

static void stencil_teardown(bl_kernel_ctx *ctx)
{
    bl_stencil *s = ctx->state;
    if (!s)
        return;
    bl_stencil_halo_free(s);
    if (s->cart != MPI_COMM_NULL)
        MPI_Comm_free(&s->cart);
    bl_untouched_free(s->cur, s->bytes);
    bl_untouched_free(s->next, s->bytes);
    free(s->t_halo);
    free(s->t_comp);
    free(s);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_stencil = {
    .name = "stencil",
    .summary = "2D star stencil of radius R with halo exchange (MLUP/s)",
    .setup = stencil_setup,
    .first_touch = stencil_first_touch,
    .step = stencil_step,
    .verify = stencil_verify,
    .work = stencil_work,
    .regions = stencil_regions,
    .metrics = stencil_metrics,
    .teardown = stencil_teardown,
    .traffic = stencil_traffic,
};
