/* Which GPUs a rank gets, as a launcher wrapper deals them: one pure
 * function shared by bindlab plan (every rank of a planned node) and the
 * per-rank wrapper of a sweep (one rank, from what it can see itself: its
 * local rank, its binding and the node's devices). Each rank decides alone,
 * so that both give the same answer without talking to each other.
 *
 *   none         no assignment: the visible-device variables stay unset and
 *                every rank sees every GPU
 *   round-robin  local rank r gets devices (r*N + j) mod ndev, j < N: the
 *                "local_rank % ngpus" of job scripts, blind to locality
 *   closest      the devices local to the rank's binding (their locality
 *                cpuset meets it), dealt round robin among the ranks of
 *                the node that have the same local devices, in local rank
 *                order; a rank wanting more than are local takes them all,
 *                then the others round robin; a rank with no local device
 *                takes from all of them
 *
 * Closest needs the bindings of the node's ranks before this one; a caller
 * that knows only its own (a rank's wrapper) passes NULL for the others,
 * each then counted as a rank with the same local devices (so ranks of one
 * locality domain are dealt by local rank).
 *
 * Devices are numbered 0..ndev-1 in the order the caller gives (PCI bus
 * order: the order CUDA_DEVICE_ORDER=PCI_BUS_ID and ROCm number them).
 * Each rank's answer depends only on itself and the ranks before it. */
#ifndef BL_GPU_ASSIGN_H
#define BL_GPU_ASSIGN_H

#include <hwloc.h>

#include "err.h"

typedef enum bl_gpu_bind {
    BL_GPU_BIND_NONE = 0,
    BL_GPU_BIND_CLOSEST,
    BL_GPU_BIND_ROUND_ROBIN
} bl_gpu_bind;

/* What a PCI function is, from its class (0x0302: class 03, subclass 02)
 * and vendor: a GPU is a 3D controller (0302), other display controller
 * (0380) or processing accelerator (1200), or an NVIDIA VGA controller
 * (0300) -- not the onboard VGA of a management controller; a NIC is a
 * network controller (02xx) or an older InfiniBand card's serial bus
 * (0c06). The same rule for hwloc's PCI objects and sysfs. */
int bl_pci_is_gpu(unsigned class_id, unsigned vendor);
int bl_pci_is_nic(unsigned class_id);

/* The variable that selects vendor's GPUs for a rank: NVIDIA
 * CUDA_VISIBLE_DEVICES, AMD ROCR_VISIBLE_DEVICES, Intel ZE_AFFINITY_MASK;
 * NULL for another vendor. */
const char *bl_gpu_visible_var(unsigned vendor);

/* "none", "closest", "round-robin" (also "round_robin"); -1 with err. */
int bl_gpu_bind_parse(const char *text, bl_gpu_bind *out, bl_err *err);

/* "none", "closest", "round-robin". */
const char *bl_gpu_bind_name(bl_gpu_bind how);

/* The devices of local rank lr (0-based on its node) among ndev devices
 * whose locality cpusets are dev_cpus[d]; rank_cpus[i] is the binding of
 * local rank i <= lr (NULL: not known, for i < lr). Writes up to per_rank
 * distinct device numbers, ascending, to out and returns how many (0 for
 * none, or when ndev or per_rank is 0; never more than ndev). */
int bl_gpu_assign(bl_gpu_bind how, int per_rank, int lr,
                  const hwloc_const_bitmap_t *rank_cpus, int ndev,
                  const hwloc_const_bitmap_t *dev_cpus, int *out);

#endif
