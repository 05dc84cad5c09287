/* The CPUs this job may use (allowed.h): /proc/self/status, the cgroup
 * cpuset and Slurm's environment, read without a topology library. */
#include "allowed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "sys_util.h"

static char *chomp(char *s)
{
    s[strcspn(s, "\n")] = '\0';
    return s;
}

/* root + path, or path alone for the real machine. */
static int rooted(char *buf, size_t len, const char *root, const char *path)
{
    return bl_textf(buf, len, "%s%s", root ? root : "", path);
}

/* Reads one cgroup's cpus and mems files under base (root-prefixed). */
static int read_cgroup_files(const char *root, const char *base,
                             const char *cg, const char *const files[2],
                             char *cpus, size_t cpus_len, char *mems,
                             size_t mems_len)
{
    char path[1400], rel[1200], v[BL_ALLOWED_TEXT];
    const char *dir = strcmp(cg, "/") ? cg : "";
    if (bl_textf(rel, sizeof rel, "%s%s/%s", base, dir, files[0]) < 0 ||
        rooted(path, sizeof path, root, rel) < 0 ||
        bl_read_small_file(path, v, sizeof v) < 0)
        return -1;
    snprintf(cpus, cpus_len, "%s", chomp(v));
    if (bl_textf(rel, sizeof rel, "%s%s/%s", base, dir, files[1]) == 0 &&
        rooted(path, sizeof path, root, rel) == 0 &&
        bl_read_small_file(path, v, sizeof v) == 0)
        snprintf(mems, mems_len, "%s", chomp(v));
    return 0;
}

void bl_allowed_cgroup(const char *root, char *cpus, size_t cpus_len,
                       char *mems, size_t mems_len)
{
    static const char *const v2[2] = {"cpuset.cpus.effective",
                                      "cpuset.mems.effective"};
    static const char *const v1[2] = {"cpuset.effective_cpus",
                                      "cpuset.effective_mems"};
    char path[1024], line[1024];
    cpus[0] = mems[0] = '\0';
    if (rooted(path, sizeof path, root, "/proc/self/cgroup") < 0)
        return;
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *ctrl = c1 + 1, *cg = c2 + 1;
        int found = -1;
        if (strcmp(line, "0") == 0 && *ctrl == '\0')
            found = read_cgroup_files(root, "/sys/fs/cgroup", cg, v2, cpus,
                                      cpus_len, mems, mems_len);
        else if (strstr(ctrl, "cpuset"))
            found = read_cgroup_files(root, "/sys/fs/cgroup/cpuset", cg, v1,
                                      cpus, cpus_len, mems, mems_len);
        if (found == 0)
            break;
    }
    fclose(f);
}

/* Cpus_allowed_list of /proc/self/status into a->affinity. */
static int read_affinity(bl_allowed *a, const char *root, bl_err *err)
{
    char path[1024], status[16384];
    if (rooted(path, sizeof path, root, "/proc/self/status") < 0 ||
        bl_read_small_file(path, status, sizeof status) < 0)
        return bl_err_set(err, "cannot read %s", path);
    const char *p = strstr(status, "\nCpus_allowed_list:");
    if (!p)
        return bl_err_set(err, "%s has no Cpus_allowed_list", path);
    p += strlen("\nCpus_allowed_list:");
    p += strspn(p, " \t");
    size_t n = strcspn(p, "\n");
    if (n >= sizeof a->affinity)
        return bl_err_set(err, "Cpus_allowed_list too long in %s", path);
    memcpy(a->affinity, p, n);
    a->affinity[n] = '\0';
    return 0;
}

static void read_slurm(bl_allowed *a)
{
    const char *v = getenv("SLURM_CPUS_ON_NODE");
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    a->slurm_cpus_on_node = n > 0 && *end == '\0' && n < 1L << 30 ? (int)n : -1;
    snprintf(a->slurm_job_cpus, sizeof a->slurm_job_cpus, "%s",
             (v = getenv("SLURM_JOB_CPUS_PER_NODE")) ? v : "");
    snprintf(a->slurm_cpu_bind, sizeof a->slurm_cpu_bind, "%s",
             (v = getenv("SLURM_CPU_BIND")) ? v : "");
}

static int init(bl_allowed *a, bl_err *err)
{
    memset(a, 0, sizeof *a);
    a->slurm_cpus_on_node = -1;
    if (!(a->cpus = hwloc_bitmap_alloc()))
        return bl_err_set(err, "allowed CPUs: out of memory");
    return 0;
}

int bl_allowed_gather(bl_allowed *a, const char *root, bl_err *err)
{
    if (init(a, err) < 0 || read_affinity(a, root, err) < 0)
        return -1;
    if (bl_cpuset_parse_list(a->affinity, a->cpus, err) < 0)
        return bl_err_prefix(err, "Cpus_allowed_list");
    bl_allowed_cgroup(root, a->cgroup_cpus, sizeof a->cgroup_cpus,
                      a->cgroup_mems, sizeof a->cgroup_mems);
    hwloc_bitmap_t cg = hwloc_bitmap_alloc();
    /* The affinity can name CPUs the cgroup since took away (a cpuset
     * narrowed after the process started): the kernel will not run them. */
    if (cg && a->cgroup_cpus[0] &&
        bl_cpuset_parse_list(a->cgroup_cpus, cg, NULL) == 0 &&
        !hwloc_bitmap_iszero(cg))
        hwloc_bitmap_and(a->cpus, a->cpus, cg);
    hwloc_bitmap_free(cg);
    read_slurm(a);
    snprintf(a->from, sizeof a->from, "process");
    return 0;
}

int bl_allowed_from_list(bl_allowed *a, const char *list, bl_err *err)
{
    if (init(a, err) < 0)
        return -1;
    if (bl_cpuset_parse_list(list, a->cpus, err) < 0)
        return bl_err_prefix(err, "--cpuset"); /* the message echoes it */
    if (hwloc_bitmap_iszero(a->cpus))
        return bl_err_set(err, "--cpuset '%s': no CPU in it; give the OS "
                          "indexes of CPUs, e.g. 0-3", list);
    snprintf(a->affinity, sizeof a->affinity, "%s", list);
    snprintf(a->from, sizeof a->from, "--cpuset");
    return 0;
}

void bl_allowed_free(bl_allowed *a)
{
    if (a->cpus)
        hwloc_bitmap_free(a->cpus);
    a->cpus = NULL;
}

int bl_allowed_usable(const bl_allowed *a)
{
    int n = a->cpus ? hwloc_bitmap_weight(a->cpus) : 0;
    if (a->slurm_cpus_on_node > 0 && a->slurm_cpus_on_node < n)
        n = a->slurm_cpus_on_node;
    return n;
}

void bl_allowed_list(const bl_allowed *a, char *buf, size_t len)
{
    if (!a->cpus || bl_cpuset_format_list(a->cpus, buf, len) < 0)
        snprintf(buf, len, "?");
}

void bl_allowed_sources(const bl_allowed *a, char *buf, size_t len)
{
    size_t used;
    if (strcmp(a->from, "--cpuset") == 0) {
        snprintf(buf, len, "--cpuset %s", a->affinity);
        return;
    }
    snprintf(buf, len, "affinity %s, cgroup cpuset %s", a->affinity,
             a->cgroup_cpus[0] ? a->cgroup_cpus : "none");
    if (a->slurm_cpus_on_node > 0 && (used = strlen(buf)) < len)
        snprintf(buf + used, len - used, ", SLURM_CPUS_ON_NODE %d",
                 a->slurm_cpus_on_node);
    if (a->slurm_job_cpus[0] && (used = strlen(buf)) < len)
        snprintf(buf + used, len - used, ", SLURM_JOB_CPUS_PER_NODE %s",
                 a->slurm_job_cpus);
    if (a->slurm_cpu_bind[0] && (used = strlen(buf)) < len)
        snprintf(buf + used, len - used, ", SLURM_CPU_BIND %s",
                 a->slurm_cpu_bind);
}

void bl_allowed_record(char **cpus, char **from)
{
    char list[BL_ALLOWED_TEXT * 4] = "", src[BL_ALLOWED_TEXT * 4] = "";
    bl_allowed a;
    bl_err e;
    if (bl_allowed_gather(&a, NULL, &e) == 0) {
        bl_allowed_list(&a, list, sizeof list);
        bl_allowed_sources(&a, src, sizeof src);
    }
    bl_allowed_free(&a);
    *cpus = strdup(list);
    *from = strdup(src);
}

int bl_allowed_restrict(const bl_allowed *a, hwloc_topology_t topo,
                        hwloc_topology_t *out, bl_err *err)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
    char list[BL_ALLOWED_TEXT * 4];
    *out = NULL;
    if (hwloc_bitmap_isincluded(all, a->cpus))
        return 0;
    bl_allowed_list(a, list, sizeof list);
    if (!hwloc_bitmap_intersects(all, a->cpus))
        return bl_err_set(err, "the allowed CPUs %s are none of this "
                          "topology's", list);
    if (hwloc_topology_dup(out, topo) < 0) {
        *out = NULL;
        return bl_err_set(err, "hwloc: cannot copy the topology");
    }
    if (hwloc_topology_restrict(*out, a->cpus, 0) < 0) {
        hwloc_topology_destroy(*out);
        *out = NULL;
        return bl_err_set(err, "hwloc: cannot restrict the topology to "
                          "CPUs %s", list);
    }
    return 0;
}
