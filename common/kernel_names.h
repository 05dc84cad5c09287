/* The names of bindlab-app's kernels, for the harness, which does not link
 * the kernels: a sweep file naming another one is refused when it is read,
 * not at each of its runs. kernels/registry.c is where a kernel is added;
 * unit.test_sweep_file fails when this list and the registry differ. */
#ifndef BL_KERNEL_NAMES_H
#define BL_KERNEL_NAMES_H

#define BL_KERNEL_NAMES "triad, stencil, lu, shared, latency, c2c"

/* 1 when name is one of BL_KERNEL_NAMES. */
int bl_kernel_name_known(const char *name);

#endif
