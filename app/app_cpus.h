/* The rank's PUs as kernels see them (kernel.h's bl_kernel_cpu: OS index
 * and hwloc logical indexes of core, L3, NUMA node, package), and the size
 * of the last-level cache above them. */
#ifndef BL_APP_CPUS_H
#define BL_APP_CPUS_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "kernel.h"

/* *out (malloc'ed, *n entries, hwloc logical order) for the PUs of set;
 * *llc the largest cache above the first of them (0 unknown). 0 or -1. */
int bl_app_kernel_cpus(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                       bl_kernel_cpu **out, int *n, size_t *llc, bl_err *err);

#endif
