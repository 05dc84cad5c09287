/* A placement plan drawn by hwloc's lstopo: a copy of the topology gets a
 * Misc object naming the threads on each core or PU ("0.3" = thread 3 of
 * rank 0) and a background colour per rank on the PUs its pinned threads
 * use; lstopo draws that copy (exported to a temporary XML file) as PNG,
 * SVG or PDF. lstopo runs from an argv, never through a shell. */
#ifndef BL_PLAN_PICTURE_H
#define BL_PLAN_PICTURE_H

#include <hwloc.h>

#include "err.h"
#include "plan/plan.h"

/* "png", "svg" or "pdf" from the file name's extension (any case), or NULL
 * when the extension is none of those. */
const char *bl_plan_picture_format(const char *path);

/* The annotated copy of topo (release with hwloc_topology_destroy). Threads
 * pinned within one core are named by a Misc child of the smallest object
 * holding them (a PU or the core); threads bound to a wider place by a Misc
 * child of the object covering that place; ranks whose threads are not
 * bound by one Misc child ("rank 2: threads float") of the object covering
 * the rank's binding. Several names on one object share one Misc object. */
int bl_plan_picture_topology(hwloc_topology_t topo, const bl_plan *p,
                             hwloc_topology_t *out, bl_err *err);

/* bl_plan_picture's return when path must not be replaced (a device,
 * directory, FIFO or socket, or a link to one; or a directory that cannot
 * be written): bad input, not a failure of lstopo. */
#define BL_PLAN_PICTURE_REFUSED (-2)

/* Draws p on topo into path (format from its extension), written under a
 * temporary name and renamed, so path is complete or absent. title (may be
 * NULL) is added to the legend under the picture. Returns 0; -1 with the
 * reason when lstopo is missing, cannot write that format, or fails;
 * BL_PLAN_PICTURE_REFUSED (checked before lstopo runs and again before the
 * rename) when path is not a regular file or absent. */
int bl_plan_picture(hwloc_topology_t topo, const bl_plan *p, const char *path,
                    const char *title, bl_err *err);

#endif
