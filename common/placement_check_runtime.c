/* Which OpenMP runtime `bindlab check` judges by: the one loaded in this
 * process, found in the dynamic linker's list of loaded objects. A program
 * may load two (an app built with clang and libomp that links an OpenBLAS
 * built with GCC loads libgomp.so.1 too); the program's omp_* and GOMP_*
 * calls go to the first in that list (LD_PRELOAD puts its library ahead of
 * the program's own), so that one is judged and the others are named. */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <link.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *prefix; /* of the file name */
    bl_omp_runtime rt;
    const char *name;
} runtimes[] = {
    {"libgomp.so", BL_OMP_RT_LIBGOMP, "libgomp"},
    {"libomp.so", BL_OMP_RT_LIBOMP, "libomp"},
    {"libiomp5.so", BL_OMP_RT_INTEL, "intel"},
};
#define NRUNTIMES (sizeof runtimes / sizeof runtimes[0])

const char *bl_pcheck_runtime_name(bl_omp_runtime rt)
{
    for (size_t i = 0; i < NRUNTIMES; i++)
        if (runtimes[i].rt == rt)
            return runtimes[i].name;
    return "unknown";
}

int bl_pcheck_runtime_parse(const char *name, bl_omp_runtime *out)
{
    for (size_t i = 0; i < NRUNTIMES; i++)
        if (strcmp(name, runtimes[i].name) == 0) {
            *out = runtimes[i].rt;
            return 0;
        }
    return -1;
}

static int seen_object(struct dl_phdr_info *info, size_t size, void *data)
{
    bl_pcheck_state *s = data;
    (void)size;
    const char *path = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < NRUNTIMES; i++) {
        if (strncmp(base, runtimes[i].prefix, strlen(runtimes[i].prefix)) != 0)
            continue;
        if (s->omp_runtime == BL_OMP_RT_UNKNOWN) {
            s->omp_runtime = runtimes[i].rt;
            snprintf(s->omp_runtime_from, sizeof s->omp_runtime_from,
                     "%s loaded in this process", base);
        } else if (s->omp_runtime != runtimes[i].rt) {
            size_t n = strlen(s->omp_runtimes_also);
            snprintf(s->omp_runtimes_also + n, sizeof s->omp_runtimes_also - n,
                     "%s%s", n ? ", " : "", base);
        }
    }
    return 0;
}

/* s->omp_runtime from the loaded objects, unless given (--omp-runtime). */
void bl_pcheck_gather_runtime(bl_pcheck_state *s, bl_omp_runtime given)
{
    s->omp_runtime = BL_OMP_RT_UNKNOWN;
    s->omp_runtime_from[0] = s->omp_runtimes_also[0] = '\0';
    dl_iterate_phdr(seen_object, s);
    if (given == BL_OMP_RT_UNKNOWN)
        return;
    if (s->omp_runtime != given && s->omp_runtime != BL_OMP_RT_UNKNOWN) {
        /* the loaded one is named beside the one asked for */
        size_t n = strlen(s->omp_runtimes_also);
        const char *loaded = s->omp_runtime_from;
        snprintf(s->omp_runtimes_also + n, sizeof s->omp_runtimes_also - n,
                 "%s%.*s", n ? ", " : "", (int)strcspn(loaded, " "), loaded);
    }
    s->omp_runtime = given;
    snprintf(s->omp_runtime_from, sizeof s->omp_runtime_from, "--omp-runtime");
}
