/* A table shared by all threads of a rank, read at random (a dictionary or
 * lookup-table workload): the case where first touch by one thread puts the
 * whole table on one NUMA node, and interleaving it (--mem-policy
 * interleave) spreads the load over every node's memory controller.
 *
 * Each 64-bit entry holds an immutable key in its low half and a counter in
 * its high half. Lookup j of iteration it goes to a pseudo-random entry
 * (a counter-based generator of (seed, it, j), so the sequence is the same
 * whatever the number of threads); --writes PCT of them increment the
 * counter atomically, the others read the key. Verification replays the
 * sequence serially: the sum of the keys read, computed from the keys'
 * formula rather than the table, must match, and every counter must equal
 * the number of writes the replay sends to its entry. */
#include "kernel.h"

#include <inttypes.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SHARED_DEFAULT_SIZE ((size_t)64 << 20)
#define SHARED_COUNTER_ONE ((uint64_t)1 << 32)

typedef struct shared {
    uint64_t *table;
    size_t n;              /* entries; also lookups per iteration */
    size_t bytes;
    int write_pct;
    uint64_t seed;
    int iters_done;        /* steps run, warm-up included */
    uint64_t read_sum;     /* keys read, all steps (mod 2^64) */
    uint64_t reads, writes;
} shared;

/* SplitMix64's finaliser: a good 64-bit mix of a counter. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The immutable key of entry i. */
static inline uint32_t key_of(size_t i)
{
    return (uint32_t)mix64((uint64_t)i + 0x9e3779b97f4a7c15ULL);
}

/* Lookup j of step it: which entry, and whether it writes. */
static inline size_t lookup(const shared *s, int it, size_t j, int *write)
{
    uint64_t r = mix64(s->seed ^ ((uint64_t)it << 40) ^ (uint64_t)j);
    *write = (int)((r >> 40) % 100) < s->write_pct;
    return (size_t)(r % s->n);
}

static int shared_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    const bl_kernel_opts *o = ctx->opts;
    size_t total = o->size_bytes ? o->size_bytes : SHARED_DEFAULT_SIZE;
    shared *s;
    if (total / sizeof(uint64_t) < (size_t)ctx->nthreads)
        return bl_err_set(err, "--size: %zu bytes give %zu entries, fewer "
                          "than the %d threads (8 bytes per entry)",
                          total, total / sizeof(uint64_t), ctx->nthreads);
    if (bl_kernel_fits_memory(ctx, total, "--size", err) < 0)
        return -1;
    if (!(s = calloc(1, sizeof *s)))
        return bl_err_set(err, "out of memory");
    s->n = total / sizeof(uint64_t);
    s->bytes = s->n * sizeof(uint64_t);
    s->write_pct = o->write_percent;
    s->seed = o->seed ? o->seed : 12345;
    s->table = bl_untouched_alloc(s->bytes);
    ctx->state = s;
    if (!s->table)
        return bl_err_set(err, "--size: cannot map %zu bytes", s->bytes);
    return 0;
}

static void shared_first_touch(bl_kernel_ctx *ctx)
{
    shared *s = ctx->state;
    if (ctx->opts->serial_init) {
        /* One thread builds the table: all of it on its NUMA node. */
        for (size_t i = 0; i < s->n; i++)
            s->table[i] = key_of(i);
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < s->n; i++)
        s->table[i] = key_of(i);
}

static int shared_step(bl_kernel_ctx *ctx, bl_err *err)
{
    shared *s = ctx->state;
    uint64_t *table = s->table;
    const size_t n = s->n;
    const int it = s->iters_done;
    uint64_t sum = 0, reads = 0, writes = 0;
    (void)err;
#pragma omp parallel for schedule(static) reduction(+ : sum, reads, writes)
    for (size_t j = 0; j < n; j++) {
        int w;
        size_t i = lookup(s, it, j, &w);
        if (w) {
            __atomic_fetch_add(&table[i], SHARED_COUNTER_ONE, __ATOMIC_RELAXED);
            writes++;
        } else {
            /* A relaxed atomic load: a plain mov, and no data race with
             * another thread's increment of the same entry. */
            sum += (uint32_t)__atomic_load_n(&table[i], __ATOMIC_RELAXED);
            reads++;
        }
    }
    s->read_sum += sum;
    s->reads += reads;
    s->writes += writes;
    s->iters_done++;
    return 0;
}

/* The serial replay: keys read from their formula, writes per entry. */
static int replay(const shared *s, uint64_t *read_sum, uint32_t *counts)
{
    uint64_t sum = 0;
    for (int it = 0; it < s->iters_done; it++)
        for (size_t j = 0; j < s->n; j++) {
            int w;
            size_t i = lookup(s, it, j, &w);
            if (!w)
                sum += key_of(i);
            else if (counts)
                counts[i]++;
        }
    *read_sum = sum;
    return 0;
}

static int shared_verify(bl_kernel_ctx *ctx, bl_verify *v)
{
    shared *s = ctx->state;
    uint32_t *counts = NULL;
    uint64_t want_sum;
    size_t bad = 0, first_bad = 0;
    if (s->write_pct > 0 && !(counts = calloc(s->n, sizeof *counts))) {
        v->verified = 0;
        snprintf(v->detail, sizeof v->detail,
                 "rank %d: no memory for the replay's %zu counters",
                 ctx->rank, s->n);
        return 0;
    }
    replay(s, &want_sum, counts);
    for (size_t i = 0; i < s->n; i++) {
        uint64_t e = s->table[i];
        if ((uint32_t)e != key_of(i) ||
            (uint32_t)(e >> 32) != (counts ? counts[i] : 0)) {
            if (bad++ == 0)
                first_bad = i;
        }
    }
    v->verified = bad == 0 && want_sum == s->read_sum;
    v->error = (double)bad;
    /* The mean key read: the same for any number of threads or ranks. */
    v->checksum = s->reads ? (double)s->read_sum / (double)s->reads : 0.0;
    if (want_sum != s->read_sum)
        snprintf(v->detail, sizeof v->detail,
                 "rank %d: keys read sum to %" PRIu64 ", the replay says %"
                 PRIu64, ctx->rank, s->read_sum, want_sum);
    else if (bad)
        snprintf(v->detail, sizeof v->detail,
                 "rank %d: %zu of %zu entries wrong, first [%zu] = 0x%016"
                 PRIx64 ", expected key 0x%08" PRIx32 " count %" PRIu32,
                 ctx->rank, bad, s->n, first_bad, s->table[first_bad],
                 key_of(first_bad), counts ? counts[first_bad] : 0);
    else
        snprintf(v->detail, sizeof v->detail,
                 "%" PRIu64 " reads and %" PRIu64 " writes match the serial "
                 "replay", s->reads, s->writes);
    free(counts);
    return 0;
}

static void shared_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const shared *s = ctx->state;
    w->amount = (double)s->n;
    w->scale = 1e6;
    w->rate_unit = "Mlookup/s";
    w->bytes = 64.0 * (double)s->n;
    w->flops = 0.0;
    w->model = "one lookup per table entry per iteration, at random; each "
               "moves one 64-byte cache line (reads load a key, writes "
               "increment a counter atomically)";
}

static size_t shared_regions(const bl_kernel_ctx *ctx, bl_region *out,
                             size_t max)
{
    const shared *s = ctx->state;
    if (max > 0) {
        out[0].base = s->table;
        out[0].units = s->n;
        out[0].unit_bytes = sizeof(uint64_t);
    }
    return 1;
}

static void shared_teardown(bl_kernel_ctx *ctx)
{
    shared *s = ctx->state;
    if (!s)
        return;
    bl_untouched_free(s->table, s->bytes);
    free(s);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_shared = {
    .name = "shared",
    .summary = "random lookups in one table shared by a rank's threads "
               "(Mlookup/s)",
    .setup = shared_setup,
    .first_touch = shared_first_touch,
    .step = shared_step,
    .verify = shared_verify,
    .work = shared_work,
    .regions = shared_regions,
    .teardown = shared_teardown,
};

/* For tests: the sum of all counters (every write adds one), and a way to
 * corrupt one entry. */
uint64_t bl_shared_counter_sum(const bl_kernel_ctx *ctx)
{
    const shared *s = ctx->state;
    uint64_t sum = 0;
    for (size_t i = 0; s && i < s->n; i++)
        sum += s->table[i] >> 32;
    return sum;
}

void bl_shared_corrupt(bl_kernel_ctx *ctx, size_t index)
{
    shared *s = ctx->state;
    if (s && index < s->n)
        s->table[index] ^= 1;
}
