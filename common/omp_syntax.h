/* The syntax of OpenMP's affinity variables OMP_PROC_BIND and OMP_PLACES,
 * as libgomp (GCC's runtime) accepts them: shared by the planner
 * (plan/plan_omp*.c, which turns places into PUs on a topology) and
 * `bindlab check` (which lints the process's own settings). Sets are hwloc
 * bitmaps of OS PU indexes, the numbers OMP_PLACES is written in. Errors
 * name the variable, its value, the character where reading stopped and
 * what is accepted. */
#ifndef BL_OMP_SYNTAX_H
#define BL_OMP_SYNTAX_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"

/* The first level of OMP_PROC_BIND. */
typedef enum bl_omp_bind {
    BL_OMP_BIND_UNSET,   /* not given (NULL or "") */
    BL_OMP_BIND_FALSE,
    BL_OMP_BIND_TRUE,    /* libgomp treats it as close */
    BL_OMP_BIND_PRIMARY, /* also spelled "master" */
    BL_OMP_BIND_CLOSE,
    BL_OMP_BIND_SPREAD
} bl_omp_bind;

/* "false", "true", "primary", "master", "close", "spread", or a nesting list
 * of the last four ("spread,close"): only the first level is returned.
 * Case and white space do not matter. NULL or "" gives BL_OMP_BIND_UNSET. */
int bl_omp_parse_bind(const char *text, bl_omp_bind *out, bl_err *err);

/* OMP_PLACES' abstract names, in the order of level_names. */
typedef enum bl_omp_level {
    BL_OMP_LEVEL_THREADS,
    BL_OMP_LEVEL_CORES,
    BL_OMP_LEVEL_LL_CACHES,
    BL_OMP_LEVEL_NUMA,
    BL_OMP_LEVEL_SOCKETS
} bl_omp_level;

/* OMP_PLACES as an abstract name ("cores", "CORES ( 4 )"): 1 with *level
 * and *count (LONG_MAX without a count); NULL or blank is "threads" (the
 * runtime's default). 0 when the text is no name (an explicit list); -1
 * with err for an unknown name or a bad count. */
int bl_omp_places_name(const char *text, bl_omp_level *level, long *count,
                       bl_err *err);

/* An explicit OMP_PLACES list ("{0:4},{4:4}", "{0,1,2,3}", "{0:4:2}",
 * "{0:4}:2:8", "!" excluding a CPU from a place or a place from the list)
 * into *places, in the order written, not cut to any cpuset. -1 with err on
 * bad syntax. Free the result with bl_omp_places_free(). */
int bl_omp_places_explicit(const char *text, hwloc_bitmap_t **places,
                           int *nplaces, bl_err *err);

void bl_omp_places_free(hwloc_bitmap_t *places, int nplaces);

/* A growing list of places. */
typedef struct bl_omp_place_list {
    hwloc_bitmap_t *v;
    int n;
    size_t cap;
} bl_omp_place_list;

/* Appends b to l, which takes it; frees b and returns -1 when l cannot
 * grow (or b is NULL). */
int bl_omp_place_push(bl_omp_place_list *l, hwloc_bitmap_t b);

#endif
