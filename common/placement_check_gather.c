/* Observing the calling process's placement for `bindlab check`: only
 * files under /proc and /sys, one system call (get_mempolicy) and the
 * environment, so a check costs well under a millisecond of work and needs
 * no topology library. */
#include "placement_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpuset.h"

/* Node masks get_mempolicy may return: Linux allows at most 1024 nodes
 * (CONFIG_NODES_SHIFT 10). */
#define MAX_NODE_BITS 1024

/* The whole of a small file, NUL-terminated; -1 if it cannot be read. */
static int read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < len) {
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return 0;
}

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
    if (read_small("/proc/self/status", status, sizeof status) < 0)
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
        if (read_small(path, v, sizeof v) == 0)
            parse_kernel_list(v, s->node_cpus[n]);
    }
}

/* The core of each allowed CPU: the first CPU of its SMT siblings. */
static void gather_cores(bl_pcheck_state *s)
{
    char path[96], v[256];
    int last = hwloc_bitmap_last(s->cpus), c;
    if (last < 0 || !(s->core_of = malloc(sizeof(int) * (size_t)(last + 1))))
        return;
    s->cpu_slots = last + 1;
    for (c = 0; c <= last; c++)
        s->core_of[c] = -1;
    hwloc_bitmap_t sib = hwloc_bitmap_alloc();
    hwloc_bitmap_foreach_begin(c, s->cpus)
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
        if (sib && read_small(path, v, sizeof v) == 0 &&
            parse_kernel_list(v, sib) == 0 && !hwloc_bitmap_iszero(sib))
            s->core_of[c] = hwloc_bitmap_first(sib);
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(sib);
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

/* The cpuset cgroup of this process: cgroup v2 (the "0::" line, files
 * cpuset.cpus.effective) or v1 (the line naming the cpuset controller,
 * files cpuset.effective_cpus). Left "" when neither can be read. */
static void gather_cgroup(bl_pcheck_state *s)
{
    char path[1200], v[BL_PCHECK_TEXT];
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *ctrl = c1 + 1, *cg = c2 + 1;
        const char *cpus_file, *mems_file, *base;
        if (strcmp(line, "0") == 0 && *ctrl == '\0') {
            base = "/sys/fs/cgroup";
            cpus_file = "cpuset.cpus.effective";
            mems_file = "cpuset.mems.effective";
        } else if (strstr(ctrl, "cpuset")) {
            base = "/sys/fs/cgroup/cpuset";
            cpus_file = "cpuset.effective_cpus";
            mems_file = "cpuset.effective_mems";
        } else {
            continue;
        }
        if (bl_textf(path, sizeof path, "%s%s/%s", base,
                     strcmp(cg, "/") ? cg : "", cpus_file) < 0 ||
            read_small(path, v, sizeof v) < 0)
            continue;
        snprintf(s->cgroup_cpus, sizeof s->cgroup_cpus, "%s", chomp(v));
        if (bl_textf(path, sizeof path, "%s%s/%s", base,
                     strcmp(cg, "/") ? cg : "", mems_file) == 0 &&
            read_small(path, v, sizeof v) == 0)
            snprintf(s->cgroup_mems, sizeof s->cgroup_mems, "%s", chomp(v));
        break;
    }
    fclose(f);
}

static void gather_kernel(bl_pcheck_state *s)
{
    char v[256];
    if (read_small("/proc/sys/kernel/numa_balancing", v, sizeof v) == 0)
        s->numa_balancing = atoi(v);
    /* "always [madvise] never": the bracketed word is the mode. */
    if (read_small("/sys/kernel/mm/transparent_hugepage/enabled", v,
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

int bl_pcheck_gather(bl_pcheck_state *s, bl_err *err)
{
    char v[BL_PCHECK_TEXT * 8];
    memset(s, 0, sizeof *s);
    hwloc_bitmap_t online = hwloc_bitmap_alloc();
    if (!online)
        return bl_err_set(err, "placement check: out of memory");
    if (read_small("/sys/devices/system/node/online", v, sizeof v) < 0 ||
        parse_kernel_list(v, online) < 0 || hwloc_bitmap_iszero(online))
        hwloc_bitmap_only(online, 0);
    int rc = bl_pcheck_state_init(s, hwloc_bitmap_last(online) + 1, err);
    if (rc == 0)
        rc = gather_status(s, err);
    if (rc == 0) {
        gather_nodes(s, online);
        /* No node directory at all (no NUMA in the kernel): node 0 holds
         * every CPU. */
        if (access("/sys/devices/system/node", F_OK) != 0)
            hwloc_bitmap_copy(s->node_cpus[0], s->cpus);
        gather_cores(s);
        gather_mempolicy(s);
        gather_cgroup(s);
        gather_kernel(s);
        gather_mpirun(s);
        s->omp_num_threads = env_or_null("OMP_NUM_THREADS");
        s->omp_places = env_or_null("OMP_PLACES");
        s->omp_proc_bind = env_or_null("OMP_PROC_BIND");
        s->slurm_cpu_bind = env_or_null("SLURM_CPU_BIND");
        s->rank = bl_pcheck_launcher_rank();
        s->pid = (long)getpid();
        if (gethostname(s->host, sizeof s->host) != 0)
            strcpy(s->host, "?");
        s->host[sizeof s->host - 1] = '\0';
    }
    hwloc_bitmap_free(online);
    return rc;
}
