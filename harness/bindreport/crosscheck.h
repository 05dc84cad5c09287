/* The cross-check: per rank, the cpuset the launcher claimed (its binding
 * report) against the one the rank recorded, and the flags that explain a
 * placement: mismatches, ranks spanning NUMA nodes, threads sharing a PU,
 * OpenMP threads left unbound, remote pages, pages the kernel moved after
 * first touch, huge pages across shares, NUMA balancing, migrations. */
#ifndef BL_CROSSCHECK_H
#define BL_CROSSCHECK_H

#include <stddef.h>

#include "bindreport/bindreport.h"
#include "h5/h5schema.h"

/* Below this fraction of pages on the threads' own NUMA nodes, a run is
 * flagged remote-pages. */
#define BL_LOCAL_PAGES_MIN 0.9

/* The flags, in the order they are written ("a,b,c"):
 *   binding-mismatch  a rank's recorded cpuset differs from the report
 *   host-mismatch     a rank ran on another host than its report line names
 *   outside-allowed   a rank's binding reaches CPUs outside the ones the
 *                     job may use (bl_crosscheck_allowed): a launcher
 *                     binding past taskset, which does not confine it
 *   rank-spans-numa   the threads of one rank ran on more than one NUMA node
 *   pu-shared         two threads ended on the same PU of one host
 *   omp-unbound       OMP_PROC_BIND unset or false: threads may wander
 *   remote-pages      local page fraction below BL_LOCAL_PAGES_MIN
 *   pages-migrated    the kernel moved pages after first touch
 *                     (bl_flag_pages_migrated, common/shares.h)
 *   huge-page-straddle huge pages straddle the threads' shares, so first
 *                     touch cannot be exact (bl_flag_huge_straddle)
 *   numa-balancing    /proc/sys/kernel/numa_balancing is on
 *   migrated          a thread migrated during the timed region */

/* The CPUs the job may use on one host (common/allowed.h): a rank the
 * launcher left unbound (Open MPI's "not bound", Slurm's NONE) may run
 * anywhere in that set, not anywhere on the node, so its claim is read as
 * the set. */
typedef struct bl_crosscheck_allowed {
    const char *host; /* the host the set was read on; NULL or "": all */
    const char *cpus; /* a list ("0-3"); NULL or "": unknown */
} bl_crosscheck_allowed;

/* run: the app's run (NULL when it wrote none); report: the launcher's
 * parsed report (NULL or empty when it printed none); allowed: NULL when
 * unknown. Fills *checks (one
 * row per rank of the run, malloc'ed; free with bl_h5_table_free) and the
 * comma-separated flags. Returns how many ranks mismatch. */
int bl_crosscheck(const bl_binding_report *report, const bl_h5_run *run,
                  int numa_balancing, const bl_crosscheck_allowed *allowed,
                  bl_h5_check **checks, size_t *nchecks,
                  char *flags, size_t flags_len);

#endif
