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
    BL_OMP_LIBGOMP,
    /* LLVM's libomp and Intel's runtime (one code base): T > P puts the
     * T mod P extra threads on every (P / (T mod P))-th place from the
     * parent's, consecutive thread numbers per place; spread with T <= P
     * starts thread i at place floor(i * (P + 1) / T) from the parent's. */
    BL_OMP_LLVM
} bl_omp_flavour;

/* The runtime modelled. libomp and Intel's share their affinity code;
 * they differ from libgomp in the places they take by default, in
 * OMP_PROC_BIND=true (spread for them, close for libgomp), in the team
 * rules above, and in reading KMP_AFFINITY (docs/openmp-model.md). */
typedef enum bl_omp_runtime {
    BL_OMP_RT_LIBGOMP,
    BL_OMP_RT_LIBOMP,
    BL_OMP_RT_INTEL
} bl_omp_runtime;

/* "libgomp", "libomp" (also "llvm"), "intel" (also "iomp5"). */
int bl_omp_runtime_parse(const char *name, bl_omp_runtime *out, bl_err *err);

const char *bl_omp_runtime_name(bl_omp_runtime rt);

/* What one rank's OpenMP runtime reads. NULL or "" = unset. kmp_affinity
 * and kmp_hw_subset are read by libomp and Intel only. */
typedef struct bl_omp_env {
    bl_omp_runtime runtime;
    const char *places;
    const char *proc_bind;
    const char *kmp_affinity;
    const char *kmp_hw_subset;
} bl_omp_env;

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

/* bl_omp_assign for any runtime: plan->runtime names the runtime and says
 * "modelled by bindlab". */
int bl_omp_assign_env(hwloc_topology_t topo, int rank,
                      hwloc_const_bitmap_t rank_pus, const bl_omp_env *env,
                      int nthreads, bl_plan *plan, bl_err *err);

/* KMP_AFFINITY's own placement (compact, scatter, balanced, explicit) of
 * nthreads threads inside rank_pus: *masks gets nthreads sets (free with
 * bl_omp_places_free(*masks, nthreads)); *masks NULL when the threads stay
 * unbound (none, disabled, no valid proc in proclist). plan_omp_kmp.c. */
int bl_omp_kmp_masks(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     const char *kmp_affinity, int nthreads,
                     hwloc_bitmap_t **masks, bl_err *err);

/* KMP_HW_SUBSET: into kept, the rank's PUs the runtime keeps (sockets,
 * cores per socket, threads per core numbered among the rank's PUs, as
 * the runtimes number the machine they may use). All of rank_pus when the
 * runtime ignores the value: libgomp; libomp when an item asks for more
 * units than there are; both when nothing would be left. -1 with err on
 * bad syntax or what is not modelled (units other than s, c, t; cores
 * where NUMA nodes, dies or L3 caches split the rank's part of a package).
 * note (NULL, or note_len bytes) gets why the runtime ignores the value,
 * "" when it does not. plan_omp_kmp.c. */
int bl_omp_hw_subset(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     bl_omp_runtime rt, const char *kmp_hw_subset,
                     hwloc_bitmap_t kept, char *note, size_t note_len,
                     bl_err *err);

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
                       hwloc_const_bitmap_t rank_pus, const bl_omp_env *env,
                       int nthreads, bl_plan *plan, bl_err *err);

void bl_omp_memo_free(bl_omp_memo *m);

#endif
