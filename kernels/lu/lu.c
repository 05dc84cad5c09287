/* HPL-like kernel: solve A x = b with the distributed blocked LU of
 * lu_mat.h and check HPL's scaled residual. --n N --nb NB --grid PxQ
 * (process grid, row-major rank order as HPL's default). LU works in
 * place, so before_step regenerates [A | b] (untimed); a step is
 * factorisation + solve, counted as HPL counts it, 2/3 N^3 + 3/2 N^2. */
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lu/lu_blas.h"
#include "lu/lu_mat.h"

#define LU_DEFAULT_N 2000L
#define LU_PASS_THRESHOLD 16.0
#define NS_TO_S(ns) ((double)(ns) * 1e-9)

typedef struct lu_state {
    bl_lu_mat m;
    uint64_t seed;
    int dirty;           /* a step overwrote the matrix */
    long info;           /* first zero pivot of the last step, or -1 */
    double resid;        /* scaled residual from verify (NAN before) */
} lu_state;

/* NB when --nb is not given, by matrix order. A wider panel makes each
 * DGEMM of the update more efficient (its inner dimension is NB) but the
 * panel, which runs on one thread, costs N^2 NB / 2 of the flops: up to
 * N = 2000 the panel dominates sooner, so 128 (the default before sizes
 * were told apart); 192 up to 6000 (the n = 4000 scale figure used 192);
 * 256 beyond (the NB the bench used at N = 10000). A choice from that
 * trade-off, not a sweep measured on a quiet machine: bench/README.md says
 * what could be measured. */
int bl_lu_default_nb(long n)
{
    return n <= 2000 ? 128 : n <= 6000 ? 192 : 256;
}

static int lu_check_opts(const bl_kernel_ctx *ctx, long *n, int *nb, int *p,
                         int *q, bl_err *err)
{
    const bl_kernel_opts *o = ctx->opts;
    *n = o->n ? o->n : LU_DEFAULT_N;
    *nb = o->nb ? o->nb : bl_lu_default_nb(*n);
    if (*n < 1)
        return bl_err_set(err, "--n: %ld is not a matrix order; give N >= 1",
                          *n);
    /* pivot rows travel as MPI_DOUBLE_INT, whose index is an int */
    if (*n >= 0x7fffffffL)
        return bl_err_set(err, "--n: %ld is too large; N must be below 2^31",
                          *n);
    if (*nb < 1)
        return bl_err_set(err, "--nb: %d is not a block size; give NB >= 1",
                          *nb);
    if (*nb > *n)
        *nb = (int)*n;  /* one block holds the whole matrix */
    return bl_lu_layout_grid(ctx->nranks, o->grid, o->grid_dims, p, q, err);
}

static int lu_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    long n;
    int nb, p, q;
    size_t need = 0;
    char what[64];
    lu_state *s;
    if (lu_check_opts(ctx, &n, &nb, &p, &q, err) < 0)
        return -1;
    /* the largest share over the grid, so every rank gives the same answer */
    for (int r = 0; r < p * q; r++) {
        size_t b = bl_lu_mat_bytes(n, nb, p, q, r / q, r % q);
        need = b > need ? b : need;
    }
    snprintf(what, sizeof what, "--n %ld on a %dx%d grid", n, p, q);
    if (bl_kernel_fits_memory(ctx, need, what, err) < 0)
        return -1;
    s = calloc(1, sizeof *s);
    if (!s)
        return bl_err_set(err, "lu: out of memory");
    ctx->state = s;
    s->seed = ctx->opts->seed;
    s->info = -1;
    s->resid = NAN;
    if (bl_lu_mat_init(&s->m, ctx->comm, n, nb, p, q, err) < 0) {
        free(s);
        ctx->state = NULL;
        return -1;
    }
    return 0;
}

/* BL_LU_HOOK_SINGULAR: a zero first column, so the matrix is exactly
 * singular */
static void generate(bl_kernel_ctx *ctx)
{
    lu_state *s = ctx->state;
    bl_lu_mat *m = &s->m;
    bl_lu_mat_generate(m, s->seed, ctx->opts->serial_init);
    if (ctx->opts->test_hook == BL_LU_HOOK_SINGULAR && m->mycol == 0)
        for (long r = 0; r < m->mloc; r++)
            BL_LU_A(m, r, 0) = 0.0;
    s->dirty = 0;
}

static void lu_first_touch(bl_kernel_ctx *ctx)
{
    generate(ctx);
}

static void lu_before_step(bl_kernel_ctx *ctx)
{
    lu_state *s = ctx->state;
    /* same round-robin blocks as first touch, so no page changes owner */
    if (s->dirty)
        generate(ctx);
}

static int lu_step(bl_kernel_ctx *ctx, bl_err *err)
{
    lu_state *s = ctx->state;
    (void)err;
    s->dirty = 1;
    /* A singular matrix is an answer, not a failure: verify reports it. */
    s->info = bl_lu_factor(&s->m, ctx->opts->test_hook);
    if (s->info < 0)
        bl_lu_solve(&s->m);
    /* from the first lap's start to the last one's end, no clock reading
     * of its own: the phases tile it exactly */
    s->m.t.total = s->m.lap - s->m.t0;
    return 0;
}

static int lu_verify(bl_kernel_ctx *ctx, bl_verify *v)
{
    lu_state *s = ctx->state;
    const bl_lu_mat *m = &s->m;
    double norms[4], xsum = 0.0;
    if (s->info >= 0) {
        s->resid = INFINITY;
        v->verified = 0;
        v->error = INFINITY;
        v->checksum = NAN;
        snprintf(v->detail, sizeof v->detail,
                 "singular matrix: exactly zero pivot in column %ld "
                 "(N=%ld NB=%d P=%d Q=%d)", s->info, m->n, m->nb, m->p, m->q);
        return 0;
    }
    s->resid = bl_lu_residual(m, s->seed, norms);
    for (long i = 0; i < m->n; i++)
        xsum += fabs(m->x[i]);
    v->verified = s->resid < LU_PASS_THRESHOLD;
    v->error = s->resid;
    /* ||x||_1: the same for any grid and thread count up to rounding */
    v->checksum = xsum;
    snprintf(v->detail, sizeof v->detail,
             "%s: ||Ax-b||oo/(eps*(||A||oo*||x||oo+||b||oo)*N) = %.6g %s %g "
             "(N=%ld NB=%d P=%d Q=%d, BLAS %s)",
             v->verified ? "PASSED" : "FAILED", s->resid,
             v->verified ? "<" : ">=", LU_PASS_THRESHOLD, m->n, m->nb, m->p,
             m->q, bl_lu_blas_name());
    return 0;
}

static void lu_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const lu_state *s = ctx->state;
    double n = (double)s->m.n;
    double total = 2.0 / 3.0 * n * n * n + 1.5 * n * n;
    /* the app sums amount over ranks: each rank states its share */
    w->amount = total / ctx->nranks;
    w->flops = total / ctx->nranks;
    w->scale = 1e9;
    w->rate_unit = "GFLOP/s";
    w->bytes = 8.0 * n * (n + 1.0) / ctx->nranks;
    w->model = "flops: HPL's 2/3 N^3 + 3/2 N^2 for factorisation + solve, "
               "split evenly over ranks; bytes: the local [A|b] once "
               "(a lower bound, LU is compute bound)";
}

/* Threads own local column blocks round-robin, which a schedule(static)
 * over units cannot say in one region; but round k of blocks (blocks k*T
 * to k*T+T-1, contiguous in column-major storage) split statically over T
 * threads gives thread t block k*T+t, so one region per round says it. */
static size_t lu_regions(const bl_kernel_ctx *ctx, bl_region *out, size_t max)
{
    const lu_state *s = ctx->state;
    const bl_lu_mat *m = &s->m;
    size_t t = (size_t)(ctx->nthreads > 0 ? ctx->nthreads : 1);
    size_t nlb = (size_t)m->nlblocks, nreg = (nlb + t - 1) / t;
    size_t block_bytes = (size_t)m->nb * (size_t)m->lld * sizeof(double);
    if (ctx->opts->serial_init) {
        /* the master touched everything: one region, thread 0's alone */
        if (max > 0) {
            out[0].base = m->a;
            out[0].units = 1;
            out[0].unit_bytes = nlb * block_bytes;
        }
        return 1;
    }
    for (size_t k = 0; k < nreg && k < max; k++) {
        out[k].base = (const char *)m->a + k * t * block_bytes;
        out[k].units = nlb - k * t < t ? nlb - k * t : t;
        out[k].unit_bytes = block_bytes;
    }
    return nreg;
}

static size_t lu_metrics(bl_kernel_ctx *ctx, bl_metric *out, size_t max)
{
    lu_state *s = ctx->state;
    const bl_lu_mat *m = &s->m;
    const struct { const char *name; double value; const char *unit; } all[] = {
        {"scaled_residual", s->resid, "1"},
        {"passed", s->info < 0 && s->resid < LU_PASS_THRESHOLD, "bool"},
        {"singular_column", (double)s->info, "index"},
        {"n", (double)m->n, "1"},
        {"nb", (double)m->nb, "1"},
        {"grid_p", (double)m->p, "1"},
        {"grid_q", (double)m->q, "1"},
        {"panel_s", NS_TO_S(m->t.panel), "s"},
        {"panel_bcast_s", NS_TO_S(m->t.bcast), "s"},
        {"row_swap_s", NS_TO_S(m->t.swap), "s"},
        {"update_s", NS_TO_S(m->t.update), "s"},
        {"solve_s", NS_TO_S(m->t.solve), "s"},
        {"wait_s", NS_TO_S(m->t.wait), "s"},
        {"step_s", NS_TO_S(m->t.total), "s"},
    };
    size_t k, nall = sizeof all / sizeof all[0];
    for (k = 0; k < nall && k < max; k++) {
        snprintf(out[k].name, sizeof out[k].name, "%s", all[k].name);
        out[k].value = all[k].value;
        snprintf(out[k].unit, sizeof out[k].unit, "%s", all[k].unit);
    }
    return k;
}

/* The master thread's timeline of the last step (lu_mat.h): the phases
 * tile it, so they add up to the step's time (exactly in nanoseconds; in
 * seconds up to the rounding of each conversion). */
static size_t lu_time_split(bl_kernel_ctx *ctx, bl_phase *out, size_t max)
{
    const lu_state *s = ctx->state;
    const bl_lu_times *t = &s->m.t;
    const struct { const char *name; int64_t ns; } all[] = {
        {"panel", t->panel}, {"bcast", t->bcast}, {"swap", t->swap},
        {"update", t->update}, {"wait", t->wait}, {"solve", t->solve},
    };
    size_t k, nall = sizeof all / sizeof all[0];
    for (k = 0; k < nall && k < max; k++) {
        snprintf(out[k].name, sizeof out[k].name, "%s", all[k].name);
        out[k].seconds = NS_TO_S(all[k].ns);
        out[k].total = NS_TO_S(t->total);
    }
    return k;
}

/* What the last step (factorisation + solve: every step is the same, on
 * the same regenerated matrix) sent each rank, as counted beside each MPI
 * call (lu_mat.h says how collectives count). Ranks of the grid are ranks
 * of ctx->comm. */
static size_t lu_traffic(bl_kernel_ctx *ctx, bl_peer_traffic *out, size_t max)
{
    const bl_lu_mat *m = &((const lu_state *)ctx->state)->m;
    size_t n = 0;
    for (int r = 0; r < m->nranks && n < max; r++)
        if (m->sent_msgs[r] > 0) {
            out[n].peer = r;
            out[n].bytes = m->sent_bytes[r];
            out[n].messages = m->sent_msgs[r];
            n++;
        }
    return n;
}

static void lu_teardown(bl_kernel_ctx *ctx)
{
    lu_state *s = ctx->state;
    if (!s)
        return;
    bl_lu_mat_free(&s->m);
    free(s);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_lu = {
    .name = "lu",
    .summary = "HPL-like LU solve, 2D block-cyclic over --grid PxQ "
               "(compute bound, GFLOP/s)",
    .setup = lu_setup,
    .first_touch = lu_first_touch,
    .before_step = lu_before_step,
    .step = lu_step,
    .verify = lu_verify,
    .work = lu_work,
    .regions = lu_regions,
    .metrics = lu_metrics,
    .teardown = lu_teardown,
    .time_split = lu_time_split,
    .traffic = lu_traffic,
};
