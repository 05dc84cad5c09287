/* bindlab-gpu-wrap: the per-rank wrapper a sweep puts in front of the
 * program when GPUs are dealt (docs/devices.md). It reads its local rank
 * from the launcher's environment, its binding (its own affinity, as the
 * launcher left it) and the node's GPUs from sysfs (BINDLAB_SYSFS_ROOT for
 * tests), deals the GPUs with the same function bindlab plan uses, sets
 * CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / ZE_AFFINITY_MASK and
 * BINDLAB_GPUS, and execs the program: no shell, nothing left running.
 *
 *   bindlab-gpu-wrap [--gpu-bind closest|round-robin|none]
 *                    [--gpus-per-rank N] [--] PROGRAM [ARGS...]
 *
 * Exit status 127 when it cannot start the program (as env(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_visible.h"

#define NAME "bindlab-gpu-wrap"
#define EXIT_CANNOT 127

static int usage(const char *why)
{
    fprintf(stderr, NAME ": %s\nusage: " NAME " [--gpu-bind closest|"
            "round-robin|none] [--gpus-per-rank N] [--] PROGRAM [ARGS...]\n",
            why);
    return EXIT_CANNOT;
}

/* Sets the variables of this rank; 0, or -1 after saying why. */
static int set_visible(bl_gpu_bind how, int per_rank)
{
    bl_pci_list gpus;
    bl_gpu_visible vis;
    const char *from;
    hwloc_bitmap_t cpus;
    bl_err err;
    int lr;

    if (how == BL_GPU_BIND_NONE)
        return 0;
    if ((lr = bl_gpu_local_rank(&from, &err)) < 0 ||
        bl_pci_gpus_read(bl_sysfs_root(), &gpus, &err) < 0) {
        fprintf(stderr, NAME ": %s\n", err.msg);
        return -1;
    }
    if (!(cpus = bl_gpu_own_cpus())) {
        fprintf(stderr, NAME ": cannot read this process's affinity\n");
        bl_pci_list_free(&gpus);
        return -1;
    }
    bl_gpu_visible_make(how, per_rank, lr, cpus, &gpus, &vis);
    for (int i = 0; i < vis.n; i++)
        setenv(vis.name[i], vis.value[i], 1);
    /* CUDA numbers GPUs fastest first unless told to use bus order */
    if (vis.n)
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
    hwloc_bitmap_free(cpus);
    bl_pci_list_free(&gpus);
    return 0;
}

int main(int argc, char **argv)
{
    bl_gpu_bind how = BL_GPU_BIND_CLOSEST;
    int per_rank = 1, i = 1;
    bl_err err;

    while (i < argc && argv[i][0] == '-') {
        const char *opt = argv[i++], *v = i < argc ? argv[i] : NULL;
        if (!strcmp(opt, "--"))
            break;
        if (!v)
            return usage("an option without its value");
        i++;
        if (!strcmp(opt, "--gpu-bind")) {
            if (bl_gpu_bind_parse(v, &how, &err) < 0)
                return usage(err.msg);
        } else if (!strcmp(opt, "--gpus-per-rank")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 1024)
                return usage("--gpus-per-rank: accepted: 1 to 1024");
            per_rank = (int)n;
        } else {
            return usage("unknown option");
        }
    }
    if (i >= argc)
        return usage("no program to run");
    if (set_visible(how, per_rank) < 0)
        return EXIT_CANNOT;
    execvp(argv[i], argv + i);
    fprintf(stderr, NAME ": %s: cannot run it\n", argv[i]);
    return EXIT_CANNOT;
}
