/* Memory latency: a dependent-load pointer chase over a random cyclic
 * permutation of cache lines (the lat_mem_rd / Intel MLC idle-latency
 * method). Each 64-byte line holds the address of the next one; the order
 * is one random cycle (Sattolo's shuffle), so every load depends on the
 * one before, the hardware prefetchers cannot guess the next line, and a
 * lap visits every line once.
 *
 * Each thread chases its own cycle over its static share of the buffer,
 * which it first-touches itself (--mem-policy decides where those pages
 * go). A step chases whole laps, at least MIN_LOADS loads, and times them
 * itself; the result is ns per load, the median over the timed steps, with
 * min and max as the spread (metrics ns_per_load*). Verification walks
 * every cycle again with a visited bitmap, apart from the timed code: each
 * line once, back at the start after exactly one lap; and every timed lap
 * must have ended where it started.
 *
 * --huge-pages thp asks for transparent huge pages (madvise MADV_HUGEPAGE
 * on a 2 MiB-aligned mapping); hugetlb asks for MAP_HUGETLB pages from the
 * reserved pool and falls back to thp when the pool cannot give them. What
 * was asked and what the pages turned out to be (AnonHugePages /
 * the hugetlb mapping) is in the verification detail, with the reason for
 * any fallback.
 *
 * --access lines measures something else on the same buffer, to compare
 * with likwid-bench's clload: one load per line, in address order, four
 * lines per loop, no load waiting for another (the loads overlap and the
 * prefetchers stream the lines), so ns per line is the cost of a line in
 * a stream, not its latency. Each line holds its own index instead of a
 * pointer; each thread adds up the indexes of its share, and a sweep must
 * sum to the closed form lap x (lo + ... + hi-1). The metrics also give the
 * core clock measured on the master thread (kernels/core_clock.h) and ns
 * per load in cycles at that clock. */
#include "kernel.h"
#include "core_clock.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define HUGE_PAGE ((size_t)2 << 20)
#define MIN_LOADS ((size_t)1 << 20)  /* per step and thread */
#define MIN_LINES 16                  /* per thread */
#define LATENCY_HOOK_BREAK_CYCLE 1   /* --test-hook: split one cycle */

typedef struct line {
    union {
        struct line *next;   /* chase: the next line of the cycle */
        uint64_t index;      /* lines: this line's own index */
    } u;
    char pad[LINE - sizeof(uint64_t)];
} line;

typedef struct latency {
    line *buf;
    void *map;               /* what to munmap */
    size_t map_bytes;
    size_t n;                /* lines in all */
    int nthreads;
    size_t laps;             /* per step */
    int hugetlb;             /* 1: buf is MAP_HUGETLB */
    int access;              /* BL_ACCESS_* */
    char pages_note[200];    /* huge pages asked, got, why not */
    double *ns;              /* per step: the slowest thread's ns/load */
    int nsteps, cap;
    size_t bad_laps;         /* chase: timed laps that did not come back;
                              * lines: timed sweeps with a wrong sum */
    uint64_t seed;
} latency;

static inline uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A mapping of at least bytes, 2 MiB-aligned for THP. Returns the aligned
 * start; *map and *map_bytes are what to unmap. */
static void *map_aligned(size_t bytes, void **map, size_t *map_bytes)
{
    size_t len = bytes + HUGE_PAGE;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t a;
    if (p == MAP_FAILED)
        return NULL;
    a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    *map = p;
    *map_bytes = len;
    return (void *)a;
}

/* Maps the buffer as asked, falling back (hugetlb -> thp) with the reason
 * in s->pages_note. Nothing is touched. */
static int map_buffer(latency *s, size_t bytes, int mode)
{
    char why[120] = "";
    if (mode == BL_HUGE_HUGETLB) {
        size_t len = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p != MAP_FAILED) {
            s->buf = s->map = p;
            s->map_bytes = len;
            s->hugetlb = 1;
            snprintf(s->pages_note, sizeof s->pages_note,
                     "huge pages: hugetlb (MAP_HUGETLB, 2 MiB)");
            return 0;
        }
        snprintf(why, sizeof why, "MAP_HUGETLB failed (%s; reserve pages in "
                 "/proc/sys/vm/nr_hugepages), fell back to thp; ",
                 strerror(errno));
        mode = BL_HUGE_THP;
    }
    s->buf = map_aligned(bytes, &s->map, &s->map_bytes);
    if (!s->buf)
        return -1;
    if (mode == BL_HUGE_THP &&
        madvise(s->buf, bytes, MADV_HUGEPAGE) != 0)
        snprintf(why + strlen(why), sizeof why - strlen(why),
                 "madvise(MADV_HUGEPAGE) failed (%s); ", strerror(errno));
    snprintf(s->pages_note, sizeof s->pages_note, "huge pages: %s%s",
             why, mode == BL_HUGE_THP ? "thp (madvise MADV_HUGEPAGE)"
                                      : "off (4 KiB pages unless THP is "
                                        "'always')");
    return 0;
}

/* The default size: four times the last-level cache, at least 256 MiB, so
 * nearly every load misses every cache. */
static size_t default_size(const bl_kernel_ctx *ctx)
{
    size_t s = 4 * ctx->llc_bytes;
    return s < ((size_t)256 << 20) ? (size_t)256 << 20 : s;
}

static int latency_setup(bl_kernel_ctx *ctx, bl_err *err)
{
    const bl_kernel_opts *o = ctx->opts;
    size_t bytes = o->size_bytes ? o->size_bytes : default_size(ctx);
    size_t per_thread;
    latency *s;
    if (bytes / LINE / (size_t)ctx->nthreads < MIN_LINES)
        return bl_err_set(err, "--size: %zu bytes give fewer than %d cache "
                          "lines to each of the %d threads", bytes,
                          MIN_LINES, ctx->nthreads);
    if (bl_kernel_fits_memory(ctx, bytes, "--size", err) < 0)
        return -1;
    if (!(s = calloc(1, sizeof *s)))
        return bl_err_set(err, "out of memory");
    ctx->state = s;
    s->n = bytes / LINE;
    s->nthreads = ctx->nthreads;
    s->access = o->access;
    s->seed = o->seed ? o->seed : 4242;
    per_thread = s->n / (size_t)ctx->nthreads;
    s->laps = (MIN_LOADS + per_thread - 1) / per_thread;
    if (map_buffer(s, s->n * LINE, o->huge_pages) < 0)
        return bl_err_set(err, "--size: cannot map %zu bytes", s->n * LINE);
    return 0;
}

/* lines: each line holds its index, written by the thread that sweeps it
 * (first touch). */
static void number_lines(line *buf, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        buf[i].u.index = i;
}

/* Sattolo's shuffle of the lines [lo, hi): one cycle through all of them.
 * The next pointers themselves are the array being shuffled. */
static void build_cycle(line *buf, size_t lo, size_t hi, uint64_t seed)
{
    uint64_t st = seed;
    for (size_t i = lo; i < hi; i++)
        buf[i].u.next = &buf[i];
    for (size_t i = hi - 1; i > lo; i--) {
        size_t j = lo + (size_t)(next_random(&st) % (i - lo));
        line *t = buf[i].u.next;
        buf[i].u.next = buf[j].u.next;
        buf[j].u.next = t;
    }
}

static void latency_first_touch(bl_kernel_ctx *ctx)
{
    latency *s = ctx->state;
    const int serial = ctx->opts->serial_init;
    /* Each thread builds (and so first-touches) its own share, the one it
     * chases; --init serial builds them all from the master thread. */
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int u = 0; u < s->nthreads; u++) {
            size_t lo, hi;
            if (serial ? t != 0 : u != t)
                continue;
            bl_static_range(s->n, s->nthreads, u, &lo, &hi);
            if (s->access == BL_ACCESS_LINES)
                number_lines(s->buf, lo, hi);
            else
                build_cycle(s->buf, lo, hi, s->seed + (uint64_t)u);
        }
    }
    if (ctx->opts->test_hook == LATENCY_HOOK_BREAK_CYCLE && s->n > 2 &&
        s->access == BL_ACCESS_LINES) {
        s->buf[1].u.index = 0; /* one wrong index: every sweep's sum is off */
        return;
    }
    if (ctx->opts->test_hook == LATENCY_HOOK_BREAK_CYCLE && s->n > 2) {
        /* Two cycles instead of one: line 0 skips its successor, which
         * then points at itself. */
        line *a = s->buf[0].u.next;
        s->buf[0].u.next = a->u.next;
        a->u.next = a;
    }
}

/* The chase: each load's address is the previous load's value. */
static line *chase(line *p, size_t loads)
{
    for (size_t i = 0; i < loads; i++)
        p = p->u.next;
    return p;
}

/* lines: laps sweeps over [p, p + n) in address order, four lines per
 * loop into four sums. The additions fold into the loads (add reg, [mem])
 * and no load waits for another; the empty asm keeps the compiler from
 * vectorising the sweep or merging the sums, so it stays one scalar load
 * per line, as in likwid-bench's clload. Returns the total. */
static uint64_t sweep(const line *p, size_t n, size_t laps)
{
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const line *end4 = p + (n & ~(size_t)3), *end = p + n;
    for (size_t l = 0; l < laps; l++) {
        const line *q = p;
        /* one pointer and one compare per loop: 4 loads + 2 in all */
        for (; q < end4; q += 4) {
            a0 += q[0].u.index;
            a1 += q[1].u.index;
            a2 += q[2].u.index;
            a3 += q[3].u.index;
            __asm__ volatile("" : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3));
        }
        for (; q < end; q++)
            a0 += q->u.index;
    }
    return a0 + a1 + a2 + a3;
}

/* What laps sweeps over lines [lo, hi) sum to when every line holds its
 * index: laps x (lo + ... + hi-1), in the same modulo-2^64 arithmetic. */
static uint64_t sweep_sum(size_t lo, size_t hi, size_t laps)
{
    uint64_t n = hi - lo, a = lo + hi - 1; /* sum = n * a / 2 */
    uint64_t half = n % 2 == 0 ? (n / 2) * a : n * (a / 2);
    return (uint64_t)laps * half;
}

static int latency_step(bl_kernel_ctx *ctx, bl_err *err)
{
    latency *s = ctx->state;
    double worst = 0.0;
    size_t bad = 0;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *v = realloc(s->ns, sizeof *v * (size_t)cap);
        if (!v)
            return bl_err_set(err, "latency: out of memory");
        s->ns = v;
        s->cap = cap;
    }
#pragma omp parallel reduction(max : worst) reduction(+ : bad)
    {
        size_t lo, hi;
        line *start, *end;
        double t0;
        bl_static_range(s->n, s->nthreads, omp_get_thread_num(), &lo, &hi);
        start = &s->buf[lo];
        if (s->access == BL_ACCESS_LINES) {
            uint64_t sum;
            t0 = now_ns();
            sum = sweep(start, hi - lo, s->laps);
            worst = (now_ns() - t0) / (double)(s->laps * (hi - lo));
            /* the comparison also keeps the sweep alive */
            bad += sum != sweep_sum(lo, hi, s->laps);
        } else {
            t0 = now_ns();
            end = chase(start, s->laps * (hi - lo));
            worst = (now_ns() - t0) / (double)(s->laps * (hi - lo));
            /* A lap of hi - lo loads over one cycle of hi - lo lines comes
             * back to its start; the comparison also keeps the chase
             * alive. */
            bad += end != start;
        }
    }
    s->ns[s->nsteps++] = worst;
    s->bad_laps += bad;
    return 0;
}

/* The independent check: follow each thread's cycle with a bitmap. Returns
 * the number of cycles that are not one lap over all their lines. */
static size_t check_cycles(const latency *s, char *detail, size_t len)
{
    size_t broken = 0;
    unsigned char *seen = calloc((s->n + 7) / 8, 1);
    if (!seen) {
        snprintf(detail, len, "no memory for the visited bitmap");
        return 1;
    }
    for (int t = 0; t < s->nthreads; t++) {
        size_t lo, hi, steps = 0, i = 0;
        const line *p;
        bl_static_range(s->n, s->nthreads, t, &lo, &hi);
        p = &s->buf[lo];
        do {
            i = (size_t)(p - s->buf);
            if (i < lo || i >= hi || (seen[i / 8] & (1u << (i % 8))))
                break;
            seen[i / 8] |= (unsigned char)(1u << (i % 8));
            p = p->u.next;
            steps++;
        } while (p != &s->buf[lo]);
        if (p != &s->buf[lo] || steps != hi - lo) {
            if (broken++ == 0)
                snprintf(detail, len, "thread %d: the cycle from line %zu "
                         "came back after %zu of its %zu lines (or left its "
                         "share at line %zu)", t, lo, steps, hi - lo, i);
        }
    }
    free(seen);
    return broken;
}

/* lines: the independent check, every line read again apart from the
 * timed sweeps. Returns the lines that do not hold their index. */
static size_t check_lines(const latency *s, char *detail, size_t len)
{
    size_t wrong = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->buf[i].u.index != i && wrong++ == 0)
            snprintf(detail, len, "line %zu holds %llu, not its index", i,
                     (unsigned long long)s->buf[i].u.index);
    return wrong;
}

/* Bytes of [p, p + len) in huge pages: for THP, AnonHugePages of the
 * mapping in /proc/self/smaps; for hugetlb, all of it. */
static size_t huge_bytes(const latency *s)
{
    char line_[256];
    unsigned long lo, hi;
    size_t kib = 0, total = 0;
    int inside = 0;
    FILE *f;
    if (s->hugetlb)
        return s->map_bytes;
    if (!(f = fopen("/proc/self/smaps", "r")))
        return 0;
    while (fgets(line_, sizeof line_, f)) {
        if (sscanf(line_, "%lx-%lx ", &lo, &hi) == 2 && strchr(line_, '-') <
            strchr(line_, ' '))
            inside = (uintptr_t)lo <= (uintptr_t)s->map &&
                     (uintptr_t)s->map < (uintptr_t)hi;
        else if (inside && sscanf(line_, "AnonHugePages: %zu kB", &kib) == 1)
            total += kib * 1024;
    }
    fclose(f);
    return total;
}

static int latency_verify(bl_kernel_ctx *ctx, bl_verify *v)
{
    latency *s = ctx->state;
    char why[200] = "";
    const int lines = s->access == BL_ACCESS_LINES;
    size_t broken = lines ? check_lines(s, why, sizeof why)
                          : check_cycles(s, why, sizeof why);
    size_t bytes = s->n * LINE, huge = huge_bytes(s);
    v->verified = broken == 0 && s->bad_laps == 0;
    v->error = (double)(broken + s->bad_laps);
    v->checksum = (double)s->n;
    if (broken)
        snprintf(v->detail, sizeof v->detail, "rank %d: %s", ctx->rank, why);
    else if (s->bad_laps)
        snprintf(v->detail, sizeof v->detail, lines ?
                 "rank %d: %zu timed sweeps did not sum to laps x the sum "
                 "of their lines' indexes" : "rank %d: %zu timed laps did "
                 "not end where they started", ctx->rank, s->bad_laps);
    else if (lines)
        snprintf(v->detail, sizeof v->detail,
                 "access lines: %d share(s) of %zu lines in all, each line "
                 "loaded once per sweep in address order, every sweep's sum "
                 "right; %.80s; %zu of %zu MiB in huge pages", s->nthreads,
                 s->n, s->pages_note, (huge < bytes ? huge : bytes) >> 20,
                 bytes >> 20);
    else
        snprintf(v->detail, sizeof v->detail,
                 "%d cycle(s) of %zu lines in all, each line visited once "
                 "per lap; %.120s; %zu of %zu MiB in huge pages", s->nthreads,
                 s->n, s->pages_note, (huge < bytes ? huge : bytes) >> 20,
                 bytes >> 20);
    return 0;
}

static void latency_work(const bl_kernel_ctx *ctx, bl_work *w)
{
    const latency *s = ctx->state;
    w->amount = (double)(s->laps * s->n);
    w->scale = 1e6;
    w->rate_unit = "Mload/s";
    w->bytes = (double)LINE * (double)(s->laps * s->n);
    w->flops = 0.0;
    w->model = s->access == BL_ACCESS_LINES
                   ? "independent loads, one per 64-byte line, in address "
                     "order (likwid-bench clload); ns per line in the metrics"
                   : "dependent loads, one 64-byte line each, over a random "
                     "cycle per thread; ns per load in the metrics";
}

static size_t latency_regions(const bl_kernel_ctx *ctx, bl_region *out,
                              size_t max)
{
    const latency *s = ctx->state;
    if (max > 0) {
        out[0].base = s->buf;
        out[0].units = s->n;
        out[0].unit_bytes = LINE;
    }
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void metric(bl_metric *m, const char *name, double value,
                   const char *unit)
{
    snprintf(m->name, sizeof m->name, "%s", name);
    m->value = value;
    snprintf(m->unit, sizeof m->unit, "%s", unit);
}

/* ns per load over the timed steps (the last `iters` of them); the master
 * thread's core clock, measured after them, turns the median into cycles
 * (in a one-thread run, the clock of the core that did the loads). */
static size_t latency_metrics(bl_kernel_ctx *ctx, bl_metric *out, size_t max)
{
    latency *s = ctx->state;
    int k = ctx->opts->iters < s->nsteps ? ctx->opts->iters : s->nsteps;
    double *v;
    size_t bytes = s->n * LINE, huge = huge_bytes(s);
    double ghz;
    if (max < 8 || k <= 0 || !(v = malloc(sizeof *v * (size_t)k)))
        return 0;
    memcpy(v, s->ns + (s->nsteps - k), sizeof *v * (size_t)k);
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    metric(&out[0], "ns_per_load",
           k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]), "ns");
    metric(&out[1], "ns_per_load_min", v[0], "ns");
    metric(&out[2], "ns_per_load_max", v[k - 1], "ns");
    metric(&out[3], "lines_per_thread",
           (double)(s->n / (size_t)s->nthreads), "lines");
    metric(&out[4], "laps_per_step", (double)s->laps, "laps");
    metric(&out[5], "huge_page_fraction",
           bytes ? (double)(huge < bytes ? huge : bytes) / (double)bytes : 0,
           "fraction");
    ghz = bl_core_clock_ghz(25);
    metric(&out[6], "core_clock_ghz", ghz, "GHz");
    metric(&out[7], "cycles_per_load", out[0].value * ghz, "cycles");
    free(v);
    return 8;
}

static void latency_teardown(bl_kernel_ctx *ctx)
{
    latency *s = ctx->state;
    if (!s)
        return;
    if (s->map)
        munmap(s->map, s->map_bytes);
    free(s->ns);
    free(s);
    ctx->state = NULL;
}

const bl_kernel bl_kernel_latency = {
    .name = "latency",
    .summary = "dependent-load pointer chase over a random cycle (ns per "
               "load)",
    .setup = latency_setup,
    .first_touch = latency_first_touch,
    .step = latency_step,
    .verify = latency_verify,
    .work = latency_work,
    .regions = latency_regions,
    .metrics = latency_metrics,
    .teardown = latency_teardown,
};
