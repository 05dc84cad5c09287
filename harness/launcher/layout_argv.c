/* The command-line entry points layout.h and layout_hydra.h name, each the
 * one builder (launcher_command.c) for a launcher of that family. */
#include "launcher/launcher.h"
#include "launcher/layout_hydra.h"

#include <stdlib.h>
#include <string.h>

static char **run_argv(const bl_launcher_info *li, const bl_layout *l,
                       const bl_kernel_spec *k, const bl_layout_argv_opts *o,
                       bl_err *err)
{
    bl_command c;
    char **argv;
    if (bl_launcher_command(li, l, k, o, NULL, &c, err) < 0)
        return NULL;
    argv = c.argv;
    c.argv = NULL;
    bl_command_free(&c);
    return argv;
}

char **bl_layout_mpirun_argv(const bl_layout *l, const bl_kernel_spec *k,
                             const bl_layout_argv_opts *o, bl_err *err)
{
    /* a run's mpirun words are the same for every Open MPI version */
    static const bl_launcher_info ompi = {BL_LAUNCHER_OPENMPI, 4, 1, 0, ""};
    return run_argv(&ompi, l, k, o, err);
}

char **bl_layout_srun_argv(const bl_layout *l, const bl_kernel_spec *k,
                           const bl_layout_argv_opts *o, bl_err *err)
{
    static const bl_launcher_info srun = {BL_LAUNCHER_SLURM, 0, 0, 0, ""};
    return run_argv(&srun, l, k, o, err);
}

char **bl_layout_hydra_argv(const bl_layout *l, const bl_kernel_spec *k,
                            const bl_layout_argv_opts *o,
                            const bl_launcher_info *li, bl_err *err)
{
    return run_argv(li, l, k, o, err);
}

int bl_layout_translate_for(bl_layout *l, const bl_launcher_info *li,
                            hwloc_topology_t topo, bl_err *err)
{
    return bl_launcher_translate(l, li, topo, err);
}

void bl_kernel_spec_clear(bl_kernel_spec *k)
{
    for (int i = 0; i < k->nargs; i++)
        free(k->args[i]);
    memset(k, 0, sizeof *k);
}
