/* The PCI functions of this node as Linux's sysfs shows them
 * (bus/pci/devices/DOMAIN:BUS:DEV.FN/{vendor,class,numa_node,
 * local_cpulist}): what a rank may learn of the GPUs near it without any
 * GPU runtime. The root is /sys, or the directory BINDLAB_SYSFS_ROOT names:
 * a fake tree holding only those files, meant for tests (a machine without
 * GPUs can then play one that has them). */
#ifndef BL_SYSFS_PCI_H
#define BL_SYSFS_PCI_H

#include <hwloc.h>

#include "err.h"

typedef struct bl_pci_fn {
    char busid[16];             /* "0000:34:00.0" */
    unsigned vendor;            /* 0x10de */
    unsigned class_id;          /* class and subclass: 0x0302 */
    int numa_node;              /* -1 when the kernel does not know */
    hwloc_bitmap_t local_cpus;  /* local_cpulist; empty when unreadable */
} bl_pci_fn;

typedef struct bl_pci_list {
    bl_pci_fn *fn;              /* in bus id order */
    int n;
} bl_pci_list;

/* BINDLAB_SYSFS_ROOT when set and not empty, else "/sys". */
const char *bl_sysfs_root(void);

/* The GPUs (bl_pci_is_gpu) under root/bus/pci/devices, in bus order. No
 * such directory: 0 functions (a node without PCI in sysfs). -1 with err
 * when out of memory. */
int bl_pci_gpus_read(const char *root, bl_pci_list *out, bl_err *err);

void bl_pci_list_free(bl_pci_list *l);

#endif
