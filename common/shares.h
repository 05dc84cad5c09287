/* Each thread's share of an array and what first touch can make of it:
 * the static schedule's split (optionally with every boundary moved to a
 * huge-page boundary, so that no huge page holds two threads' data), the
 * best local page fraction first touch can reach when huge pages straddle
 * share boundaries, and the two first-touch flags of a run
 * (pages-migrated, huge-page-straddle). Pure arithmetic: no system calls. */
#ifndef BL_SHARES_H
#define BL_SHARES_H

#include <stddef.h>
#include <stdint.h>

/* One array split among threads the way the compute loop splits it. */
typedef struct bl_shares {
    uintptr_t base;            /* address of unit 0 */
    size_t units, unit_bytes;  /* elements (or rows) and their size */
    int nthreads;
    size_t align;              /* 0: schedule(static) exactly; else every
                                * boundary moved to the nearest multiple of
                                * align bytes (an address, not an offset) */
} bl_shares;

/* The [lo, hi) units of thread tid. With align 0 this is schedule(static)
 * with no chunk size (the first units % nthreads threads get one more);
 * else each inner boundary of that split is rounded to the nearest
 * align-aligned address and clamped to the array, so shares stay in order
 * and cover every unit once (a thread may get none). */
void bl_share_range(const bl_shares *s, int tid, size_t *lo, size_t *hi);

/* What huge pages cost first touch over a set of arrays, counted as the
 * app counts local pages (a base page belongs to the thread whose share
 * holds its first byte). */
typedef struct bl_straddle {
    long long pages;           /* base pages of the arrays */
    long long lost;            /* pages no first touch can make local */
    int straddles;             /* huge pages holding two threads' pages */
    double best;               /* best reachable local fraction, 1 - lost
                                * scaled by the huge-page share / pages */
    int aligned;               /* every array's shares were already moved
                                * to huge-page boundaries (--align-shares) */
} bl_straddle;

/* Over arrays s[0..n): every huge-page-aligned window of huge bytes that
 * lies whole inside an array can be a huge page; one that holds pages of
 * several threads lands whole on the node of the thread that touches it
 * first. A share's first touch runs from its start, so that is the thread
 * whose share starts in the window (its first byte, even in the window's
 * last base page, which is counted as the thread before's), not the one
 * before it, which reaches the window only at the end of its share: its
 * part is lost (of two threads starting in one window, the larger part is
 * kept, at best).
 * Arrays mapped side by side share a mapping, so a window may hold the end
 * of one array and the start of the next: windows the arrays fill count
 * whole. The arrays must not overlap.
 * huge_share (0..1) is the share of the arrays' pages that are
 * huge-page backed (smaps); the loss is scaled by it against the share of
 * pages in whole windows (a negative huge_share: all windows backed).
 * page and huge are the base and huge page sizes in bytes. */
void bl_straddle_compute(const bl_shares *s, size_t n, size_t page,
                         size_t huge, double huge_share, bl_straddle *out);

/* pages-migrated: the kernel moved the pages after first touch when the
 * pages it migrated during the run are at least BL_MIGRATED_MIN of the
 * arrays' pages, or the local fraction changed by BL_FRACTION_MOVED or
 * more between the two moments. migrated < 0: unknown (the fractions
 * decide). Returns 1 and writes the sentence that names both fractions
 * into why, else 0 (why ""). */
#define BL_MIGRATED_MIN 0.01
#define BL_FRACTION_MOVED 0.01
int bl_flag_pages_migrated(double init, double after, long long migrated,
                           long long pages, char *why, size_t len);

/* huge-page-straddle: some arrays are huge-page backed and huge pages
 * straddle share boundaries, so first touch cannot reach 1.0; the
 * sentence gives the best reachable fraction and the measured one, and
 * the fix: --align-shares, or, when the shares are aligned already (the
 * straddles are where arrays meet or where a share is smaller than a
 * huge page), larger arrays or no huge pages for them. */
int bl_flag_huge_straddle(const bl_straddle *st, double huge_share,
                          double measured, char *why, size_t len);

#endif
