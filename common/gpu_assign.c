/* The device dealing of gpu_assign.h. */
#include "gpu_assign.h"

#include <stdlib.h>
#include <string.h>

#define VENDOR_NVIDIA 0x10de
#define VENDOR_AMD 0x1002
#define VENDOR_INTEL 0x8086

int bl_pci_is_gpu(unsigned class_id, unsigned vendor)
{
    return class_id == 0x0302 || class_id == 0x0380 || class_id == 0x1200 ||
           (class_id == 0x0300 && vendor == VENDOR_NVIDIA);
}

int bl_pci_is_nic(unsigned class_id)
{
    return (class_id >> 8) == 0x02 || class_id == 0x0c06;
}

const char *bl_gpu_visible_var(unsigned vendor)
{
    return vendor == VENDOR_NVIDIA ? "CUDA_VISIBLE_DEVICES"
           : vendor == VENDOR_AMD  ? "ROCR_VISIBLE_DEVICES"
           : vendor == VENDOR_INTEL ? "ZE_AFFINITY_MASK"
                                    : NULL;
}

int bl_gpu_bind_parse(const char *text, bl_gpu_bind *out, bl_err *err)
{
    if (!strcmp(text, "none"))
        *out = BL_GPU_BIND_NONE;
    else if (!strcmp(text, "closest"))
        *out = BL_GPU_BIND_CLOSEST;
    else if (!strcmp(text, "round-robin") || !strcmp(text, "round_robin"))
        *out = BL_GPU_BIND_ROUND_ROBIN;
    else
        return bl_err_set(err, "gpu bind '%s': accepted: closest, "
                          "round-robin, none", text);
    return 0;
}

const char *bl_gpu_bind_name(bl_gpu_bind how)
{
    return how == BL_GPU_BIND_CLOSEST       ? "closest"
           : how == BL_GPU_BIND_ROUND_ROBIN ? "round-robin"
                                            : "none";
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* want devices of list[0..n-1], round robin from turn start. */
static int deal(const int *list, int n, int want, long start, int *out)
{
    if (want > n)
        want = n;
    for (int j = 0; j < want; j++)
        out[j] = list[(int)((start + j) % n)];
    return want;
}

/* 1 when cpus meets device d's locality (closest only). */
static int is_local(bl_gpu_bind how, hwloc_const_bitmap_t cpus,
                    hwloc_const_bitmap_t dev)
{
    return how == BL_GPU_BIND_CLOSEST && cpus && dev &&
           hwloc_bitmap_intersects(cpus, dev);
}

/* Rank i's local devices are the same as rank lr's (unknown: yes). */
static int same_locality(bl_gpu_bind how, hwloc_const_bitmap_t mine,
                         hwloc_const_bitmap_t other, int ndev,
                         const hwloc_const_bitmap_t *dev_cpus)
{
    if (!other)
        return 1;
    for (int d = 0; d < ndev; d++)
        if (is_local(how, mine, dev_cpus[d]) !=
            is_local(how, other, dev_cpus[d]))
            return 0;
    return 1;
}

int bl_gpu_assign(bl_gpu_bind how, int per_rank, int lr,
                  const hwloc_const_bitmap_t *rank_cpus, int ndev,
                  const hwloc_const_bitmap_t *dev_cpus, int *out)
{
    hwloc_const_bitmap_t mine;
    int *near, *far, nnear = 0, nfar = 0, got, turn = 0;

    if (how == BL_GPU_BIND_NONE || per_rank <= 0 || ndev <= 0 || lr < 0)
        return 0;
    mine = rank_cpus[lr];
    near = malloc(sizeof *near * (size_t)ndev * 2);
    if (!near)
        return 0;
    far = near + ndev;
    for (int d = 0; d < ndev; d++) {
        if (is_local(how, mine, dev_cpus[d]))
            near[nnear++] = d;
        else
            far[nfar++] = d;
    }
    /* this rank's turn among the ranks dealt from the same devices */
    for (int i = 0; i < lr; i++)
        turn += same_locality(how, mine, rank_cpus[i], ndev, dev_cpus);
    if (nnear == 0) {            /* round robin, or nothing is local */
        got = deal(far, nfar, per_rank, (long)turn * per_rank, out);
    } else if (per_rank <= nnear) {
        got = deal(near, nnear, per_rank, (long)turn * per_rank, out);
    } else {                     /* all the local ones, then the others */
        memcpy(out, near, sizeof *out * (size_t)nnear);
        got = nnear + deal(far, nfar, per_rank - nnear,
                           (long)turn * (per_rank - nnear), out + nnear);
    }
    free(near);
    qsort(out, (size_t)got, sizeof *out, cmp_int);
    return got;
}
