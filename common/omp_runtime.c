#include "omp_runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bl_omp_runtime_kind(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "libgomp.so", 10) == 0)
        return BL_OMP_LIBGOMP;
    if (strncmp(base, "libiomp5.so", 11) == 0)
        return BL_OMP_INTEL;
    /* libomp.so.5, Debian's libomp-14.so.5 and its libomp5.so link */
    if (strncmp(base, "libomp.so", 9) == 0 ||
        strncmp(base, "libomp5.so", 10) == 0 ||
        (strncmp(base, "libomp-", 7) == 0 && strstr(base, ".so")))
        return BL_OMP_LIBOMP;
    return NULL;
}

int bl_omp_version_in(const char *p, size_t len, char *buf, size_t buflen)
{
    static const char key[] = "OMP version: ";
    const char *end = p + len, *at = p;
    while ((at = memmem(at, (size_t)(end - at), key, sizeof key - 1))) {
        const char *line = at, *v = at + sizeof key - 1;
        size_t n = 0;
        /* only the "@(#)" identification line, not a message template */
        while (line > p && at - line < 64 && line[-1] != '\0')
            line--;
        at = v;
        if (strncmp(line, "@(#)", 4) != 0)
            continue;
        while (v + n < end && n + 1 < buflen &&
               (v[n] == '.' || (v[n] >= '0' && v[n] <= '9')))
            n++;
        if (n == 0)
            continue;
        memcpy(buf, v, n);
        buf[n] = '\0';
        return 1;
    }
    return 0;
}

/* The runtime's "@(#)" version line, searched in its read-only
 * segments as mapped; 1 found. */
static int version_string(const struct dl_phdr_info *info, bl_omp_lib *lib)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) ||
            !(ph->p_flags & PF_R))
            continue;
        const char *seg = (const char *)(info->dlpi_addr + ph->p_vaddr);
        if (bl_omp_version_in(seg, ph->p_filesz, lib->version,
                              sizeof lib->version)) {
            /* the vendor's own words name the family, whatever the file
             * is called (an alias libgomp.so.1 -> libiomp5.so) */
            if (memmem(seg, ph->p_filesz, "@(#) Intel(R) OMP", 17))
                snprintf(lib->kind, sizeof lib->kind, "%s", BL_OMP_INTEL);
            else if (memmem(seg, ph->p_filesz, "@(#) LLVM OMP", 13))
                snprintf(lib->kind, sizeof lib->kind, "%s", BL_OMP_LIBOMP);
            return 1;
        }
    }
    return 0;
}

/* Whether version node a ("GOMP_4.5") is below b ("GOMP_5.0.1"),
 * number by number. */
static int node_below(const char *a, const char *b)
{
    a = strchr(a, '_');
    b = strchr(b, '_');
    while (a && b && *a && *b) {
        long x = strtol(a + 1, (char **)&a, 10);
        long y = strtol(b + 1, (char **)&b, 10);
        if (x != y)
            return x < y;
    }
    return b && *b;
}

/* A dynamic entry's address: glibc rewrites some in place to run-time
 * addresses, others stay offsets from the load base. */
static const char *dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return (const char *)(v < info->dlpi_addr ? v + info->dlpi_addr : v);
}

/* libgomp: the highest GOMP_x.y version node it defines. */
static void gomp_version_node(const struct dl_phdr_info *info,
                              bl_omp_lib *lib)
{
    const ElfW(Dyn) *dyn = NULL;
    const char *strtab = NULL, *vd = NULL;
    long count = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
                                      info->dlpi_phdr[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = dyn_addr(info, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_VERDEF)
            vd = dyn_addr(info, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_VERDEFNUM)
            count = (long)dyn->d_un.d_val;
    }
    for (long k = 0; strtab && vd && k < count; k++) {
        const ElfW(Verdef) *def = (const ElfW(Verdef) *)vd;
        const ElfW(Verdaux) *aux =
            (const ElfW(Verdaux) *)(vd + def->vd_aux);
        const char *name = strtab + aux->vda_name;
        if (strncmp(name, "GOMP_", 5) == 0 && strlen(name) < 32 &&
            (!lib->version[0] || node_below(lib->version, name)))
            snprintf(lib->version, sizeof lib->version, "%s", name);
        if (!def->vd_next)
            break;
        vd += def->vd_next;
    }
}

static int each_object(struct dl_phdr_info *info, size_t size, void *data)
{
    bl_omp_runtimes *r = data;
    const char *kind = bl_omp_runtime_kind(info->dlpi_name);
    char real[PATH_MAX];
    bl_omp_lib *lib;
    (void)size;
    if (!kind || !info->dlpi_name[0] || r->nloaded >= BL_OMP_RUNTIMES_MAX)
        return 0;
    lib = &r->loaded[r->nloaded++];
    snprintf(lib->kind, sizeof lib->kind, "%s", kind);
    snprintf(lib->path, sizeof lib->path, "%s", info->dlpi_name);
    snprintf(lib->file, sizeof lib->file, "%s", info->dlpi_name);
    if (realpath(info->dlpi_name, real))
        snprintf(lib->file, sizeof lib->file, "%s", real);
    if (!version_string(info, lib))
        gomp_version_node(info, lib);
    return 0;
}

/* The loaded runtime whose file holds symbol's global definition (of
 * version node version when given: what a caller linked against that
 * version binds to). */
static int holder(const bl_omp_runtimes *r, const char *symbol,
                  const char *version)
{
    Dl_info info;
    void *at = version ? dlvsym(RTLD_DEFAULT, symbol, version)
                       : dlsym(RTLD_DEFAULT, symbol);
    if (!at || !dladdr(at, &info) || !info.dli_fname)
        return -1;
    for (int i = 0; i < r->nloaded; i++)
        if (strcmp(r->loaded[i].path, info.dli_fname) == 0)
            return i;
    return -1;
}

void bl_omp_runtimes_find(bl_omp_runtimes *out)
{
    memset(out, 0, sizeof *out);
    dl_iterate_phdr(each_object, out);
    out->serving = holder(out, "omp_get_num_threads", NULL);
    /* GCC 4.9 and later compile a parallel region to this call */
    out->serving_gomp = holder(out, "GOMP_parallel", "GOMP_4.0");
}

void bl_omp_runtimes_others(const bl_omp_runtimes *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->nloaded && used < len; i++) {
        const bl_omp_lib *l = &r->loaded[i];
        int n;
        if (i == r->serving)
            continue;
        n = snprintf(buf + used, len - used, "%s%s %s %s", used ? "; " : "",
                     l->kind, l->version[0] ? l->version : "-", l->file);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
