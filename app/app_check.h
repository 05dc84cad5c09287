/* --check: every rank judges its own placement with the rules of
 * `bindlab check` (common/placement_check.h) right after the memory policy
 * is set and before anything is touched, and rank 0 gathers the findings
 * into the run file's `findings` table and prints them on stderr. */
#ifndef BL_APP_CHECK_H
#define BL_APP_CHECK_H

#include <stddef.h>

#include <hwloc.h>
#include <mpi.h>

#include "err.h"
#include "h5/h5schema.h"
#include "placement_check.h"

/* This rank's findings (f->n 0 when clean). rank_cpus: the rank's binding
 * as read before the first OpenMP region (afterwards /proc/self/status
 * shows only the master thread's place, not the rank's CPUs). The memory
 * policy is read now, as --mem-policy left it. A state that cannot be read
 * becomes one note saying so: --check never stops a run. */
void bl_app_check_local(hwloc_const_bitmap_t rank_cpus,
                        bl_pcheck_findings *f);

/* Collective: every rank's findings to rank 0, which fills *rows and *nrows
 * (each rank names its own host) and prints one line per finding on
 * stderr. Elsewhere rows stays NULL. -1 on
 * rank 0 when out of memory (the findings are then what is lost). */
int bl_app_check_gather(MPI_Comm comm, const bl_pcheck_findings *mine,
                        bl_h5_finding **rows, size_t *nrows, bl_err *err);

#endif
