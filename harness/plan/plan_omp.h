/* The OpenMP places and proc_bind model: which place (and so which PUs) each
 * OpenMP thread of a rank gets from OMP_PLACES and OMP_PROC_BIND, as the
 * OpenMP 5.x specification describes it and as libgomp (GCC's runtime)
 * actually does it. docs/openmp-model.md explains where the two differ and
 * which one the planner uses (libgomp's). Sets are hwloc bitmaps of OS PU
 * indexes, the numbers OMP_PLACES is written in. */
#ifndef BL_PLAN_OMP_H
#define BL_PLAN_OMP_H

#include <hwloc.h>

#include "err.h"
#include "omp_syntax.h"
#include "plan/plan.h"

/* How the T mod P extra threads are placed when T > P. The specification
 * wants consecutive thread numbers in each place (and leaves which places
 * get one more to the runtime: here the first ones, counted from the
 * parent's place); libgomp fills every place with floor(T/P) threads and
 * then deals the T mod P last threads out one per place from the parent's
 * place. Both agree whenever P divides T, and always when T <= P. */
typedef enum bl_omp_flavour {
    BL_OMP_SPEC,
    BL_OMP_LIBGOMP
} bl_omp_flavour;

/* One thread of a team: its place and its place partition [off, off+len)
 * (spread narrows the partition; close and primary keep the parent's). */
typedef struct bl_omp_slot {
    int place;
    int part_off, part_len;
} bl_omp_slot;

/* The places of one team: nthreads threads whose parent thread runs on place
 * `parent` of the place partition [part_off, part_off+part_len) (place
 * numbers index the whole place list). Fills out[0..nthreads-1]. bind must be
 * TRUE, PRIMARY, CLOSE or SPREAD. */
int bl_omp_team(bl_omp_bind bind, bl_omp_flavour flavour, int nthreads,
                int parent, int part_off, int part_len, bl_omp_slot *out,
                bl_err *err);

/* Places from OMP_PLACES (NULL/"" = unset: the runtime's default, one place
 * per PU), restricted to the rank's cpuset: abstract names threads, cores,
 * ll_caches, numa_domains, sockets (with an optional "(n)" count), or
 * explicit lists "{0:4},{4:4}", "{0,1,2,3}", "{0:4:2}" strides, "{0:4}:2:8"
 * place intervals, "!" to exclude a CPU from a place or a place from the
 * list. Places are ordered as libgomp orders them. As in libgomp, each place
 * is cut down to the rank's PUs and places left empty are dropped; when none
 * is left, *nplaces is 0 and *places NULL (libgomp then ignores OMP_PLACES).
 * Bad syntax or unknown names: -1 with a message naming the value and what
 * is accepted. Free the result with bl_omp_places_free(). */
int bl_omp_places(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, hwloc_bitmap_t **places,
                  int *nplaces, bl_err *err);

/* Thread placement of one rank for nthreads threads under OMP_PLACES and
 * OMP_PROC_BIND (NULL/"" = unset), as libgomp does it: appends rows rank,
 * thread 0..nthreads-1, pus, place to plan->threads and sets plan->runtime.
 * Unbound threads (OMP_PROC_BIND false, or both variables unset) get the
 * whole rank cpuset and place -1. On error plan->threads is unchanged. */
int bl_omp_assign(hwloc_topology_t topo, int rank, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, const char *omp_proc_bind,
                  int nthreads, bl_plan *plan, bl_err *err);

/* Ranks already placed, by topology, PUs and thread count: a rank bound
 * like an earlier one gets a copy of its thread rows instead of the
 * places model run again (10,000 alike nodes cost one node's model). One
 * memo per layout (OMP_PLACES and OMP_PROC_BIND fixed); the plan it fills
 * must not lose thread rows while the memo lives. */
typedef struct bl_omp_memo bl_omp_memo;

/* NULL when out of memory. */
bl_omp_memo *bl_omp_memo_new(void);

/* bl_omp_assign through memo m (ranks in increasing order). */
int bl_omp_assign_memo(bl_omp_memo *m, hwloc_topology_t topo, int rank,
                       hwloc_const_bitmap_t rank_pus, const char *omp_places,
                       const char *omp_proc_bind, int nthreads, bl_plan *plan,
                       bl_err *err);

void bl_omp_memo_free(bl_omp_memo *m);

#endif
