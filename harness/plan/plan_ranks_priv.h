/* Shared by the plan_ranks*.c files only: one question to the launcher,
 * below the entry points of plan_ranks.h (which may split a plan of
 * several nodes into such questions, node by node). */
#ifndef BL_PLAN_RANKS_PRIV_H
#define BL_PLAN_RANKS_PRIV_H
#ifndef BL_ROOM_PLAN
#error "plan/plan_ranks_priv.h is internal to harness/plan/: include plan/plan_ranks.h"
#endif

#include "plan/plan_ranks.h"

/* The request's launcher (its --version answer), else `mpirun` in PATH,
 * detected once per process: every plan of a sweep uses the same one, and
 * `mpirun --version` costs as much as a small plan. */
int bl_plan_ranks_launcher(const bl_plan_request *req,
                           bl_launcher_info *info, const char **program,
                           bl_err *err);

/* bl_plan_ranks (launched 0) or bl_plan_ranks_launched (1) as one call of
 * the launcher for the whole job, never node by node. */
int bl_plan_ranks_one(const bl_plan_request *req, hwloc_topology_t topo,
                      const char *preload, int launched, bl_plan *out,
                      bl_err *err);

#endif
