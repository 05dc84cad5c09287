/* The stencil's compute loop against the triad, timed by CPU time instead
 * of the wall clock: on a machine shared with other work the wall clock
 * also counts the time a rank waited for a core, which says nothing about
 * the memory roofline; the ranks' own CPU time does not count it. Both are
 * bindlab-app's own kernels (bl_kernel_find), set up and first-touched as
 * the app does, in the same process. The stencil's part is its sweep alone
 * (bl_stencil_sweep_ex over the kernel's arrays, rows and store choice):
 * no halo exchange, whose MPI wait spins and so counts the other rank's
 * lost time as CPU time (the app's run file gives the halo's share,
 * halo_fraction). Interleaved: ROUNDS x (STEPS sweeps, STEPS triad steps);
 * each block's time is the slowest rank's. Prints one line per round, the
 * medians and the honest roofline ratio (bytes that move: the stencil's own
 * count per point, 16 or 24; the triad's 32 per element, as
 * bench/stencil_bench.sh counts them), then
 * "bench-result stencil.sweep_roofline_cpu VALUE". First both kernels run
 * two real steps and are verified (exit 1 when one is wrong).
 *
 * BINDLAB_ISA chooses the kernels' ISA level, as for bindlab-app.
 * CPU time is the process's divided by its OpenMP threads: meaningful when
 * each thread has a core of its own (bench/README.md).
 * usage: mpirun -np N bindlab-kernel-cputime [GRID [RADIUS [TRIAD_SIZE
 *        [ROUNDS [STEPS]]]]]   (default 8000 2 512MiB 5 10) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <omp.h>

#include "isa.h"
#include "kernel.h"
#include "stencil/stencil.h"
#include "units.h"

#define MAX_ROUNDS 64

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec) /
           omp_get_max_threads();
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds of CPU time of `steps` steps (sweeps alone when `sweep_only`,
 * the stencil's), the slowest rank's. */
static double timed_steps(const bl_kernel *k, bl_kernel_ctx *ctx, int steps,
                          int sweep_only)
{
    bl_err err = {{0}};
    double t0, t, slowest;
    MPI_Barrier(ctx->comm);
    t0 = cpu_s();
    for (int i = 0; i < steps; i++) {
        if (sweep_only) {
            bl_stencil *s = ctx->state;
            double *tmp = s->cur;
            bl_stencil_sweep_ex(s->cur, s->next, s->ld, s->radius,
                                s->update, &s->cfg);
            s->cur = s->next;
            s->next = tmp;
        } else if (k->step(ctx, &err) < 0) {
            fprintf(stderr, "bindlab-kernel-cputime: %s: %s\n", k->name,
                    err.msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    t = cpu_s() - t0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    return slowest;
}

static void setup(const bl_kernel *k, bl_kernel_ctx *ctx)
{
    bl_err err = {{0}};
    if (k->setup(ctx, &err) < 0) {
        fprintf(stderr, "bindlab-kernel-cputime: %s: %s\n", k->name,
                err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    k->first_touch(ctx);
}

static int verified(const bl_kernel *k, bl_kernel_ctx *ctx, int rank)
{
    bl_verify v;
    memset(&v, 0, sizeof v);
    k->verify(ctx, &v);
    if (!v.verified && rank == 0)
        fprintf(stderr, "bindlab-kernel-cputime: %s wrong: %s\n", k->name,
                v.detail);
    return v.verified;
}

int main(int argc, char **argv)
{
    const bl_kernel *st = bl_kernel_find("stencil");
    const bl_kernel *tr = bl_kernel_find("triad");
    bl_kernel_opts so = {0}, to = {0};
    bl_kernel_ctx sc = {0}, tc = {0};
    double ts[MAX_ROUNDS], tt[MAX_ROUNDS], sm, tm, s_bpp;
    bl_work sw, tw;
    bl_err err = {{0}};
    int rank, nranks, local, provided, rounds, steps, ok;
    MPI_Comm node;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    so.grid[0] = argc > 1 ? atol(argv[1]) : 8000;
    so.grid_dims = 1;
    so.radius = argc > 2 ? atoi(argv[2]) : 2;
    if (bl_parse_size(argc > 3 ? argv[3] : "512MiB", "TRIAD_SIZE",
                      &to.size_bytes, &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-kernel-cputime: %s\n", err.msg);
        MPI_Finalize();
        return 2;
    }
    /* the app's level: BINDLAB_ISA as bindlab-app reads it */
    if (bl_isa_select(getenv("BINDLAB_ISA"), &err) < 0) {
        if (rank == 0)
            fprintf(stderr, "bindlab-kernel-cputime: BINDLAB_ISA: %s\n",
                    err.msg);
        MPI_Finalize();
        return 2;
    }
    rounds = argc > 4 ? atoi(argv[4]) : 5;
    steps = argc > 5 ? atoi(argv[5]) : 10;
    if (!st || !tr || so.grid[0] < 1 || rounds < 1 || rounds > MAX_ROUNDS ||
        steps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: bindlab-kernel-cputime [GRID [RADIUS "
                    "[TRIAD_SIZE [ROUNDS (1..%d) [STEPS]]]]]\n", MAX_ROUNDS);
        MPI_Finalize();
        return 2;
    }
    so.iters = to.iters = steps;
    sc = (bl_kernel_ctx){.comm = MPI_COMM_WORLD, .rank = rank,
                         .nranks = nranks, .nthreads = omp_get_max_threads(),
                         .local_ranks = local, .opts = &so};
    tc = sc;
    tc.opts = &to;
    setup(st, &sc);
    setup(tr, &tc);
    /* Two real steps each, verified; then the timed rounds. */
    timed_steps(st, &sc, 2, 0);
    timed_steps(tr, &tc, 2, 0);
    ok = verified(st, &sc, rank) & verified(tr, &tc, rank);
    st->work(&sc, &sw);
    tr->work(&tc, &tw);
    s_bpp = sw.bytes / sw.amount;
    for (int r = 0; r < rounds; r++) {
        double a = timed_steps(st, &sc, steps, 1);
        double b = timed_steps(tr, &tc, steps, 0);
        /* Rates: the stencil's updated points over all ranks, the
         * triad's 24 B/element (its own count) over all ranks. */
        double pts = 0.0, bytes = 0.0;
        MPI_Allreduce(&sw.amount, &pts, 1, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        MPI_Allreduce(&tw.bytes, &bytes, 1, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        ts[r] = pts * steps / a / 1e6;
        tt[r] = bytes * steps / b / 1e9;
        if (rank == 0)
            printf("  round %d (CPU time): stencil sweep %.1f MLUP/s  triad %.2f "
                   "GB/s (24 B)\n", r + 1, ts[r], tt[r]);
    }
    sm = median(ts, rounds);
    tm = median(tt, rounds);
    if (rank == 0) {
        printf("CPU-time median: stencil sweep %.1f MLUP/s = %.2f GB/s at %g "
               "B/point; triad %.2f GB/s at 24 B = %.2f GB/s at 32 B\n",
               sm, sm * s_bpp / 1e3, s_bpp, tm, tm * 32 / 24);
        printf("CPU-time honest roofline ratio of the sweep = %.3f\n",
               sm * s_bpp / 1e3 / (tm * 32 / 24));
        printf("bench-result stencil.sweep_roofline_cpu %.4f\n",
               sm * s_bpp / 1e3 / (tm * 32 / 24));
    }
    st->teardown(&sc);
    tr->teardown(&tc);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return ok ? 0 : 1;
}
