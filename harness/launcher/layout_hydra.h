/* Layouts spelled for the detected launcher, and the Hydra command line,
 * under the names the sweep's tests know; both go through the launcher
 * table (launcher.h). Open MPI's layouts (layout.h) are the user's
 * language: each launcher translates one into what it does the same way,
 * or refuses it with the reason; nothing is approximated.
 * docs/launchers.md has the table. */
#ifndef BL_LAYOUT_HYDRA_H
#define BL_LAYOUT_HYDRA_H

#include "launcher/launcher_info.h"
#include "layout/layout.h"

/* Fills l's *_launcher fields for the launcher: Open MPI (and srun, whose
 * argv is built from the parsed layout) as bl_layout_translate; MPICH
 * Hydra with its -map-by and -bind-to values ("core:2"); Intel MPI with
 * its pinning variables ("I_MPI_PIN_DOMAIN=core", "I_MPI_PIN_ORDER=
 * compact"). Returns -1 with the reason when the launcher cannot express
 * the layout ("MPICH has no ppr over package: ..."). topo: the node (Intel
 * MPI's domain of P cores is P x PUs-per-core logical CPUs). */
int bl_layout_translate_for(bl_layout *l, const bl_launcher_info *li,
                            hwloc_topology_t topo, bl_err *err);

/* MPICH: env HYDRA_TOPO_DEBUG=1 MPIEXEC -np N -bind-to B -map-by M
 *   [-ppn P] -genv OMP_... APP ...
 * Intel MPI: MPIEXEC -np N [-ppn P] -genv I_MPI_PIN_DOMAIN D
 *   -genv I_MPI_PIN_ORDER O -genv I_MPI_DEBUG 4 -genv OMP_... APP ...
 * (HYDRA_TOPO_DEBUG is read by Hydra's proxy, which inherits mpiexec's
 * environment, not -genv's.) Call bl_layout_translate_for first. */
char **bl_layout_hydra_argv(const bl_layout *l, const bl_kernel_spec *k,
                            const bl_layout_argv_opts *o,
                            const bl_launcher_info *li, bl_err *err);

#endif
