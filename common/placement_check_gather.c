/* Observing the calling process's placement for `bindlab check`: only
 * files under /proc and /sys, one system call (get_mempolicy) and the
 * environment, so a check costs well under a millisecond of work; hwloc
 * is loaded only when OpenMP binding is asked for (the cores). */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "allowed.h"
#include "cpuset.h"
#include "gpu_visible.h"
#include "sys_util.h"
#include "topo.h"

/* Node masks get_mempolicy may return: Linux allows at most 1024 nodes
 * (CONFIG_NODES_SHIFT 10). */
#define MAX_NODE_BITS 1024

/* Cuts s at its first newline. */
static char *chomp(char *s)
{
    s[strcspn(s, "\n")] = '\0';
    return s;
}

/* The value of "Key:\tvalue" in /proc/self/status text, into out. */
static int status_field(const char *status, const char *key, char *out,
                        size_t len)
{
    size_t klen = strlen(key);
    const char *p = status;
    while (strncmp(p, key, klen) != 0 || p[klen] != ':') {
        p = strchr(p, '\n');
        if (!p)
            return -1;
        p++;
    }
    p += klen + 1;
    p += strspn(p, " \t");
    size_t n = strcspn(p, "\n");
    if (n >= len)
        return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

/* A list from the kernel ("0-3,8", or "" for the empty set). */
static int parse_kernel_list(const char *text, hwloc_bitmap_t out)
{
    hwloc_bitmap_zero(out);
    if (text[strspn(text, " \t\n")] == '\0')
        return 0;
    return bl_cpuset_parse_list(text, out, NULL);
}

static int gather_status(bl_pcheck_state *s, bl_err *err)
{
    char status[16384];
    char v[BL_PCHECK_TEXT * 8];
    if (bl_read_small_file("/proc/self/status", status, sizeof status) < 0)
        return bl_err_set(err, "cannot read /proc/self/status: %s",
                          strerror(errno));
    if (status_field(status, "Cpus_allowed_list", v, sizeof v) < 0 ||
        parse_kernel_list(v, s->cpus) < 0)
        return bl_err_set(err, "/proc/self/status has no readable "
                               "Cpus_allowed_list");
    /* A kernel without NUMA support has no Mems_allowed_list: node 0. */
    if (status_field(status, "Mems_allowed_list", v, sizeof v) < 0 ||
        parse_kernel_list(v, s->mems_allowed) < 0)
        hwloc_bitmap_only(s->mems_allowed, 0);
    return 0;
}

/* The nodes and their CPUs from /sys/devices/system/node; a kernel
 * without NUMA has one node holding every CPU. */
static void gather_nodes(bl_pcheck_state *s, hwloc_const_bitmap_t online)
{
    char path[96], v[BL_PCHECK_TEXT * 8];
    hwloc_bitmap_copy(s->nodes, online);
    for (int n = 0; n < s->node_slots; n++) {
        if (!hwloc_bitmap_isset(online, (unsigned)n))
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", n);
        if (bl_read_small_file(path, v, sizeof v) == 0)
            parse_kernel_list(v, s->node_cpus[n]);
    }
}

int bl_pcheck_cores_from_topology(bl_pcheck_state *s, hwloc_topology_t topo,
                                  bl_err *err)
{
    int last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo));
    if (hwloc_bitmap_last(s->cpus) > last)
        last = hwloc_bitmap_last(s->cpus);
    free(s->core_of);
    s->cpu_slots = 0;
    if (last < 0 || !(s->core_of = malloc(sizeof(int) * (size_t)(last + 1))))
        return bl_err_set(err, "placement check: out of memory");
    s->cpu_slots = last + 1;
    for (int c = 0; c <= last; c++)
        s->core_of[c] = -1;
    hwloc_obj_t pu = NULL;
    while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        if ((int)pu->os_index <= last)
            s->core_of[pu->os_index] =
                hwloc_bitmap_first(core ? core->cpuset : pu->cpuset);
    }
    return 0;
}

/* The core of each CPU from hwloc (this machine, or the topology given),
 * loaded only when an OpenMP binding is asked for: the rule that needs it
 * judges bound threads, and loading costs far more than the rest. */
static int gather_cores(bl_pcheck_state *s, const char *topology, bl_err *err)
{
    hwloc_topology_t topo;
    if (!(topology && *topology) && !s->omp_proc_bind && !s->omp_places &&
        !s->gomp_cpu_affinity)
        return 0;
    if (bl_topo_load(topology, &topo, err) < 0) /* this machine: cores unknown */
        return topology && *topology ? -1 : 0;
    int rc = bl_pcheck_cores_from_topology(s, topo, err);
    hwloc_topology_destroy(topo);
    return rc;
}

static void gather_mempolicy(bl_pcheck_state *s)
{
    unsigned long mask[MAX_NODE_BITS / (8 * sizeof(unsigned long))];
    int mode = -1;
    memset(mask, 0, sizeof mask);
    if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)MAX_NODE_BITS,
                NULL, 0UL) != 0)
        return; /* policy stays unknown (-1) */
    /* The mode flags (static/relative nodes, balancing) sit above bit 12. */
    s->policy = mode & 0xfff;
    s->policy_flags = (unsigned)mode & ~0xfffu;
    for (unsigned i = 0; i < MAX_NODE_BITS; i++)
        if (mask[i / (8 * sizeof(unsigned long))] &
            (1UL << (i % (8 * sizeof(unsigned long)))))
            hwloc_bitmap_set(s->policy_nodes, i);
}

/* The CPUs this job may use: the affinity within the cgroup's CPUs, and
 * Slurm's grant (allowed.h). Left as Cpus_allowed_list when unreadable. */
static void gather_allowed(bl_pcheck_state *s)
{
    bl_allowed a;
    bl_err e;
    s->slurm_cpus_on_node = -1;
    if (bl_allowed_gather(&a, NULL, &e) == 0 && !hwloc_bitmap_iszero(a.cpus)) {
        hwloc_bitmap_copy(s->cpus, a.cpus);
        snprintf(s->cgroup_cpus, sizeof s->cgroup_cpus, "%s", a.cgroup_cpus);
        snprintf(s->cgroup_mems, sizeof s->cgroup_mems, "%s", a.cgroup_mems);
        s->slurm_cpus_on_node = a.slurm_cpus_on_node;
        bl_allowed_sources(&a, s->allowed_from, sizeof s->allowed_from);
    }
    bl_allowed_free(&a);
}

static void gather_kernel(bl_pcheck_state *s)
{
    char v[256];
    if (bl_read_small_file("/proc/sys/kernel/numa_balancing", v, sizeof v) == 0)
        s->numa_balancing = atoi(v);
    /* "always [madvise] never": the bracketed word is the mode. */
    if (bl_read_small_file("/sys/kernel/mm/transparent_hugepage/enabled", v,
                   sizeof v) == 0) {
        char *a = strchr(chomp(v), '['), *b = a ? strchr(a, ']') : NULL;
        if (b && (size_t)(b - a - 1) < sizeof s->thp) {
            memcpy(s->thp, a + 1, (size_t)(b - a - 1));
            s->thp[b - a - 1] = '\0';
        }
    }
}

/* mpirun's binding as its ranks see it: Open MPI 4 passes --bind-to as
 * OMPI_MCA_hwloc_base_binding_policy and its default binding as
 * OMPI_MCA_orte_bound_at_launch=1; Open MPI 5 reads
 * PRTE_MCA_hwloc_default_binding_policy. */
static void gather_mpirun(bl_pcheck_state *s)
{
    static const char *const policies[] = {
        "OMPI_MCA_hwloc_base_binding_policy",
        "PRTE_MCA_hwloc_default_binding_policy"};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        const char *v = getenv(policies[i]);
        if (v && *v) {
            if (strncmp(v, "none", 4) != 0)
                snprintf(s->mpirun_binding, sizeof s->mpirun_binding,
                         "%s=%s", policies[i], v);
            return; /* an explicit "none" settles it */
        }
    }
    const char *b = getenv("OMPI_MCA_orte_bound_at_launch");
    if (b && strcmp(b, "1") == 0)
        snprintf(s->mpirun_binding, sizeof s->mpirun_binding,
                 "OMPI_MCA_orte_bound_at_launch=1, Open MPI's default "
                 "binding");
}

int bl_pcheck_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                       "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (!v || !*v)
            continue;
        long r = strtol(v, &end, 10);
        if (*end == '\0' && r >= 0 && r < 1L << 30)
            return (int)r;
    }
    return -1;
}

static const char *env_or_null(const char *name)
{
    return getenv(name);
}

static const char *getenv_const(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* The node's GPUs this process may see (no GPU runtime: sysfs and the
 * visible-device variables). */
static int gather_gpus(bl_pcheck_state *s, bl_err *err)
{
    if (bl_pci_gpus_read(bl_sysfs_root(), &s->gpus, err) < 0)
        return -1;
    s->gpus_given = bl_gpu_visible_filter(&s->gpus, getenv_const, NULL,
                                          &s->gpus_hidden);
    return 0;
}

static void gather_env(bl_pcheck_state *s, const bl_pcheck_opts *o)
{
    s->omp_num_threads = env_or_null("OMP_NUM_THREADS");
    s->omp_places = env_or_null("OMP_PLACES");
    s->omp_proc_bind = env_or_null("OMP_PROC_BIND");
    s->kmp_affinity = env_or_null("KMP_AFFINITY");
    s->kmp_hw_subset = env_or_null("KMP_HW_SUBSET");
    s->gomp_cpu_affinity = env_or_null("GOMP_CPU_AFFINITY");
    s->slurm_cpu_bind = env_or_null("SLURM_CPU_BIND");
    bl_pcheck_gather_runtime(s, o ? o->omp_runtime : BL_OMP_RT_UNKNOWN);
}

int bl_pcheck_gather(bl_pcheck_state *s, const bl_pcheck_opts *o, bl_err *err)
{
    char v[BL_PCHECK_TEXT * 8];
    memset(s, 0, sizeof *s);
    hwloc_bitmap_t online = hwloc_bitmap_alloc();
    if (!online)
        return bl_err_set(err, "placement check: out of memory");
    if (bl_read_small_file("/sys/devices/system/node/online", v, sizeof v) < 0 ||
        parse_kernel_list(v, online) < 0 || hwloc_bitmap_iszero(online))
        hwloc_bitmap_only(online, 0);
    int rc = bl_pcheck_state_init(s, hwloc_bitmap_last(online) + 1, err);
    if (rc == 0)
        rc = gather_status(s, err);
    if (rc == 0) {
        gather_allowed(s);
        gather_nodes(s, online);
        /* No node directory at all (no NUMA in the kernel): node 0 holds
         * every CPU. */
        if (access("/sys/devices/system/node", F_OK) != 0)
            hwloc_bitmap_copy(s->node_cpus[0], s->cpus);
        gather_env(s, o);
        gather_mempolicy(s);
        gather_kernel(s);
        gather_mpirun(s);
        rc = gather_gpus(s, err);
        s->rank = bl_pcheck_launcher_rank();
        s->pid = (long)getpid();
        if (gethostname(s->host, sizeof s->host) != 0)
            strcpy(s->host, "?");
        s->host[sizeof s->host - 1] = '\0';
        if (rc == 0)
            rc = gather_cores(s, o ? o->topology : NULL, err);
    }
    hwloc_bitmap_free(online);
    return rc;
}
