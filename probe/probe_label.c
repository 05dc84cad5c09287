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
    {"libscipy_openblas", "blas"}, /* numpy's and scipy's wheels */
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

/* Python loads an extension module, and the libmpi it links, with
 * RTLD_LOCAL: libmpi is then outside the global scope RTLD_NEXT searches,
 * and the MPI call the module makes would find no next definition. The
 * definition the caller would have bound to without the probe is in the
 * caller's own scope (the object and its dependencies), which a handle
 * of that object searches; the probe is not in it, being preloaded. */
bp_fn bp_next_from(const char *name, const void *caller)
{
    Dl_info info, own, found;
    void *handle, *sym = NULL;
    bp_fn fn = bp_next(name);
    if (fn || !caller || !dladdr(caller, &info) || !info.dli_fname ||
        info.dli_fbase == program_base || !dladdr(&program_base, &own))
        return fn;
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return NULL;
    sym = dlsym(handle, name);
    if (sym && dladdr(sym, &found) && found.dli_fbase == own.dli_fbase)
        sym = NULL; /* never the probe's own hook: it would call itself */
    dlclose(handle); /* only the reference RTLD_NOLOAD took */
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

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
