/* What a rank's wrapper sets before it execs the program: the GPUs dealt
 * to the rank (gpu_assign.h) among the node's GPUs read from sysfs
 * (sysfs_pci.h), written as each vendor's variable wants them. */
#ifndef BL_GPU_VISIBLE_H
#define BL_GPU_VISIBLE_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "gpu_assign.h"
#include "sysfs_pci.h"

#define BL_GPU_VISIBLE_MAX 4    /* CUDA, ROCR, ZE, BINDLAB_GPUS */

typedef struct bl_gpu_visible {
    int n;
    char name[BL_GPU_VISIBLE_MAX][32];
    char value[BL_GPU_VISIBLE_MAX][512];
} bl_gpu_visible;

/* The local rank from the launcher's environment: the first set of
 * OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), MPI_LOCALRANKID (MPICH Hydra,
 * Intel MPI), SLURM_LOCALID (srun), PMI_LOCAL_RANK; its name in *from.
 * -1 with err when none is set or it is not a number. */
int bl_gpu_local_rank(const char **from, bl_err *err);

/* The variables for local rank lr bound to cpus: for each vendor with GPUs
 * on the node, its variable (bl_gpu_visible_var) holding the numbers,
 * among that vendor's GPUs in bus order, of those dealt to the rank
 * ("0,1"; "" hides them all); then BINDLAB_GPUS, the PCI bus ids dealt
 * (what the app records). Nothing for BL_GPU_BIND_NONE or a node without
 * GPUs. Other ranks' bindings are not known: closest deals by local rank
 * within the rank's locality. */
void bl_gpu_visible_make(bl_gpu_bind how, int per_rank, int lr,
                         hwloc_const_bitmap_t cpus, const bl_pci_list *gpus,
                         bl_gpu_visible *out);

/* Reads a visible-device variable: its value, NULL when it is unset. */
typedef const char *(*bl_gpu_env_get)(void *ctx, const char *name);

/* Keeps in gpus only those this process may see: by vendor,
 * CUDA_VISIBLE_DEVICES (NVIDIA), ROCR_VISIBLE_DEVICES (AMD),
 * ZE_AFFINITY_MASK (Intel; "1.0" names device 1), each a list of numbers
 * among that vendor's GPUs in bus order; unset: all of that vendor. A list
 * holding anything but numbers (a UUID such as "GPU-8f2c...") cannot be
 * resolved without the GPU runtime: that vendor's GPUs are all kept.
 * get(ctx, name): getenv, the variables a probe recorded (bindlab run),
 * or a test's stand-in. Sets *hidden to the GPUs dropped.
 * Returns 1 when every GPU kept was named by a resolved list (the process
 * was given its GPUs), 0 when some are kept only because nothing chose
 * among them. */
int bl_gpu_visible_filter(bl_pci_list *gpus, bl_gpu_env_get get, void *ctx,
                          int *hidden);

/* Is GPU d far from cpus: its local CPUs known and holding none of them
 * (an empty or NULL cpus is near everything: nothing is known). */
int bl_gpu_is_far(const bl_pci_fn *d, hwloc_const_bitmap_t cpus);

/* The gpu-not-local finding: the first GPU of gpus (those a process was
 * given, cut by bl_gpu_visible_filter) far from cpus, its text in text
 * (naming it, its NUMA node and local CPUs, the process's CPUs and the
 * fix). 1 when one is, 0 when none is (text ""). */
int bl_gpu_not_local(const bl_pci_list *gpus, hwloc_const_bitmap_t cpus,
                     char *text, size_t len);

/* This process's own affinity as an hwloc bitmap (OS indexes), NULL when
 * it cannot be read (hwloc_bitmap_free it). */
hwloc_bitmap_t bl_gpu_own_cpus(void);

#define BL_GPU_SEEN_TEXT 256   /* 19 GPU bus ids */

/* The GPUs of this process's node as it sees them (comma-separated PCI bus
 * ids, "" for none). */
typedef struct bl_gpu_seen {
    char seen[BL_GPU_SEEN_TEXT];  /* visible: cut by its variables */
    char far[BL_GPU_SEEN_TEXT];   /* the visible ones whose local CPUs hold
                                   * none of its CPUs */
    char node[BL_GPU_SEEN_TEXT];  /* every GPU of the node */
    int given;                    /* 1: a variable chose every one seen */
} bl_gpu_seen;

/* This process's view of the node's GPUs (sysfs under bl_sysfs_root(),
 * cut by its visible-device variables, far from cpus). -1 with err when
 * they cannot be read (out of memory). */
int bl_gpu_seen_read(hwloc_const_bitmap_t cpus, bl_gpu_seen *out,
                     bl_err *err);

/* The view of a process whose CPUs are cpus and whose visible-device
 * variables get(ctx, name) gives, among node (every GPU of its node, left
 * as it is). When not_local is not NULL, the gpu-not-local text of a
 * process given its GPUs (bl_gpu_not_local) goes there ("" none). -1 with
 * err when out of memory. */
int bl_gpu_seen_of(const bl_pci_list *node, hwloc_const_bitmap_t cpus,
                   bl_gpu_env_get get, void *ctx, bl_gpu_seen *out,
                   char *not_local, size_t len, bl_err *err);

#endif
