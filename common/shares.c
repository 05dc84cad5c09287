/* Shares, the best reachable local fraction under huge pages, and the
 * first-touch flags (shares.h). */
#include "shares.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unit k of the static split's boundaries: thread k starts there. */
static size_t static_bound(size_t units, size_t nthreads, size_t k)
{
    size_t q = units / nthreads, r = units % nthreads;
    return q * k + (k < r ? k : r);
}

static size_t bound(const bl_shares *s, size_t nthreads, size_t k)
{
    size_t u = static_bound(s->units, nthreads, k);
    uintptr_t addr, end, rounded;
    if (s->align == 0 || s->unit_bytes == 0 || k == 0 || k >= nthreads)
        return u;
    addr = s->base + u * s->unit_bytes;
    end = s->base + s->units * s->unit_bytes;
    rounded = (addr + s->align / 2) / s->align * s->align;
    if (rounded < s->base)
        rounded = s->base;
    if (rounded > end)
        rounded = end;
    /* the first unit at or after it: a unit that does not divide align
     * (a stencil row) then leaves the thread before less than a unit in
     * the next huge page, where the unit before would hand the thread
     * after its whole last one */
    return (rounded - s->base + s->unit_bytes - 1) / s->unit_bytes;
}

void bl_share_range(const bl_shares *s, int tid, size_t *lo, size_t *hi)
{
    size_t t = (size_t)(s->nthreads > 0 ? s->nthreads : 1);
    size_t i = tid < 0 ? 0 : (size_t)tid;
    if (i >= t) {
        *lo = *hi = s->units;
        return;
    }
    *lo = bound(s, t, i);
    *hi = i + 1 >= t ? s->units : bound(s, t, i + 1);
}

static uintptr_t round_up(uintptr_t a, uintptr_t to)
{
    return (a + to - 1) / to * to;
}

/* First page of thread t as the app counts pages: the page holding the
 * share's first byte belongs to the thread before (thread 0 starts at
 * the array's first page). */
static uintptr_t first_page(const bl_shares *s, int t, uintptr_t page)
{
    size_t lo, hi;
    if (t == 0)
        return s->base / page * page;
    if (t >= s->nthreads)
        return round_up(s->base + s->units * s->unit_bytes, page);
    bl_share_range(s, t, &lo, &hi);
    return round_up(s->base + lo * s->unit_bytes, page);
}

static uintptr_t overlap(uintptr_t a0, uintptr_t a1, uintptr_t b0,
                         uintptr_t b1)
{
    uintptr_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Pages of thread t's share as the app counts them: [first_page(t),
 * first_page(t + 1)). */
static uintptr_t part_in(const bl_shares *s, int t, uintptr_t page,
                         uintptr_t w, uintptr_t huge, int *starts)
{
    uintptr_t lo = first_page(s, t, page), hi = first_page(s, t + 1, page);
    size_t ulo, uhi;
    uintptr_t first_byte;
    bl_share_range(s, t, &ulo, &uhi);
    first_byte = s->base + ulo * s->unit_bytes;
    /* A thread whose share starts in the window touches it first (the one
     * before reaches it at the end of its share). Its first byte decides,
     * not its first counted page: a share starting in the window's last
     * base page takes the whole huge page though the app counts none of
     * it as the thread's. */
    if (uhi > ulo && first_byte >= w && first_byte < w + huge)
        *starts = 1;
    return hi > lo ? overlap(lo, hi, w, w + huge) : 0;
}

/* Scratch of one window: per thread its pages there and whether its share
 * starts inside. */
typedef struct window_parts {
    uintptr_t *part;
    int *starts;
    int nthreads;
} window_parts;

/* Window [w, w + huge), when the arrays fill it (only then can it be one
 * huge page: arrays mapped side by side share a mapping, and a window may
 * hold the end of one and the start of the next). */
static void one_window(const bl_shares *s, size_t n, uintptr_t w,
                       uintptr_t page, uintptr_t huge, window_parts *wp,
                       long long *windowed, bl_straddle *out)
{
    uintptr_t covered = 0, most = 0, largest = 0;
    int owners = 0, starter = 0;
    memset(wp->part, 0, sizeof *wp->part * (size_t)wp->nthreads);
    memset(wp->starts, 0, sizeof *wp->starts * (size_t)wp->nthreads);
    for (size_t r = 0; r < n; r++) {
        uintptr_t p0 = first_page(&s[r], 0, page);
        uintptr_t pn = first_page(&s[r], s[r].nthreads, page);
        covered += overlap(p0, pn, w, w + huge);
        for (int t = 0; t < s[r].nthreads && p0 < w + huge && pn > w; t++)
            wp->part[t] += part_in(&s[r], t, page, w, huge, &wp->starts[t]);
    }
    if (covered < huge)
        return;
    *windowed += (long long)(huge / page);
    for (int t = 0; t < wp->nthreads; t++) {
        owners += wp->part[t] > 0 || wp->starts[t];
        if (wp->part[t] > largest)
            largest = wp->part[t];
        /* of two starting in it, the larger part at best (maybe none) */
        if (wp->starts[t]) {
            starter = 1;
            if (wp->part[t] > most)
                most = wp->part[t];
        }
    }
    if (owners < 2)
        return;
    out->lost += (long long)((huge - (starter ? most : largest)) / page);
    out->straddles++;
}

static int cmp_addr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* The huge-page windows any array touches, sorted, each once (*nw). */
static uintptr_t *windows_of(const bl_shares *s, size_t n, uintptr_t page,
                             uintptr_t huge, size_t *nw)
{
    size_t count = 0, k = 0;
    uintptr_t *w;
    for (size_t r = 0; r < n; r++)
        count += (first_page(&s[r], s[r].nthreads, page) - 1) / huge -
                 first_page(&s[r], 0, page) / huge + 1;
    if (!(w = malloc(sizeof *w * (count + 1))))
        return NULL;
    for (size_t r = 0; r < n; r++)
        for (uintptr_t a = first_page(&s[r], 0, page) / huge * huge;
             a < first_page(&s[r], s[r].nthreads, page); a += huge)
            w[k++] = a;
    qsort(w, k, sizeof *w, cmp_addr);
    *nw = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || w[i] != w[i - 1])
            w[(*nw)++] = w[i];
    return w;
}

void bl_straddle_compute(const bl_shares *s, size_t n, size_t page,
                         size_t huge, double huge_share, bl_straddle *out)
{
    long long windowed = 0;
    double scale = 1.0;
    size_t nw = 0;
    uintptr_t *w = NULL;
    window_parts wp = {NULL, NULL, 0};
    out->pages = out->lost = 0;
    out->straddles = 0;
    out->best = 1.0;
    out->aligned = n > 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].align == 0)
            out->aligned = 0;
    if (page == 0 || huge < page)
        return;
    for (size_t i = 0; i < n; i++) {
        if (s[i].nthreads <= 0 || s[i].units == 0)
            return; /* nothing to split */
        out->pages += (long long)((first_page(&s[i], s[i].nthreads, page) -
                                   first_page(&s[i], 0, page)) / page);
        if (s[i].nthreads > wp.nthreads)
            wp.nthreads = s[i].nthreads;
    }
    wp.part = calloc((size_t)wp.nthreads + 1, sizeof *wp.part);
    wp.starts = calloc((size_t)wp.nthreads + 1, sizeof *wp.starts);
    if (wp.part && wp.starts && (w = windows_of(s, n, page, huge, &nw)))
        for (size_t i = 0; i < nw; i++)
            one_window(s, n, w[i], page, huge, &wp, &windowed, out);
    free(w);
    free(wp.part);
    free(wp.starts);
    if (out->pages == 0)
        return;
    /* Only the huge-page-backed part of the windows loses pages. */
    if (huge_share >= 0)
        scale = windowed > 0 ? huge_share * (double)out->pages /
                                   (double)windowed
                             : 0.0;
    if (scale > 1.0)
        scale = 1.0;
    out->best = 1.0 - scale * (double)out->lost / (double)out->pages;
}

int bl_flag_pages_migrated(double init, double after, long long migrated,
                           long long pages, char *why, size_t len)
{
    int moved_pages = migrated >= 0 && pages > 0 &&
                      (double)migrated >= BL_MIGRATED_MIN * (double)pages;
    int moved_fraction = init >= 0 && after >= 0 &&
                         fabs(after - init) >= BL_FRACTION_MOVED;
    if (len)
        why[0] = '\0';
    if (!moved_pages && !moved_fraction)
        return 0;
    if (init >= 0 && after >= 0)
        snprintf(why, len, "first touch left %.2f local; the kernel made it "
                 "%.2f", init, after);
    else
        snprintf(why, len, "the kernel migrated %lld of %lld pages after "
                 "first touch", migrated, pages);
    if (migrated >= 0 && init >= 0 && after >= 0) {
        size_t used = 0;
        while (used < len && why[used])
            used++;
        snprintf(why + used, len - used, " (%lld pages migrated)", migrated);
    }
    return 1;
}

int bl_flag_huge_straddle(const bl_straddle *st, double huge_share,
                          double measured, char *why, size_t len)
{
    if (len)
        why[0] = '\0';
    if (st->straddles == 0 || huge_share <= 0 || st->best >= 0.9995)
        return 0;
    char got[48] = "";
    if (measured >= 0)
        snprintf(got, sizeof got, " (measured %.3f)", measured);
    snprintf(why, len, "%d huge pages straddle two threads' shares: first "
             "touch can reach %.3f local at best%s; %s", st->straddles,
             st->best, got,
             st->aligned ? "the shares are aligned to huge pages already, "
                           "so these are where arrays meet or a share is "
                           "smaller than a huge page: larger arrays, or no "
                           "transparent huge pages for them, for 1.000"
                         : "align the shares to the huge page "
                           "(--align-shares) for 1.000");
    return 1;
}
