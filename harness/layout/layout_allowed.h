/* Layouts checked against the CPUs this job may use (common/allowed.h):
 * the sweep and `bindlab run` refuse, before launching, a layout wider
 * than the allowed set, with the set named. */
#ifndef BL_LAYOUT_ALLOWED_H
#define BL_LAYOUT_ALLOWED_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "layout/layout.h"

/* The calling process's allowed set cut out of topo (bl_allowed_restrict)
 * into *job, and the set with its sources in words into desc ("0 (affinity
 * 0, cgroup cpuset 0-1)"). *job is NULL when the set holds every PU of
 * topo. 0, or -1 with err. Release *job with hwloc_topology_destroy(). */
int bl_layout_job_load(hwloc_topology_t topo, hwloc_topology_t *job,
                       char *desc, size_t len, bl_err *err);

/* bl_layout_validate on job (the allowed set, desc naming it), the refusal
 * prefixed with the set; on topo when job is NULL. */
int bl_layout_validate_job(const bl_layout *l, hwloc_topology_t topo,
                           hwloc_topology_t job, const char *desc,
                           int oversubscribe, bl_layout_check *out,
                           bl_err *err);

#endif
