/* The GPUs and network cards of a node topology, where they sit, and which
 * ranks of a plan are near them or are given them (gpu_assign.h). The
 * topology must be loaded with I/O objects (bl_plan_topology_load keeps
 * hwloc's important ones); a topology without them has no devices.
 *
 * GPUs and NICs are told by PCI class (bl_pci_is_gpu, bl_pci_is_nic). A
 * device's locality is its first non-I/O ancestor
 * (hwloc_get_non_io_ancestor_obj): its cpuset and NUMA nodes. */
#ifndef BL_PLAN_DEVICES_H
#define BL_PLAN_DEVICES_H

#include <stdio.h>

#include <hwloc.h>

#include "err.h"
#include "gpu_assign.h"
#include "plan/plan.h"
#include "plan/plan_output.h"

typedef enum bl_device_kind { BL_DEVICE_GPU, BL_DEVICE_NIC } bl_device_kind;

typedef struct bl_plan_device {
    bl_device_kind kind;
    char busid[16];          /* "0000:34:00.0" */
    unsigned vendor, class_id;
    char names[64];          /* its OS devices ("nvml0", "ib0,mlx4_0"), or
                                "" */
    int index;               /* GPUs: its number among its vendor's GPUs
                                in bus order (what CUDA_VISIBLE_DEVICES and
                                ROCR_VISIBLE_DEVICES name); NICs: -1 */
    hwloc_bitmap_t cpus;     /* locality: the ancestor's cpuset (OS) */
    int numa;                /* logical index of its NUMA node, -1 when
                                it has several or none */
    int package;             /* ... of its package, -1 likewise */
} bl_plan_device;

typedef struct bl_plan_devices {
    bl_plan_device *dev;     /* GPUs first, then NICs, each in bus order */
    int n, ngpus;
} bl_plan_devices;

/* The devices of topo. 0 (n may be 0), or -1 with err (out of memory). */
int bl_plan_devices_find(hwloc_topology_t topo, bl_plan_devices *out,
                         bl_err *err);
void bl_plan_devices_free(bl_plan_devices *d);

/* A plan's devices per rank entry: the nearest of each kind and those the
 * GPU assignment gives it. */
typedef struct bl_plan_rank_devices {
    int nranks;
    unsigned char *near;     /* [nranks * n]: 1 when device d is among
                                rank r's nearest of its kind */
    int *assigned;           /* [nranks * ngpus]: rank r's GPUs (device
                                numbers, ascending), -1 after the last */
    bl_gpu_bind how;
    int per_rank;
} bl_plan_rank_devices;

/* Nearest: the devices whose locality meets the rank's binding; when none
 * of a kind does, those of that kind whose NUMA node is nearest by the
 * topology's NUMA latency matrix (none without one). Assigned: how and
 * per_rank applied to each rank entry (bl_gpu_assign), its local rank
 * being its position on the node, every earlier rank's binding known.
 * -1 with err when out of memory. */
int bl_plan_rank_devices_make(hwloc_topology_t topo, const bl_plan *p,
                              const bl_plan_devices *d, bl_gpu_bind how,
                              int per_rank, bl_plan_rank_devices *out,
                              bl_err *err);
void bl_plan_rank_devices_free(bl_plan_rank_devices *rd);

/* "0000:34:00.0,0000:36:00.0" for rank r's nearest devices of kind
 * (assigned 0) or its assigned GPUs (assigned 1); "-" for none. */
void bl_plan_rank_devices_text(const bl_plan_devices *d,
                               const bl_plan_rank_devices *rd, int r,
                               bl_device_kind kind, int assigned, char *buf,
                               size_t len);

/* The text section: one line per device (kind, bus id, names, NUMA node
 * and package, the ranks near it and the ranks given it), then one line
 * per rank with its nearest and assigned devices. -1 on a write error. */
int bl_plan_devices_write(FILE *f, const bl_plan *p,
                          const bl_plan_devices *d,
                          const bl_plan_rank_devices *rd);

/* The device warnings of the plan (plan_output.h's BL_PLAN_W_NO_LOCAL_GPU
 * to BL_PLAN_W_GPU_SHARED), at most one of each kind, appended to *w
 * (malloc'ed, grown) and *n. -1 with err when out of memory. */
int bl_plan_devices_warnings(hwloc_topology_t topo, const bl_plan *p,
                             const bl_plan_devices *d,
                             const bl_plan_rank_devices *rd,
                             bl_plan_warning **w, size_t *n, bl_err *err);

#endif
