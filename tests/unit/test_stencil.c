/* The stencil kernel: decomposition arithmetic, grid checks, the sweep's
 * dependence on ghost cells, and whole runs on one rank (MPI singleton). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <mpi.h>
#include <omp.h>

#include "stencil/stencil.h"

/* setup, first touch, `steps` steps, verify, teardown on one rank. */
static void run(const bl_kernel_opts *o, int threads, int steps,
                bl_verify *v)
{
    bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .rank = 0, .nranks = 1,
                         .nthreads = threads, .local_ranks = 1, .opts = o};
    bl_err err = {{0}};
    omp_set_num_threads(threads);
    assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), 0);
    bl_kernel_stencil.first_touch(&ctx);
    for (int i = 0; i < steps; i++)
        assert_int_equal(bl_kernel_stencil.step(&ctx, &err), 0);
    memset(v, 0, sizeof *v);
    bl_kernel_stencil.verify(&ctx, v);
    bl_kernel_stencil.teardown(&ctx);
    assert_null(ctx.state);
}

static void stencil_split_spreads_remainder_over_first_parts(void **st)
{
    long start, count;
    (void)st;
    bl_stencil_split(10, 3, 0, &start, &count);
    assert_int_equal(start, 0);
    assert_int_equal(count, 4);
    bl_stencil_split(10, 3, 1, &start, &count);
    assert_int_equal(start, 4);
    assert_int_equal(count, 3);
    bl_stencil_split(10, 3, 2, &start, &count);
    assert_int_equal(start, 7);
    assert_int_equal(count, 3);
}

static void stencil_split_covers_awkward_sizes_without_gaps(void **st)
{
    /* Primes, remainders, one part, as many parts as cells. */
    static const long ns[] = {1, 7, 13, 97, 1000, 8191};
    static const int ps[] = {1, 2, 3, 5, 7, 13};
    (void)st;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ps / sizeof ps[0]; b++) {
            long next = 0, lo = ns[a], hi = 0;
            if (ps[b] > ns[a])
                continue;
            for (int k = 0; k < ps[b]; k++) {
                long start, count;
                bl_stencil_split(ns[a], ps[b], k, &start, &count);
                assert_int_equal(start, next);
                next = start + count;
                lo = count < lo ? count : lo;
                hi = count > hi ? count : hi;
            }
            assert_int_equal(next, ns[a]);
            assert_true(hi - lo <= 1);
        }
}

static void stencil_check_grid_accepts_1xN_and_Nx1_rank_grids(void **st)
{
    int rows[2] = {4, 1}, cols[2] = {1, 4};
    bl_err err = {{0}};
    (void)st;
    /* 4 ranks along y: 17 rows give tiles of 4 or 5 rows. */
    assert_int_equal(bl_stencil_check_grid(100, 17, rows, 4, &err), 0);
    assert_int_equal(bl_stencil_check_grid(17, 100, cols, 4, &err), 0);
    /* 15 cells over 4 ranks give tiles of 3, fewer than R = 4. */
    assert_int_equal(bl_stencil_check_grid(100, 15, rows, 4, &err), -1);
    assert_int_equal(bl_stencil_check_grid(15, 100, cols, 4, &err), -1);
}

static void stencil_check_grid_rejects_tile_smaller_than_radius(void **st)
{
    int dims[2] = {3, 2}; /* 3 ranks along y, 2 along x */
    bl_err err = {{0}};
    (void)st;
    assert_int_equal(bl_stencil_check_grid(13, 11, dims, 4, &err), -1);
    assert_non_null(strstr(err.msg, "--grid 13x11"));
    assert_non_null(strstr(err.msg, "2x3 ranks"));
    assert_non_null(strstr(err.msg, "6x3 cells"));
    assert_non_null(strstr(err.msg, "--radius 4"));
    assert_int_equal(bl_stencil_check_grid(13, 12, dims, 4, &err), 0);
}

static void stencil_check_grid_rejects_radius_out_of_range(void **st)
{
    int dims[2] = {1, 1};
    bl_err err = {{0}};
    (void)st;
    assert_int_equal(bl_stencil_check_grid(100, 100, dims, 0, &err), -1);
    assert_int_equal(bl_stencil_check_grid(100, 100, dims, 5, &err), -1);
    assert_non_null(strstr(err.msg, "1 to 4"));
}

static void stencil_check_grid_rejects_grid_without_interior(void **st)
{
    int dims[2] = {1, 1};
    bl_err err = {{0}};
    (void)st;
    assert_int_equal(bl_stencil_check_grid(4, 100, dims, 2, &err), -1);
    assert_non_null(strstr(err.msg, "no interior"));
    assert_int_equal(bl_stencil_check_grid(5, 5, dims, 2, &err), 0);
}

static void stencil_grid_from_opts_reads_each_form(void **st)
{
    bl_kernel_opts o = {0};
    long nx, ny;
    bl_err err = {{0}};
    (void)st;
    assert_int_equal(bl_stencil_grid_from_opts(&o, 1, &nx, &ny, &err), 0);
    assert_int_equal(nx, BL_STENCIL_DEFAULT_N);
    assert_int_equal(ny, BL_STENCIL_DEFAULT_N);
    o.grid_dims = 1;
    o.grid[0] = 300;
    assert_int_equal(bl_stencil_grid_from_opts(&o, 1, &nx, &ny, &err), 0);
    assert_int_equal(nx * 1000 + ny, 300300);
    o.grid_dims = 2;
    o.grid[1] = 70;
    assert_int_equal(bl_stencil_grid_from_opts(&o, 1, &nx, &ny, &err), 0);
    assert_int_equal(nx * 1000 + ny, 300070);
    o.grid_dims = 3;
    assert_int_equal(bl_stencil_grid_from_opts(&o, 1, &nx, &ny, &err), -1);
    assert_non_null(strstr(err.msg, "NXxNY"));
    /* 16 bytes a cell: 4 ranks x 1 MiB = 262144 cells = 512 x 512. */
    o.grid_dims = 0;
    o.size_bytes = 1 << 20;
    assert_int_equal(bl_stencil_grid_from_opts(&o, 4, &nx, &ny, &err), 0);
    assert_int_equal(nx, 512);
    assert_int_equal(ny, 512);
}

/* A (4R + 3)^2 array with exact input everywhere, ghosts included, and
 * optionally one cell (di, dj) wrong by 1; counts the wrong outputs. */
static void sweep_case(int r, long di, long dj, double *worst_out,
                       long *wrong_out)
{
    const long n = 4 * r + 3, ld = n;
    double *in = malloc(sizeof(double) * (size_t)(n * n));
    double *out = calloc((size_t)(n * n), sizeof(double));
    bl_stencil_rect rect = {r, n - r, r, n - r};
    double worst = 0.0;
    long wrong = 0;
    assert_non_null(in);
    assert_non_null(out);
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            in[j * ld + i] = bl_stencil_exact(i, j, 3);
    if (di >= 0)
        in[dj * ld + di] += 1.0;
    bl_stencil_sweep_ex(in, out, ld, r, rect, NULL);
    for (long j = r; j < n - r; j++)
        for (long i = r; i < n - r; i++) {
            double e = fabs(out[j * ld + i] - bl_stencil_exact(i, j, 4));
            worst = e > worst ? e : worst;
            wrong += e > 1e-9;
        }
    free(in);
    free(out);
    *worst_out = worst;
    *wrong_out = wrong;
}

static void stencil_sweep_is_exact_on_linear_input_for_radius_1_to_4(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++) {
        double worst;
        long wrong;
        sweep_case(r, -1, -1, &worst, &wrong);
        assert_true(worst < 1e-12);
        assert_int_equal(wrong, 0);
    }
}

static void stencil_sweep_sees_one_wrong_ghost_cell(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++) {
        double worst;
        long wrong;
        /* A west ghost cell at depth 1, mid-height: exactly the R points
         * to its east read it. */
        sweep_case(r, r - 1, 2 * r + 1, &worst, &wrong);
        assert_int_equal(wrong, r);
        assert_true(worst > 1e-3);
    }
}

static void stencil_radius_1_to_4_all_verify(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++) {
        bl_kernel_opts o = {.grid = {37, 23}, .grid_dims = 2, .radius = r,
                            .iters = 3};
        bl_verify v;
        run(&o, 2, 5, &v);
        assert_int_equal(v.verified, 1);
        assert_true(v.error <= BL_STENCIL_TOLERANCE);
    }
}

static void stencil_checksum_is_mean_of_exact_answer(void **st)
{
    bl_kernel_opts o = {.grid = {40, 30}, .grid_dims = 2, .iters = 4};
    bl_verify v;
    (void)st;
    run(&o, 1, 6, &v);
    /* mean of i + 2j + 3t over 40 x 30 after 6 steps: 19.5 + 29 + 18 */
    assert_true(fabs(v.checksum - 66.5) < 1e-3);
}

static void stencil_checksum_does_not_depend_on_threads_or_mode(void **st)
{
    bl_kernel_opts o = {.grid = {101, 53}, .grid_dims = 2, .radius = 3,
                        .iters = 4};
    bl_verify v1, v2, v3, v4;
    (void)st;
    run(&o, 1, 7, &v1);
    run(&o, 2, 7, &v2);
    o.overlap = 1;
    run(&o, 2, 7, &v3);
    o.overlap = 0;
    o.serial_init = 1;
    run(&o, 2, 7, &v4);
    assert_true(v1.verified && v2.verified && v3.verified && v4.verified);
    assert_memory_equal(&v1.checksum, &v2.checksum, sizeof(double));
    assert_memory_equal(&v1.checksum, &v3.checksum, sizeof(double));
    assert_memory_equal(&v1.checksum, &v4.checksum, sizeof(double));
}

static void stencil_verify_catches_one_wrong_input_cell(void **st)
{
    bl_kernel_opts o = {.grid = {64, 48}, .grid_dims = 2, .iters = 4};
    bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .nranks = 1, .nthreads = 2,
                         .local_ranks = 1, .opts = &o};
    bl_err err = {{0}};
    bl_verify v = {0};
    bl_stencil *s;
    (void)st;
    assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), 0);
    bl_kernel_stencil.first_touch(&ctx);
    for (int i = 0; i < 3; i++)
        bl_kernel_stencil.step(&ctx, &err);
    s = ctx.state;
    *bl_stencil_at(s, s->cur, 30, 20) += 1e-3;
    bl_kernel_stencil.step(&ctx, &err);
    bl_kernel_stencil.verify(&ctx, &v);
    assert_int_equal(v.verified, 0);
    assert_true(v.error > BL_STENCIL_TOLERANCE);
    assert_non_null(strstr(v.detail, "(i=30, j=20)"));
    bl_kernel_stencil.teardown(&ctx);
}

static void stencil_step_reads_no_unexchanged_ghost_on_one_rank(void **st)
{
    /* Ghosts start as NaN; on one rank no stencil point may read one. */
    bl_kernel_opts o = {.grid = {29, 31}, .grid_dims = 2, .radius = 4,
                        .iters = 2, .overlap = 1};
    bl_verify v;
    (void)st;
    run(&o, 2, 2, &v);
    assert_int_equal(v.verified, 1);
    assert_true(isfinite(v.checksum));
}

static void stencil_setup_rejects_grid_too_small_for_radius(void **st)
{
    bl_kernel_opts o = {.grid = {7, 7}, .grid_dims = 2, .radius = 4};
    bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .nranks = 1, .nthreads = 1,
                         .local_ranks = 1, .opts = &o};
    bl_err err = {{0}};
    (void)st;
    assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), -1);
    assert_null(ctx.state);
    assert_non_null(strstr(err.msg, "7x7"));
}

static void stencil_work_and_metrics_state_the_model(void **st)
{
    bl_kernel_opts o = {.grid = {50, 40}, .grid_dims = 2, .radius = 2,
                        .iters = 3};
    bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .nranks = 1, .nthreads = 1,
                         .local_ranks = 1, .opts = &o};
    bl_err err = {{0}};
    bl_work w = {0};
    bl_metric m[16];
    bl_region reg[2];
    size_t n;
    double halo = -1, comp = -1, fpp = -1;
    (void)st;
    assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), 0);
    bl_kernel_stencil.first_touch(&ctx);
    for (int i = 0; i < 5; i++)
        bl_kernel_stencil.step(&ctx, &err);
    bl_kernel_stencil.work(&ctx, &w);
    assert_true(w.amount == 46.0 * 36.0);
    assert_true(w.bytes == 24.0 * w.amount);
    assert_true(w.flops == 10.0 * w.amount);
    assert_string_equal(w.rate_unit, "MLUP/s");
    assert_non_null(strstr(w.model, "24 bytes"));
    assert_int_equal(bl_kernel_stencil.regions(&ctx, reg, 2), 2);
    assert_int_equal(reg[0].units, 36);
    n = bl_kernel_stencil.metrics(&ctx, m, 16);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(m[i].name, "halo_fraction") == 0)
            halo = m[i].value;
        if (strcmp(m[i].name, "compute_fraction") == 0)
            comp = m[i].value;
        if (strcmp(m[i].name, "flops_per_point") == 0)
            fpp = m[i].value;
    }
    assert_true(halo >= 0.0 && halo <= 1.0 && comp >= 0.0 && comp <= 1.0);
    assert_true(fpp == 10.0);
    bl_kernel_stencil.teardown(&ctx);
}

static double metric(const bl_metric *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return m[i].value;
    fail_msg("no metric %s", name);
    return 0.0;
}

#define assert_close(got, want) \
    assert_true(fabs((got) - (want)) <= 1e-12 * fabs(want))

/* The metrics from known step times: with iters 3 the kernel keeps the
 * last 3 of its 5 steps (the timed ones), here halo 1, 2, 3 ms and compute
 * 4, 5, 6 ms. Worked by hand: h = 6 ms, c = 15 ms,
 * t = 21 ms; the 50x40 grid with R=2 updates 46 x 36 = 1656 points a step;
 * so halo 6/21 = 2/7, compute 5/7, 2 ms halo per step, 1656 x 3 / 0.021 s
 * = 236571.43 points/s = 0.23657143 MLUP/s, x 10 flops, x 24 bytes. */
static void stencil_metrics_from_known_step_times(void **st)
{
    bl_kernel_opts o = {.grid = {50, 40}, .grid_dims = 2, .radius = 2,
                        .iters = 3};
    bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .nranks = 1, .nthreads = 1,
                         .local_ranks = 1, .opts = &o};
    bl_err err = {{0}};
    bl_metric m[16];
    bl_stencil *s;
    size_t n;
    (void)st;
    assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), 0);
    bl_kernel_stencil.first_touch(&ctx);
    for (int i = 0; i < 5; i++)
        bl_kernel_stencil.step(&ctx, &err);
    s = ctx.state;
    assert_int_equal(s->steps, 5);
    assert_int_equal(s->ring, 3);
    /* Steps 0..4 went to slots 0, 1, 2, 0, 1: the untimed steps 0 and 1
     * were overwritten by steps 3 and 4. */
    s->t_halo[2] = 1e-3; s->t_comp[2] = 4e-3; /* step 2 */
    s->t_halo[0] = 2e-3; s->t_comp[0] = 5e-3; /* step 3 */
    s->t_halo[1] = 3e-3; s->t_comp[1] = 6e-3; /* step 4 */
    n = bl_kernel_stencil.metrics(&ctx, m, 16);
    assert_close(metric(m, n, "halo_fraction"), 2.0 / 7.0);
    assert_close(metric(m, n, "compute_fraction"), 5.0 / 7.0);
    assert_close(metric(m, n, "halo_s_per_step"), 2e-3);
    assert_close(metric(m, n, "mlups"), 0.23657142857142857);
    assert_close(metric(m, n, "gflops"), 2.3657142857142857e-3);
    assert_close(metric(m, n, "gbytes"), 5.6777142857142857e-3);
    assert_true(metric(m, n, "tile_x") == 50.0);
    assert_true(metric(m, n, "tile_y") == 40.0);
    bl_kernel_stencil.teardown(&ctx);
}

/* The streaming and blocked sweeps against the exact answer, radius 1..4:
 * a rect 203 points wide starting at an odd column (so the scalar head,
 * the vector body with streaming stores and the scalar tail all run),
 * strips of 64 columns (the last one partial), 2 threads. Input
 * i + 2j + 3*3 everywhere; after one step i + 2j + 3*4 on the rect
 * (stencil.h), and the cells outside the rect untouched. */
static void sweep_ex_case(int r, int streaming, long block_cols)
{
    const long nx = 203 + 2 * r + 5, ny = 40, ld = (nx + 7) / 8 * 8;
    double *in = aligned_alloc(64, sizeof(double) * (size_t)(ld * ny));
    double *out = aligned_alloc(64, sizeof(double) * (size_t)(ld * ny));
    bl_stencil_rect rect = {r + 1, r + 1 + 203, r, ny - r};
    bl_stencil_sweep_cfg cfg = {.streaming = streaming,
                                .block_cols = block_cols};
    long wrong = 0, touched = 0;
    assert_non_null(in);
    assert_non_null(out);
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < ld; i++) {
            in[j * ld + i] = bl_stencil_exact(i, j, 3);
            out[j * ld + i] = -7.0;
        }
    omp_set_num_threads(2);
    bl_stencil_sweep_ex(in, out, ld, r, rect, &cfg);
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < ld; i++) {
            int inside = i >= rect.i0 && i < rect.i1 && j >= rect.j0 &&
                         j < rect.j1;
            double want = inside ? bl_stencil_exact(i, j, 4) : -7.0;
            wrong += fabs(out[j * ld + i] - want) > 1e-9;
            touched += inside;
        }
    free(in);
    free(out);
    assert_int_equal(touched, 203 * (ny - 2 * r));
    assert_int_equal(wrong, 0);
}

static void stencil_sweep_streaming_is_exact_for_radius_1_to_4(void **st)
{
    (void)st;
#if defined(__x86_64__)
    /* SSE2 at least: every x86-64 build has streaming stores */
    assert_int_equal(bl_stencil_streaming_available(), 1);
#endif
    for (int r = 1; r <= 4; r++)
        sweep_ex_case(r, 1, 0);
}

static void stencil_sweep_blocked_is_exact_for_radius_1_to_4(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++) {
        sweep_ex_case(r, 0, 64);
        sweep_ex_case(r, 1, 64);
    }
}

/* The sweep goes 4 rows a pass (when the rows share the vector alignment,
 * as here: ld a multiple of 8) and single rows for what is left of a
 * thread's share. One input cell wrong by 1 must change exactly the points
 * that read it: itself and the 4R star points around it (weights
 * +-1/(2kR) >= 1/32, far above the 1e-9 threshold), wherever it falls in a
 * pass and whatever share each of 1..3 threads gets: 8 rows in a row for
 * the wrong cell, each store kind. */
static void sweep_wrong_cell_case(int r, int streaming, int threads, long dj)
{
    const long nx = 160, ny = 37, ld = (nx + 7) / 8 * 8, di = 77;
    double *in = aligned_alloc(64, sizeof(double) * (size_t)(ld * ny));
    double *out = aligned_alloc(64, sizeof(double) * (size_t)(ld * ny));
    bl_stencil_rect rect = {r, nx - r, r, ny - r};
    bl_stencil_sweep_cfg cfg = {.streaming = streaming, .block_cols = 0};
    long wrong = 0, wrong_readers = 0;
    assert_non_null(in);
    assert_non_null(out);
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < ld; i++)
            in[j * ld + i] = bl_stencil_exact(i, j, 3);
    in[dj * ld + di] += 1.0;
    omp_set_num_threads(threads);
    bl_stencil_sweep_ex(in, out, ld, r, rect, &cfg);
    for (long j = rect.j0; j < rect.j1; j++)
        for (long i = rect.i0; i < rect.i1; i++) {
            long dx = labs(i - di), dy = labs(j - dj);
            int reader = (dy == 0 && dx <= r) || (dx == 0 && dy <= r);
            int bad = fabs(out[j * ld + i] - bl_stencil_exact(i, j, 4)) >
                      1e-9;
            wrong += bad;
            wrong_readers += bad && reader;
        }
    free(in);
    free(out);
    assert_int_equal(wrong, 4 * r + 1);
    assert_int_equal(wrong_readers, 4 * r + 1);
}

static void stencil_sweep_passes_see_one_wrong_cell_anywhere(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++)
        for (int streaming = 0; streaming <= 1; streaming++)
            for (int threads = 1; threads <= 3; threads++)
                for (long dj = 2 * r; dj < 2 * r + 8; dj++)
                    sweep_wrong_cell_case(r, streaming, threads, dj);
}

/* The strip width from the machine's own L2 (sysconf): the 2R + 1 rows of
 * a strip fit in half of it, in whole cache lines; rows that fit already
 * need no strips. */
static void stencil_block_cols_fits_half_of_l2(void **st)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    (void)st;
    if (l2 <= 0)
        l2 = 1L << 20;
    for (int r = 1; r <= 4; r++) {
        long w = bl_stencil_block_cols(r, 1L << 24);
        assert_true(w >= 512);
        assert_int_equal(w % 64, 0);
        assert_true(w == 512 || (2 * r + 1) * w * 8 <= l2 / 2);
        assert_true((2 * r + 1) * (w + 64) * 8 > l2 / 2 || w == 512);
        assert_int_equal(bl_stencil_block_cols(r, w), 0);
        assert_int_equal(bl_stencil_block_cols(r, w + 1), w);
    }
}

/* Whole runs with streaming stores and 64-column strips forced on (a grid
 * this small would use neither): every radius verifies, the checksum is
 * bit-identical to the plain sweep's, and the work model counts 16 B. */
static void stencil_streaming_blocked_runs_verify_for_radius_1_to_4(void **st)
{
    (void)st;
    for (int r = 1; r <= 4; r++) {
        bl_kernel_opts o = {.grid = {301, 45}, .grid_dims = 2, .radius = r,
                            .iters = 3};
        bl_kernel_ctx ctx = {.comm = MPI_COMM_WORLD, .nranks = 1,
                             .nthreads = 2, .local_ranks = 1, .opts = &o};
        bl_err err = {{0}};
        bl_verify plain, fast = {0};
        bl_work w = {0};
        bl_stencil *s;
        run(&o, 2, 6, &plain);
        omp_set_num_threads(2);
        assert_int_equal(bl_kernel_stencil.setup(&ctx, &err), 0);
        s = ctx.state;
        assert_int_equal(s->cfg.streaming, 0);   /* fits in cache */
        s->cfg.streaming = 1;
        s->cfg.block_cols = 64;
        bl_kernel_stencil.first_touch(&ctx);
        for (int i = 0; i < 6; i++)
            assert_int_equal(bl_kernel_stencil.step(&ctx, &err), 0);
        bl_kernel_stencil.verify(&ctx, &fast);
        bl_kernel_stencil.work(&ctx, &w);
        bl_kernel_stencil.teardown(&ctx);
        assert_int_equal(plain.verified, 1);
        assert_int_equal(fast.verified, 1);
        assert_memory_equal(&plain.checksum, &fast.checksum, sizeof(double));
        assert_true(w.bytes == 16.0 * w.amount);
        assert_non_null(strstr(w.model, "16 bytes"));
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stencil_split_spreads_remainder_over_first_parts),
        cmocka_unit_test(stencil_split_covers_awkward_sizes_without_gaps),
        cmocka_unit_test(stencil_check_grid_accepts_1xN_and_Nx1_rank_grids),
        cmocka_unit_test(stencil_check_grid_rejects_tile_smaller_than_radius),
        cmocka_unit_test(stencil_check_grid_rejects_radius_out_of_range),
        cmocka_unit_test(stencil_check_grid_rejects_grid_without_interior),
        cmocka_unit_test(stencil_grid_from_opts_reads_each_form),
        cmocka_unit_test(
            stencil_sweep_is_exact_on_linear_input_for_radius_1_to_4),
        cmocka_unit_test(stencil_sweep_sees_one_wrong_ghost_cell),
        cmocka_unit_test(stencil_radius_1_to_4_all_verify),
        cmocka_unit_test(stencil_checksum_is_mean_of_exact_answer),
        cmocka_unit_test(stencil_checksum_does_not_depend_on_threads_or_mode),
        cmocka_unit_test(stencil_verify_catches_one_wrong_input_cell),
        cmocka_unit_test(stencil_step_reads_no_unexchanged_ghost_on_one_rank),
        cmocka_unit_test(stencil_setup_rejects_grid_too_small_for_radius),
        cmocka_unit_test(stencil_work_and_metrics_state_the_model),
        cmocka_unit_test(stencil_metrics_from_known_step_times),
        cmocka_unit_test(stencil_sweep_streaming_is_exact_for_radius_1_to_4),
        cmocka_unit_test(stencil_sweep_blocked_is_exact_for_radius_1_to_4),
        cmocka_unit_test(stencil_sweep_passes_see_one_wrong_cell_anywhere),
        cmocka_unit_test(stencil_block_cols_fits_half_of_l2),
        cmocka_unit_test(
            stencil_streaming_blocked_runs_verify_for_radius_1_to_4),
    };
    int rc, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
