/* What the run file says about the node and the environment: CPU model,
 * MPI library, compiler, OpenMP runtime, kernel, NUMA balancing, whether
 * it is a virtual or emulated machine, the hwloc
 * topology as XML, and the OMP_* / launcher / binding variables. */
#ifndef BL_APP_MACHINE_H
#define BL_APP_MACHINE_H

#include <stddef.h>

#include <hwloc.h>

#include "h5/h5schema.h"

/* Fills m (strings malloc'ed; free with bl_h5_machine_free). */
void bl_machine_describe(hwloc_topology_t topo, bl_h5_machine *m);

/* The environment variables that decide placement: OMP_*, GOMP_*, KMP_*,
 * OMPI_*, PMIX_RANK, PRTE_*, SLURM_*, HWLOC_*, I_MPI_*, MPICH_*, HYDRA_*,
 * MV2_*, OPENBLAS_*, LIKWID_*. Rows are malloc'ed; free with
 * bl_h5_table_free(&bl_h5_env_def, ...). */
void bl_machine_env(bl_h5_env **rows, size_t *n);

/* The value of name in rows, or "" when unset. */
const char *bl_machine_env_get(const bl_h5_env *rows, size_t n,
                               const char *name);

#endif
