/* Shared by the files of `bindlab check` (placement_check*.c) only. */
#ifndef BL_PLACEMENT_CHECK_PRIV_H
#define BL_PLACEMENT_CHECK_PRIV_H

#include "placement_check.h"

/* Appends a finding (dropped when f is full). */
void bl_pcheck_add(bl_pcheck_findings *f, const char *id,
                   bl_pcheck_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A node or CPU list as text; "none" for the empty set, cut with "+". */
typedef struct bl_pcheck_list { char s[160]; } bl_pcheck_list;
bl_pcheck_list bl_pcheck_list_text(hwloc_const_bitmap_t set);

/* "s" unless set holds one element. */
const char *bl_pcheck_plural(hwloc_const_bitmap_t set);

/* Is the runtime libomp or Intel's libiomp5? They share one code base and
 * one behaviour for every rule here. */
int bl_pcheck_llvm(const bl_pcheck_state *s);

/* The OpenMP rules (placement_check_omp.c). */
void bl_pcheck_openmp(const bl_pcheck_state *s, bl_pcheck_findings *f);

/* The first item of an OpenMP list value ("spread,close" -> "spread"),
 * trimmed, into buf. */
void bl_pcheck_first_item(const char *v, char *buf, size_t len);

/* Does KMP_AFFINITY name a binding type (compact, scatter, explicit, none,
 * ...)? Then LLVM's runtimes ignore OMP_PLACES, OMP_PROC_BIND and
 * GOMP_CPU_AFFINITY; modifiers alone (verbose) change nothing. */
int bl_pcheck_kmp_binds(const char *kmp_affinity);

/* CPUs named by the variable in effect outside s->cpus; a GOMP_CPU_AFFINITY
 * that is no list (placement_check_omp_cpus.c). */
void bl_pcheck_places_outside(const bl_pcheck_state *s, bl_pcheck_findings *f);

/* n threads bound to SMT siblings of one core while cores idle. */
void bl_pcheck_smt(const bl_pcheck_state *s, long n, bl_pcheck_findings *f);

/* s->omp_runtime from the objects this process loaded, or given when not
 * BL_OMP_RT_UNKNOWN (placement_check_runtime.c). */
void bl_pcheck_gather_runtime(bl_pcheck_state *s, bl_omp_runtime given);

#endif
