/* Core-to-core latency: one cache line bounced between two threads pinned
 * to two PUs of the rank, by compare-and-swap ping-pong. The initiator
 * turns the line's counter from even to odd, the responder from odd to
 * even; a round trip moves the line there and back (two ownership
 * transfers). Every pair of the rank's PUs is measured in every step, in
 * batches of BATCH round trips, each batch timed as one sample; the cell
 * is the median of all samples (the timed steps'), with the 10th and 90th
 * percentiles as its spread. SMT siblings, PUs sharing an L3, and PUs on
 * other NUMA nodes or packages show as blocks of the matrix.
 *
 * The two threads are the kernel's own (pthreads created per pair with
 * their affinity set before they start), so the OpenMP threads and their
 * placement records are left alone. Above C2C_FULL_MAX PUs a subset is
 * measured: every k-th core with all of its PUs (siblings kept), stated in
 * the matrix's note. One rank only: ranks measuring at the same time would
 * disturb one another's lines. */
#include "h5/h5schema.h"
#include "kernel.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 64                     /* round trips per timed sample */
#define C2C_DEFAULT_ROUND_TRIPS 2048 /* per pair and step */
#define C2C_WARM_MAX 256             /* untimed round trips per pair */
#define C2C_FULL_MAX 64              /* PUs measured in full */
#define SPINS_BEFORE_YIELD (1u << 14)

typedef struct pair_samples {
    double *v;
    size_t n, cap;
} pair_samples;

typedef struct c2c {
    int n;                       /* PUs measured */
    int *cpu;                    /* [n] indexes into ctx->cpus */
    int sampled;
    long round_trips;            /* per pair and step */
    int nsteps;
    pair_samples *pairs;         /* [n * n], i < j used */
    long long naps;              /* waits that slept, all pairs */
    long long failures;          /* thread starts that failed */
} c2c;

typedef struct ping {
    _Alignas(64) uint64_t flag;  /* the bounced line */
    _Alignas(64) int ready;      /* on its own line */
    int abort;                   /* the initiator could not start */
    long naps;                   /* waits that slept (see wait_turn) */
    long round_trips;
    long warm;                   /* untimed round trips first */
    double *samples;             /* [round_trips / BATCH] ns per trip */
} ping;

/* Turns the line's counter from `from` to `to` once the other thread has
 * left it at `from`. -1 when the pair was called off. */
static inline int wait_turn(ping *p, uint64_t from, uint64_t to)
{
    uint64_t expect = from;
    unsigned spins = 0;
    while (!__atomic_compare_exchange_n(&p->flag, &expect, to, 0,
                                        __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
        expect = from;
        /* Only an oversubscribed machine (or an emulator running every
         * CPU on one host thread) spins this long with the other thread
         * descheduled: sleep briefly so that its CPU gets to run. The naps
         * are counted and reported; a sample with one in it is slow. */
        if (++spins == SPINS_BEFORE_YIELD) {
            struct timespec nap = {0, 10000};
            spins = 0;
            if (__atomic_load_n(&p->abort, __ATOMIC_ACQUIRE))
                return -1;
            __atomic_fetch_add(&p->naps, 1, __ATOMIC_RELAXED);
            nanosleep(&nap, NULL);
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return 0;
}

static void meet(ping *p)
{
    __atomic_fetch_add(&p->ready, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE) < 2)
        ;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *responder(void *arg)
{
    ping *p = arg;
    long total = p->warm + p->round_trips;
    meet(p);
    for (long k = 0; k < total; k++)
        if (wait_turn(p, 2 * (uint64_t)k + 1, 2 * (uint64_t)k + 2) < 0)
            break;
    return NULL;
}

static void *initiator(void *arg)
{
    ping *p = arg;
    long k = 0;
    meet(p);
    for (; k < p->warm; k++)
        wait_turn(p, 2 * (uint64_t)k, 2 * (uint64_t)k + 1);
    for (long b = 0; b < p->round_trips / BATCH; b++) {
        double t0 = now_ns();
        for (int r = 0; r < BATCH; r++, k++)
            wait_turn(p, 2 * (uint64_t)k, 2 * (uint64_t)k + 1);
        /* the last trip of the batch is complete once the responder has
         * handed the line back */
        while (__atomic_load_n(&p->flag, __ATOMIC_ACQUIRE) !=
               2 * (uint64_t)k)
            ;
        p->samples[b] = (now_ns() - t0) / BATCH;
    }
    return NULL;
}

static int start_pinned(pthread_t *t, int cpu, void *(*fn)(void *), void *a)
{
    pthread_attr_t attr;
    cpu_set_t set;
    int rc;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    rc = pthread_create(t, &attr, fn, a);
    pthread_attr_destroy(&attr);
    return rc;
}

/* Which of the rank's PUs to measure: all, or above C2C_FULL_MAX every
 * k-th core with all its PUs. */
static int choose_cpus(const bl_kernel_ctx *ctx, c2c *s)
{
    int ncores = 0, last_core = -2, k, core_no = -1;
    for (int i = 0; i < ctx->ncpus; i++)
        if (ctx->cpus[i].core != last_core || ctx->cpus[i].core < 0) {
            ncores++;
            last_core = ctx->cpus[i].core;
        }
    k = ctx->ncpus > C2C_FULL_MAX
            ? (ctx->ncpus + C2C_FULL_MAX - 1) / C2C_FULL_MAX
            : 1;
    if (!(s->cpu = calloc((size_t)ctx->ncpus, sizeof *s->cpu)))
        return -1;
    last_core = -2;
    for (int i = 0; i < ctx->ncpus; i++) {
        if (ctx->cpus[i].core != last_core || ctx->cpus[i].core < 0) {
            core_no++;
            last_core = ctx->cpus[i].core;
        }
        if (core_no % k == 0)
            s->cpu[s->n++] = i;
    }
    s->sampled = k > 1;
    (void)ncores;
    return 0;
}

static int c2c_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    c2c *s;
    long rt = ctx->opts->round_trips ? ctx->opts->round_trips
                                     : C2C_DEFAULT_ROUND_TRIPS;
    if (ctx->nranks != 1)
        return bl_err_set(err, "--kernel c2c: runs with one rank (%d asked): "
                          "ranks measuring at once would disturb each "
                          "other's lines; bind that rank to the PUs to "
                          "measure", ctx->nranks);
    if (ctx->ncpus < 2)
        return bl_err_set(err, "--kernel c2c: the rank is bound to %d PU; "
                          "it needs at least 2 (bind it wider, e.g. "
                          "--bind-to none)", ctx->ncpus);
    if (rt < BATCH)
        return bl_err_set(err, "--round-trips: %ld is fewer than one batch "
                          "of %d", rt, BATCH);
    if (!(s = calloc(1, sizeof *s)))
        return bl_err_set(err, "out of memory");
    ctx->state = s;
    s->round_trips = rt / BATCH * BATCH;
    if (choose_cpus(ctx, s) < 0 ||
        !(s->pairs = calloc((size_t)s->n * (size_t)s->n, sizeof *s->pairs)))
        return bl_err_set(err, "out of memory");
    return 0;
}

static void c2c_first_touch(bl_kernel_ctx *ctx)
{
    (void)ctx;
}

/* One pair: both threads started, pinned, joined; samples appended. */
static int measure_pair(c2c *s, const bl_kernel_ctx *ctx, int i, int j)
{
    pair_samples *ps = &s->pairs[(size_t)i * (size_t)s->n + (size_t)j];
    size_t nb = (size_t)(s->round_trips / BATCH);
    ping *p = aligned_alloc(64, sizeof *p);
    pthread_t a, b;
    if (!p)
        return -1;
    memset(p, 0, sizeof *p);
    p->round_trips = s->round_trips;
    /* an eighth of the timed trips, at most C2C_WARM_MAX: enough for both
     * threads to be running and the line to be in play */
    p->warm = s->round_trips / 8 < C2C_WARM_MAX ? s->round_trips / 8
                                                : C2C_WARM_MAX;
    if (ps->n + nb > ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap + nb : 4 * nb;
        double *v = realloc(ps->v, cap * sizeof *v);
        if (!v) {
            free(p);
            return -1;
        }
        ps->v = v;
        ps->cap = cap;
    }
    p->samples = ps->v + ps->n;
    if (start_pinned(&b, ctx->cpus[s->cpu[j]].os, responder, p) != 0) {
        free(p);
        return -1;
    }
    if (start_pinned(&a, ctx->cpus[s->cpu[i]].os, initiator, p) != 0) {
        /* let the responder through its meeting and call the pair off */
        __atomic_store_n(&p->abort, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&p->ready, 2, __ATOMIC_RELEASE);
        pthread_join(b, NULL);
        free(p);
        return -1;
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    ps->n += nb;
    s->naps += p->naps;
    free(p);
    return 0;
}

static int c2c_step(bl_kernel_ctx *ctx, bl_err *err)
{
    c2c *s = ctx->state;
    for (int i = 0; i < s->n; i++)
        for (int j = i + 1; j < s->n; j++)
            if (measure_pair(s, ctx, i, j) < 0) {
                s->failures++;
                return bl_err_set(err, "c2c: cannot start two threads on "
                                  "PUs %d and %d (affinity refused or out of "
                                  "memory)", ctx->cpus[s->cpu[i]].os,
                                  ctx->cpus[s->cpu[j]].os);
            }
    s->nsteps++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) (nearest rank). */
static double quantile(const double *v, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return v[k > 0 ? k - 1 : 0];
}

static int c2c_verify(bl_kernel_ctx *ctx, bl_verify *v)
{
    c2c *s = ctx->state;
    size_t want = (size_t)s->nsteps * (size_t)(s->round_trips / BATCH);
    size_t short_pairs = 0, bad = 0;
    for (int i = 0; i < s->n; i++)
        for (int j = i + 1; j < s->n; j++) {
            const pair_samples *ps =
                &s->pairs[(size_t)i * (size_t)s->n + (size_t)j];
            short_pairs += ps->n != want;
            for (size_t k = 0; k < ps->n; k++)
                bad += !(ps->v[k] > 0.0) || !isfinite(ps->v[k]);
        }
    /* Each round trip waited for the other thread's odd/even value, so a
     * finished pair has moved the line 2 x round trips times; what can go
     * wrong is a pair that did not run or a clock that did not move. */
    v->verified = short_pairs == 0 && bad == 0;
    v->error = (double)(short_pairs + bad);
    v->checksum = (double)s->n;
    if (v->verified)
        snprintf(v->detail, sizeof v->detail, "%d PUs, %d pairs, %zu samples "
                 "of %d round trips each per pair%s", s->n,
                 s->n * (s->n - 1) / 2, want, BATCH,
                 s->sampled ? " (a sampled subset)" : "");
    else
        snprintf(v->detail, sizeof v->detail, "%d PUs: %zu pairs without "
                 "their %zu samples, %zu samples not a positive time", s->n,
                 short_pairs, want, bad);
    if (v->verified && s->naps)
        snprintf(v->detail + strlen(v->detail),
                 sizeof v->detail - strlen(v->detail),
                 "; %lld waits slept (the partner thread was not running: "
                 "an oversubscribed machine)", s->naps);
    return 0;
}

static void c2c_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const c2c *s = ctx->state;
    double pairs = (double)s->n * (double)(s->n - 1) / 2.0;
    w->amount = pairs * (double)s->round_trips;
    w->scale = 1e6;
    w->rate_unit = "Mtrip/s";
    w->bytes = 0.0;
    w->flops = 0.0;
    w->model = "compare-and-swap round trips of one cache line between two "
               "pinned threads, every pair of PUs in turn; the matrix is in "
               "/run/matrices/c2c";
}

static size_t c2c_regions(const bl_kernel_ctx *ctx, bl_region *out,
                          size_t max)
{
    (void)ctx;
    (void)out;
    (void)max;
    return 0;
}

static void fill_index(const bl_kernel_cpu *c, bl_h5_matrix_index *o)
{
    char label[32];
    o->os_index = c->os;
    o->logical = c->pu;
    o->cpu = c->os;
    o->core = c->core;
    o->l3 = c->l3;
    o->numa = c->numa;
    o->package = c->package;
    snprintf(label, sizeof label, "PU %d", c->os);
    o->label = strdup(label);
}

static int c2c_matrix(bl_kernel_ctx *ctx, bl_h5_matrix *m)
{
    c2c *s = ctx->state;
    char note[320];
    /* the warm-up steps' samples come first in each pair's list */
    int warm = s->nsteps - ctx->opts->iters;
    size_t skip = warm > 0 ? (size_t)warm * (size_t)(s->round_trips / BATCH)
                           : 0;
    if (bl_h5_matrix_alloc(m, s->n, 0) < 0)
        return -1;
    for (int i = 0; i < s->n; i++)
        fill_index(&ctx->cpus[s->cpu[i]], &m->order[i]);
    for (int i = 0; i < s->n; i++)
        for (int j = i + 1; j < s->n; j++) {
            pair_samples *ps = &s->pairs[(size_t)i * (size_t)s->n + (size_t)j];
            size_t a = (size_t)i * (size_t)s->n + (size_t)j;
            size_t b = (size_t)j * (size_t)s->n + (size_t)i;
            const double *v = ps->v + skip;
            size_t n = ps->n > skip ? ps->n - skip : 0;
            if (n == 0)
                continue;
            qsort(ps->v + skip, n, sizeof *v, cmp_double);
            m->values[a] = m->values[b] =
                n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
            m->spread_lo[a] = m->spread_lo[b] = quantile(v, n, 0.1);
            m->spread_hi[a] = m->spread_hi[b] = quantile(v, n, 0.9);
            m->samples[a] = m->samples[b] = (double)n;
        }
    if (s->sampled)
        snprintf(note, sizeof note, "sampled: every %d-th core of the rank's "
                 "%d PUs, with all its PUs",
                 (ctx->ncpus + C2C_FULL_MAX - 1) / C2C_FULL_MAX, ctx->ncpus);
    else
        snprintf(note, sizeof note, "every pair of the rank's %d PUs",
                 ctx->ncpus);
    if (s->naps)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "; %lld waits slept for want of a running partner "
                 "(oversubscribed): those samples are slow", s->naps);
    m->kind = strdup("c2c");
    m->unit = strdup("ns");
    m->axis = strdup("pu");
    m->rows = strdup("initiating PU");
    m->cols = strdup("responding PU");
    m->method = strdup("compare-and-swap ping-pong of one 64-byte line "
                       "between two pinned threads; a sample is the mean "
                       "round trip of a batch of 64; the value is the "
                       "median sample; diagonal not measured");
    m->spread = strdup("10th and 90th percentiles of the samples");
    m->note = strdup(note);
    m->sampled = s->sampled;
    m->threads = 2;
    return m->kind && m->unit && m->axis && m->rows && m->cols &&
                   m->method && m->spread && m->note
               ? 0
               : -1;
}

static void c2c_teardown(bl_kernel_ctx *ctx)
{
    c2c *s = ctx->state;
    if (!s)
        return;
    for (int i = 0; s->pairs && i < s->n * s->n; i++)
        free(s->pairs[i].v);
    free(s->pairs);
    free(s->cpu);
    free(s);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_c2c = {
    .name = "c2c",
    .summary = "core-to-core latency: one cache line bounced between every "
               "pair of the rank's PUs (ns per round trip)",
    .setup = c2c_setup,
    .first_touch = c2c_first_touch,
    .step = c2c_step,
    .verify = c2c_verify,
    .work = c2c_work,
    .regions = c2c_regions,
    .matrix = c2c_matrix,
    .teardown = c2c_teardown,
};
