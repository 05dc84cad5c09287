/* What every kernel uses: the static schedule's split, untouched
 * allocation, and the memory check. */
#include "kernel.h"

#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shares.h"

void bl_static_range(size_t n, int nthreads, int tid, size_t *lo, size_t *hi)
{
    bl_shares s = {0, n, 1, nthreads, 0};
    bl_share_range(&s, tid, lo, hi);
}

void *bl_untouched_alloc(size_t bytes)
{
    /* mmap hands out zero pages that are only backed on first write, so no
     * page has a NUMA home until the kernel's first-touch loop writes it. */
    void *p;
    if (bytes == 0)
        bytes = 1;
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *bl_untouched_alloc_aligned(size_t bytes, size_t align)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span;
    uintptr_t p, start;
    void *m;
    if (align <= page)
        return bl_untouched_alloc(bytes);
    if (bytes == 0)
        bytes = 1;
    bytes = (bytes + page - 1) / page * page;
    /* Map align more than needed and give back the ends. */
    span = bytes + align;
    m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    p = (uintptr_t)m;
    start = (p + align - 1) / align * align;
    if (start > p)
        munmap(m, start - p);
    if (p + span > start + bytes)
        munmap((void *)(start + bytes), p + span - (start + bytes));
    return (void *)start;
}

void bl_untouched_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

/* MemAvailable from /proc/meminfo in bytes, 0 if unknown. */
static size_t memory_available(void)
{
    /* MemAvailable is what the kernel can hand out without swapping. */
    char line[256];
    unsigned long long kib = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (size_t)kib * 1024;
}

int bl_kernel_fits_memory(const bl_kernel_ctx *ctx, size_t bytes,
                          const char *what, bl_err *err)
{
    size_t avail = memory_available();
    int local = ctx->local_ranks > 0 ? ctx->local_ranks : 1;
    size_t share = avail / (size_t)local;
    char need[32], have[32];
    if (avail == 0 || bytes <= share)
        return 0;
    bl_format_size(bytes, need, sizeof need);
    bl_format_size(share, have, sizeof have);
    return bl_err_set(err,
                      "%s: needs %s per rank, more than this rank's share of "
                      "free memory (%s = MemAvailable / %d ranks on this "
                      "node); choose a smaller size",
                      what, need, have, local);
}
