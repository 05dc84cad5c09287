/* STREAM-like triad a[i] = b[i] + s * c[i] over three arrays that share a
 * rank's --size. The input values are small integers and halves, so every
 * result is exact in double precision and verification compares exactly. */
#include "kernel.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "isa.h"
#include "shares.h"
#include "triad_loop.h"

#define TRIAD_SCALAR 3.0
#define TRIAD_DEFAULT_SIZE ((size_t)256 << 20)

typedef struct triad {
    double *a, *b, *c;
    size_t n;          /* elements per array */
    size_t bytes;      /* bytes per array as mapped */
} triad;

/* Exact inputs: b in {0, 0.5, ..., 2047.5}, c in {2, ..., 8}. */
static inline double b_value(size_t i) { return 0.5 * (double)(i % 4096); }
static inline double c_value(size_t i) { return 2.0 + (double)(i % 7); }

static int triad_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    const bl_kernel_opts *o = ctx->opts;
    size_t total = o->size_bytes ? o->size_bytes : TRIAD_DEFAULT_SIZE;
    char what[64];
    triad *t;

    snprintf(what, sizeof what, "--size");
    if (total / 24 < (size_t)ctx->nthreads)
        return bl_err_set(err,
                          "--size: %zu bytes give %zu elements per array, "
                          "fewer than the %d threads (24 bytes per element "
                          "across the three arrays)",
                          total, total / 24, ctx->nthreads);
    if (bl_kernel_fits_memory(ctx, total, what, err) < 0)
        return -1;
    t = calloc(1, sizeof *t);
    if (!t)
        return bl_err_set(err, "out of memory");
    t->n = total / 24;
    t->bytes = t->n * sizeof(double);
    /* Aligned shares need aligned arrays: then the three arrays split at
     * the same elements. */
    t->a = bl_untouched_alloc_aligned(t->bytes, o->share_align);
    t->b = bl_untouched_alloc_aligned(t->bytes, o->share_align);
    t->c = bl_untouched_alloc_aligned(t->bytes, o->share_align);
    ctx->state = t;
    if (!t->a || !t->b || !t->c)
        return bl_err_set(err, "--size: cannot map 3 x %zu bytes", t->bytes);
    return 0;
}

static void touch_range(triad *t, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        t->a[i] = 0.0;
        t->b[i] = b_value(i);
        t->c[i] = c_value(i);
    }
}

/* The calling thread's share: schedule(static), or with --align-shares
 * every share starting on a huge page (the arrays are aligned alike). */
static void my_share(const bl_kernel_ctx *ctx, const triad *t, size_t *lo,
                     size_t *hi)
{
    bl_shares s = {(uintptr_t)t->a, t->n, sizeof(double),
                   omp_get_num_threads(), ctx->opts->share_align};
    bl_share_range(&s, omp_get_thread_num(), lo, hi);
}

static void triad_first_touch(bl_kernel_ctx *ctx)
{
    triad *t = ctx->state;
    if (ctx->opts->serial_init) {
        /* The classic mistake, on purpose: every page lands on the NUMA
         * node of the master thread. */
        touch_range(t, 0, t->n);
        return;
    }
    /* The compute loop's shares, so each page lands on the NUMA node of
     * the thread that will use it. */
#pragma omp parallel
    {
        size_t lo, hi;
        my_share(ctx, t, &lo, &hi);
        touch_range(t, lo, hi);
    }
}

void bl_triad_loop(double *restrict a, const double *restrict b,
                   const double *restrict c, size_t n, double s)
{
    static void (*const loop[BL_ISA_COUNT])(double *restrict,
                                            const double *restrict,
                                            const double *restrict, size_t,
                                            double) =
        BL_ISA_VARIANTS(bl_triad_loop);
    loop[bl_isa_current()](a, b, c, n, s);
}

static int triad_step(bl_kernel_ctx *ctx, bl_err *err)
{
    triad *t = ctx->state;
    double *restrict a = t->a;
    const double *restrict b = t->b;
    const double *restrict c = t->c;
    (void)err;
    /* the first touch's shares (my_share), each run by the level's loop */
#pragma omp parallel
    {
        size_t lo, hi;
        my_share(ctx, t, &lo, &hi);
        bl_triad_loop(a + lo, b + lo, c + lo, hi - lo, TRIAD_SCALAR);
    }
    return 0;
}

static int triad_verify(bl_kernel_ctx *ctx, bl_verify *v)
{
    triad *t = ctx->state;
    size_t bad = 0, first_bad = 0;
    double max_err = 0.0, sum = 0.0;
    for (size_t i = 0; i < t->n; i++) {
        double want = b_value(i) + TRIAD_SCALAR * c_value(i);
        double e = fabs(t->a[i] - want);
        if (e != 0.0) {
            if (bad == 0)
                first_bad = i;
            bad++;
            if (e > max_err || isnan(e))
                max_err = e;
        }
        sum += t->a[i];
    }
    v->verified = bad == 0;
    v->error = max_err;
    v->checksum = sum / (double)t->n;
    if (bad)
        snprintf(v->detail, sizeof v->detail,
                 "rank %d: %zu of %zu elements wrong, first a[%zu] = %.17g, "
                 "expected %.17g",
                 ctx->rank, bad, t->n, first_bad, t->a[first_bad],
                 b_value(first_bad) + TRIAD_SCALAR * c_value(first_bad));
    else
        snprintf(v->detail, sizeof v->detail, "all %zu elements exact", t->n);
    return 0;
}

static void triad_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const triad *t = ctx->state;
    /* STREAM's count: read b and c, write a; write-allocate not counted. */
    w->bytes = 24.0 * (double)t->n;
    w->flops = 2.0 * (double)t->n;
    w->amount = w->bytes;
    w->scale = 1e9;
    w->rate_unit = "GB/s";
    w->model = "24 bytes per element per iteration (read b, c; write a; "
               "write-allocate not counted, as in STREAM)";
}

static size_t triad_regions(const bl_kernel_ctx *ctx, bl_region *out,
                            size_t max)
{
    const triad *t = ctx->state;
    const double *arrays[3] = {t->a, t->b, t->c};
    for (size_t k = 0; k < 3 && k < max; k++) {
        out[k].base = arrays[k];
        out[k].units = t->n;
        out[k].unit_bytes = sizeof(double);
        out[k].align = ctx->opts->share_align;
    }
    return 3;
}

static void triad_teardown(bl_kernel_ctx *ctx)
{
    triad *t = ctx->state;
    if (!t)
        return;
    bl_untouched_free(t->a, t->bytes);
    bl_untouched_free(t->b, t->bytes);
    bl_untouched_free(t->c, t->bytes);
    free(t);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_triad = {
    .name = "triad",
    .summary = "STREAM-like triad a = b + s*c (memory bandwidth, GB/s)",
    .setup = triad_setup,
    .first_touch = triad_first_touch,
    .step = triad_step,
    .verify = triad_verify,
    .work = triad_work,
    .regions = triad_regions,
    .teardown = triad_teardown,
};

/* For tests: corrupt one element so that verification must fail. */
void bl_triad_corrupt(bl_kernel_ctx *ctx, size_t index, double value)
{
    triad *t = ctx->state;
    if (t && index < t->n)
        t->a[index] = value;
}
