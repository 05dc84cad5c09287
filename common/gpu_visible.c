/* The visible-device variables of one rank (gpu_visible.h). */
#include "gpu_visible.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

int bl_gpu_local_rank(const char **from, bl_err *err)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID", "SLURM_LOCALID",
                                       "PMI_LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long lr;
        if (!v || !*v)
            continue;
        lr = strtol(v, &end, 10);
        if (*end || lr < 0 || lr > 1000000)
            return bl_err_set(err, "%s='%s': not a local rank", vars[i], v);
        *from = vars[i];
        return (int)lr;
    }
    return bl_err_set(err, "no local rank in the environment (none of "
                      "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, "
                      "SLURM_LOCALID, PMI_LOCAL_RANK is set): run under "
                      "mpirun or srun");
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? "," : "", s);
}

/* Slot of vendor's variable in out, added (empty) when new. */
static int vendor_slot(bl_gpu_visible *out, const char *var)
{
    for (int i = 0; i < out->n; i++)
        if (!strcmp(out->name[i], var))
            return i;
    if (out->n >= BL_GPU_VISIBLE_MAX - 1)
        return -1;
    snprintf(out->name[out->n], sizeof out->name[0], "%s", var);
    out->value[out->n][0] = '\0';
    return out->n++;
}

void bl_gpu_visible_make(bl_gpu_bind how, int per_rank, int lr,
                         hwloc_const_bitmap_t cpus, const bl_pci_list *gpus,
                         bl_gpu_visible *out)
{
    int ng = gpus->n, *given, got;
    hwloc_const_bitmap_t *dev, *ranks;
    char bus[512] = "", num[16];

    memset(out, 0, sizeof *out);
    if (how == BL_GPU_BIND_NONE || ng == 0 || lr < 0)
        return;
    given = calloc((size_t)ng, sizeof *given);
    dev = calloc((size_t)ng, sizeof *dev);
    ranks = calloc((size_t)lr + 1, sizeof *ranks);
    if (given && dev && ranks) {
        for (int g = 0; g < ng; g++)
            dev[g] = gpus->fn[g].local_cpus;
        ranks[lr] = cpus;       /* the ranks before: unknown (NULL) */
        got = bl_gpu_assign(how, per_rank, lr, ranks, ng, dev, given);
        for (int g = 0; g < ng; g++)    /* every vendor present: hidden */
            if (bl_gpu_visible_var(gpus->fn[g].vendor))
                vendor_slot(out, bl_gpu_visible_var(gpus->fn[g].vendor));
        for (int j = 0; j < got; j++) {
            const bl_pci_fn *f = &gpus->fn[given[j]];
            const char *var = bl_gpu_visible_var(f->vendor);
            int index = 0, slot;
            for (int g = 0; g < given[j]; g++)
                index += gpus->fn[g].vendor == f->vendor;
            if (var && (slot = vendor_slot(out, var)) >= 0) {
                snprintf(num, sizeof num, "%d", index);
                append(out->value[slot], sizeof out->value[0], num);
            }
            append(bus, sizeof bus, f->busid);
        }
        snprintf(out->name[out->n], sizeof out->name[0], "BINDLAB_GPUS");
        snprintf(out->value[out->n++], sizeof out->value[0], "%s", bus);
    }
    free(given);
    free(dev);
    free(ranks);
}

/* 1 when list (a visible-device variable) names number index; -1 when it
 * holds an entry that is not a number. */
static int names_index(const char *list, int index)
{
    const char *p = list;
    int found = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return -1;
        found |= v == index;
        while (*end == '.' || (*end >= '0' && *end <= '9'))
            end++;      /* ZE's ".sub-device" */
        if (*end && *end != ',')
            return -1;
        p = *end ? end + 1 : end;
    }
    return found;
}

int bl_gpu_visible_filter(bl_pci_list *gpus, bl_gpu_env_get get, void *ctx,
                          int *hidden)
{
    int kept = 0, seen[3] = {0, 0, 0};  /* GPUs so far per variable */
    int given = 1;
    static const char *const vars[3] = {"CUDA_VISIBLE_DEVICES",
                                        "ROCR_VISIBLE_DEVICES",
                                        "ZE_AFFINITY_MASK"};
    *hidden = 0;
    for (int g = 0; g < gpus->n; g++) {
        bl_pci_fn f = gpus->fn[g];
        const char *var = bl_gpu_visible_var(f.vendor);
        const char *list = var ? get(ctx, var) : NULL;
        int keep = 1, named = 0;
        for (int v = 0; var && v < 3; v++)
            if (!strcmp(var, vars[v])) {
                named = list ? names_index(list, seen[v]) : -1;
                keep = named != 0;
                seen[v]++;
            }
        if (keep) {
            given &= named == 1;
            gpus->fn[kept++] = f;
        } else {
            hwloc_bitmap_free(f.local_cpus);
            (*hidden)++;
        }
    }
    gpus->n = kept;
    return given;
}

hwloc_bitmap_t bl_gpu_own_cpus(void)
{
    cpu_set_t set;
    hwloc_bitmap_t b;
    if (sched_getaffinity(0, sizeof set, &set) < 0 ||
        !(b = hwloc_bitmap_alloc()))
        return NULL;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            hwloc_bitmap_set(b, (unsigned)c);
    return b;
}

static const char *env_of(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

int bl_gpu_is_far(const bl_pci_fn *d, hwloc_const_bitmap_t cpus)
{
    return cpus && !hwloc_bitmap_iszero(cpus) &&
           !hwloc_bitmap_iszero(d->local_cpus) &&
           !hwloc_bitmap_intersects(d->local_cpus, cpus);
}

/* set as a CPU list, cut with '+' when it does not fit in len bytes. */
static void list_text(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    int need = bl_cpuset_format_list(set, buf, len);
    if (need < 0 || (size_t)need >= len)
        snprintf(buf + len - 2, 2, "+");
}

int bl_gpu_not_local(const bl_pci_list *gpus, hwloc_const_bitmap_t cpus,
                     char *text, size_t len)
{
    char local[160], mine[160];
    if (len)
        text[0] = '\0';
    for (int g = 0; g < gpus->n; g++) {
        const bl_pci_fn *d = &gpus->fn[g];
        if (!bl_gpu_is_far(d, cpus))
            continue;
        list_text(d->local_cpus, local, sizeof local);
        list_text(cpus, mine, sizeof mine);
        snprintf(text, len,
            "GPU %s (NUMA node %d, local CPUs %s) is not local to this "
            "process's CPUs %s: every transfer to it crosses to another "
            "NUMA node or package (give each rank a GPU near its cores: "
            "bindlab sweep's gpu_bind: closest)",
            d->busid, d->numa_node, local, mine);
        return 1;   /* one finding names the first; the others alike */
    }
    return 0;
}

/* from's functions into to, their local CPUs copied. -1 out of memory. */
static int list_copy(const bl_pci_list *from, bl_pci_list *to)
{
    to->n = 0;
    if (!(to->fn = calloc((size_t)from->n + 1, sizeof *to->fn)))
        return -1;
    for (; to->n < from->n; to->n++) {
        to->fn[to->n] = from->fn[to->n];
        if (!(to->fn[to->n].local_cpus =
                  hwloc_bitmap_dup(from->fn[to->n].local_cpus))) {
            bl_pci_list_free(to);
            return -1;
        }
    }
    return 0;
}

int bl_gpu_seen_of(const bl_pci_list *node, hwloc_const_bitmap_t cpus,
                   bl_gpu_env_get get, void *ctx, bl_gpu_seen *out,
                   char *not_local, size_t len, bl_err *err)
{
    bl_pci_list gpus;
    int hidden;
    memset(out, 0, sizeof *out);
    if (not_local && len)
        not_local[0] = '\0';
    if (list_copy(node, &gpus) < 0)
        return bl_err_set(err, "out of memory");
    for (int g = 0; g < gpus.n; g++)
        append(out->node, sizeof out->node, gpus.fn[g].busid);
    out->given = gpus.n > 0 && bl_gpu_visible_filter(&gpus, get, ctx, &hidden);
    for (int g = 0; g < gpus.n; g++) {
        const bl_pci_fn *f = &gpus.fn[g];
        append(out->seen, sizeof out->seen, f->busid);
        if (bl_gpu_is_far(f, cpus))
            append(out->far, sizeof out->far, f->busid);
    }
    if (not_local && out->given)
        bl_gpu_not_local(&gpus, cpus, not_local, len);
    bl_pci_list_free(&gpus);
    return 0;
}

int bl_gpu_seen_read(hwloc_const_bitmap_t cpus, bl_gpu_seen *out,
                     bl_err *err)
{
    bl_pci_list node;
    int rc;
    memset(out, 0, sizeof *out);
    if (bl_pci_gpus_read(bl_sysfs_root(), &node, err) < 0)
        return -1;
    rc = bl_gpu_seen_of(&node, cpus, env_of, NULL, out, NULL, 0, err);
    bl_pci_list_free(&node);
    return rc;
}
