/* Which shared object an address belongs to (dladdr), and the label that
 * says what the object is: openmp, blas, mpi, program, or the object's own
 * file name. The table is by file-name prefix: one row per runtime. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "probe_priv.h"

static const struct {
    const char *prefix, *label;
} bp_labels[] = {
    {"libgomp", "openmp"},     {"libomp", "openmp"},
    {"libiomp", "openmp"},     {"libopenblas", "blas"},
    {"libblas", "blas"},       {"libmkl", "blas"},
    {"libblis", "blas"},       {"libmpi", "mpi"}, /* libmpi, libmpich, libmpifort */
    {"libopen-pal", "mpi"},    {"libopen-rte", "mpi"},
    {"libpmix", "mpi"},        {"libprrte", "mpi"},
    {"libpmi", "mpi"},         {"libfabric", "mpi"},
    {"libucs", "mpi"},         {"libucp", "mpi"},
    {"libuct", "mpi"},         {"libucm", "mpi"},
    {"libhcoll", "mpi"},       {"libpsm", "mpi"},
    {"libibverbs", "mpi"},     {"librdmacm", "mpi"},
    {"libmlx", "mpi"},         {"libinfinipath", "mpi"},
    {"libbindlab", "probe"},
};

bp_fn bp_next(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    bp_fn fn;
    memcpy(&fn, &sym, sizeof fn); /* ISO C has no cast from an object pointer */
    return fn;
}

static void *program_base; /* dli_fbase of the main executable */

void bp_label_init(void)
{
    Dl_info info;
    void *entry = (void *)getauxval(AT_ENTRY);
    if (entry && dladdr(entry, &info))
        program_base = info.dli_fbase;
}

void bp_object_of(const void *addr, char *path, size_t len, char *label,
                  size_t label_len)
{
    Dl_info info;
    const char *base;
    if (!addr || !dladdr(addr, &info) || !info.dli_fname) {
        snprintf(path, len, "-");
        snprintf(label, label_len, "unknown");
        return;
    }
    bp_escape(info.dli_fname, path, len);
    if (info.dli_fbase == program_base) {
        snprintf(label, label_len, "program");
        return;
    }
    base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    for (size_t i = 0; i < sizeof bp_labels / sizeof bp_labels[0]; i++) {
        if (strncmp(base, bp_labels[i].prefix, strlen(bp_labels[i].prefix)) == 0) {
            snprintf(label, label_len, "%s", bp_labels[i].label);
            return;
        }
    }
    bp_escape(base, label, label_len);
}
