#include "app_machine.h"

#include <dlfcn.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <mpi.h>
#include <omp.h>

#include "kstat.h"
#include "isa.h"
#include "topo.h"

extern char **environ;

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

static char *cpu_model(hwloc_topology_t topo)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    return dup_or_empty(model);
}

static char *mpi_library(void)
{
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    /* Open MPI ends it with a newline and a NUL, MPICH with several lines:
     * keep it whole but trim the trailing white space. */
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
                       buf[len - 1] == '\0'))
        len--;
    buf[len] = '\0';
    return strdup(buf);
}

static char *compiler(void)
{
    char buf[256];
#if defined(__clang__)
    snprintf(buf, sizeof buf, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(buf, sizeof buf, "gcc %s", __VERSION__);
#else
    snprintf(buf, sizeof buf, "unknown C compiler");
#endif
    return strdup(buf);
}

/* The shared object that provides omp_get_num_threads names the runtime:
 * libgomp (GCC), libomp (LLVM) or libiomp5 (Intel). */
static char *omp_runtime(void)
{
    char buf[512];
    Dl_info info;
    const char *lib = "unknown";
    void *sym = dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        lib = slash ? slash + 1 : info.dli_fname;
    }
    snprintf(buf, sizeof buf, "%s (OpenMP %d)", lib, _OPENMP);
    return strdup(buf);
}

static char *kernel_release(void)
{
    struct utsname u;
    if (uname(&u) < 0)
        return strdup("");
    return strdup(u.release);
}

/* First line of a small /sys file, without its newline; "" if absent. */
static void read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* The "hypervisor" CPU flag, as the kernel shows it in /proc/cpuinfo. */
static int cpuinfo_hypervisor(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0)
            found = strstr(line, " hypervisor") != NULL;
    fclose(f);
    return found;
}

/* The hypervisor's CPUID signature ("KVMKVMKVM", "TCGTCGTCGTCG",
 * "Microsoft Hv", ...), "" when there is none or this is not x86. */
static void hypervisor_signature(char sig[13])
{
    memset(sig, 0, 13);
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (!(c >> 31 & 1))
        return;
    __cpuid(0x40000000, a, b, c, d);
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    for (int i = 0; i < 12; i++)
        if (sig[i] && (sig[i] < ' ' || sig[i] > '~'))
            sig[i] = '?';
#endif
}

/* Whether this node is a virtual or an emulated machine, from the CPU's
 * hypervisor flag and signature and the DMI (firmware) vendor and product.
 * QEMU without KVM (software emulation, TCG) shows the hypervisor flag with
 * DMI vendor QEMU but no KVM signature: its timings mean nothing for speed,
 * while placement and page locations are the real kernel's. */
static char *virtualization(void)
{
    char vendor[128], product[128], sig[13], buf[512];
    int hv = cpuinfo_hypervisor();
    int emulated;

    read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    read_line("/sys/class/dmi/id/product_name", product, sizeof product);
    hypervisor_signature(sig);
    if (!hv && !sig[0] && strcmp(vendor, "QEMU") != 0)
        return strdup("");
    emulated = strcmp(sig, "TCGTCGTCGTCG") == 0 ||
               (strcmp(vendor, "QEMU") == 0 && strcmp(sig, "KVMKVMKVM") != 0);
    snprintf(buf, sizeof buf, "%s: hypervisor %s, DMI %s %s",
             emulated ? "emulated" : "virtual machine",
             sig[0] ? sig : (hv ? "flag set, no signature" : "flag unset"),
             vendor[0] ? vendor : "-", product[0] ? product : "-");
    return strdup(buf);
}

static char *isa_levels(void)
{
    char buf[64];
    bl_isa_list_here(buf, sizeof buf);
    return strdup(buf);
}

void bl_machine_describe(hwloc_topology_t topo, bl_h5_machine *m)
{
    char host[256] = "";

    memset(m, 0, sizeof *m);
    gethostname(host, sizeof host - 1);
    m->hostname = strdup(host);
    m->cpu_model = cpu_model(topo);
    m->mpi_library_version = mpi_library();
    m->compiler = compiler();
    m->omp_runtime = omp_runtime();
    m->kernel_release = kernel_release();
    m->numa_balancing = bl_numa_balancing_read();
    m->virtualization = virtualization();
    m->isa_levels = isa_levels();
    bl_h5_machine_topology(m, topo);
}

static const char *const env_prefixes[] = {
    "OMP_", "GOMP_", "KMP_", "OMPI_", "PMIX_RANK", "PRTE_", "SLURM_",
    "HWLOC_", "I_MPI_", "MPICH_", "HYDRA_", "MV2_", "OPENBLAS_", "LIKWID_",
};

static int wanted(const char *entry)
{
    for (size_t i = 0; i < sizeof env_prefixes / sizeof env_prefixes[0]; i++)
        if (strncmp(entry, env_prefixes[i], strlen(env_prefixes[i])) == 0)
            return 1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const bl_h5_env *)a)->name, ((const bl_h5_env *)b)->name);
}

void bl_machine_env(bl_h5_env **rows, size_t *n)
{
    size_t count = 0, k = 0;
    for (char **e = environ; *e; e++)
        count += wanted(*e) && strchr(*e, '=');
    *rows = calloc(count + 1, sizeof **rows);
    *n = 0;
    if (!*rows)
        return;
    for (char **e = environ; *e && k < count; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !wanted(*e))
            continue;
        (*rows)[k].name = strndup(*e, (size_t)(eq - *e));
        (*rows)[k].value = strdup(eq + 1);
        k++;
    }
    qsort(*rows, k, sizeof **rows, by_name);
    *n = k;
}

const char *bl_machine_env_get(const bl_h5_env *rows, size_t n,
                               const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return rows[i].value;
    return "";
}
