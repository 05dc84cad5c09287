#include "kernel.h"

#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>

extern const bl_kernel bl_kernel_triad;

/* One line per kernel. */
static const bl_kernel *const kernels[] = {
    &bl_kernel_triad,
};

#define NKERNELS (sizeof kernels / sizeof kernels[0])

const bl_kernel *bl_kernel_find(const char *name)
{
    for (size_t i = 0; i < NKERNELS; i++)
        if (strcmp(kernels[i]->name, name) == 0)
            return kernels[i];
    return NULL;
}

const char *bl_kernel_names(void)
{
    static char names[256];
    if (names[0] == '\0')
        for (size_t i = 0; i < NKERNELS; i++) {
            if (i)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, kernels[i]->name, sizeof names - strlen(names) - 1);
        }
    return names;
}

void bl_static_range(size_t n, int nthreads, int tid, size_t *lo, size_t *hi)
{
    size_t t = (size_t)(nthreads > 0 ? nthreads : 1);
    size_t q = n / t, r = n % t, i = (size_t)tid;
    *lo = q * i + (i < r ? i : r);
    *hi = *lo + q + (i < r ? 1 : 0);
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

void bl_untouched_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}
