#include "kernel.h"

#include <string.h>

extern const bl_kernel bl_kernel_triad;
extern const bl_kernel bl_kernel_stencil;
extern const bl_kernel bl_kernel_lu;
extern const bl_kernel bl_kernel_shared;
extern const bl_kernel bl_kernel_latency;
extern const bl_kernel bl_kernel_c2c;

/* One line per kernel. */
static const bl_kernel *const kernels[] = {
    &bl_kernel_triad,
    &bl_kernel_stencil,
    &bl_kernel_lu,
    &bl_kernel_shared,
    &bl_kernel_latency,
    &bl_kernel_c2c,
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
