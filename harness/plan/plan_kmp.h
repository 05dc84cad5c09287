/* KMP_AFFINITY, the affinity variable of LLVM's libomp and Intel's
 * runtime, as a value: a pure parser (no topology), shared by the planner
 * (plan_omp.c) and by lints of the environment. Syntax, as both runtimes
 * read it: a comma-separated list of modifiers and one type,
 *   [verbose|noverbose,][warnings|nowarnings,][respect|norespect,]
 *   [dups|nodups,][granularity=G,][proclist=[LIST],]TYPE[,PERMUTE[,OFFSET]]
 * TYPE: compact, scatter, balanced, explicit, none, disabled, logical,
 * physical; G: fine, thread, core, tile, die, socket, package. Words are
 * case-insensitive; "duplicates"/"noduplicates" spell dups. */
#ifndef BL_PLAN_KMP_H
#define BL_PLAN_KMP_H

#include "err.h"

typedef enum bl_kmp_type {
    BL_KMP_UNSET,       /* no type given: OMP_PROC_BIND/OMP_PLACES rule */
    BL_KMP_NONE,        /* not bound (OMP_PROC_BIND then ignored) */
    BL_KMP_DISABLED,    /* affinity switched off altogether */
    BL_KMP_COMPACT,
    BL_KMP_SCATTER,
    BL_KMP_BALANCED,
    BL_KMP_EXPLICIT,    /* proclist=[...] */
    BL_KMP_LOGICAL,     /* old spelling of compact */
    BL_KMP_PHYSICAL     /* old spelling of scatter */
} bl_kmp_type;

typedef enum bl_kmp_gran {
    BL_KMP_GRAN_DEFAULT, /* core for compact/scatter, as documented */
    BL_KMP_GRAN_THREAD,  /* "fine" or "thread" */
    BL_KMP_GRAN_CORE,
    BL_KMP_GRAN_TILE,
    BL_KMP_GRAN_DIE,
    BL_KMP_GRAN_SOCKET   /* "socket" or "package" */
} bl_kmp_gran;

typedef struct bl_kmp_affinity {
    bl_kmp_type type;
    bl_kmp_gran gran;
    int permute, offset; /* the integers after compact/scatter (0 unset) */
    int verbose;         /* 1 verbose, 0 not */
    int warnings;        /* 1 (the default) or 0 for nowarnings */
    int respect;         /* 1 (the default) or 0 for norespect */
    int dups;            /* 1 (the default) or 0 for nodups */
    char proclist[256];  /* inside proclist=[...], "" when not given */
} bl_kmp_affinity;

/* NULL or "" gives type BL_KMP_UNSET and the defaults. A bad word, a
 * second type, explicit without proclist or numbers after a type that takes
 * none: -1 with a message naming the value and what is accepted. */
int bl_kmp_affinity_parse(const char *text, bl_kmp_affinity *out, bl_err *err);

/* "compact", "scatter", ...; "unset" for BL_KMP_UNSET. */
const char *bl_kmp_type_name(bl_kmp_type t);

/* "default", "fine", "core", "tile", "die", "socket". */
const char *bl_kmp_gran_name(bl_kmp_gran g);

/* KMP_HW_SUBSET, which restricts the machine libomp and Intel's runtime see
 * before any binding: items [COUNT|*]UNIT[@OFFSET][:ATTRIBUTE] separated
 * by commas, e.g. "1s,2c,1t", "2c@1", "*c". COUNT is per unit of the level
 * above (cores per socket, threads per core); without one (or with '*')
 * all units are kept. Parsed by plan_kmp_subset.c, pure, no topology. */
typedef enum bl_kmp_unit {
    BL_KMP_UNIT_SOCKET, /* s, socket, package */
    BL_KMP_UNIT_DIE,    /* d, die */
    BL_KMP_UNIT_TILE,   /* tile */
    BL_KMP_UNIT_NUMA,   /* n, numa */
    BL_KMP_UNIT_L3,
    BL_KMP_UNIT_L2,
    BL_KMP_UNIT_L1,
    BL_KMP_UNIT_CORE,   /* c, core */
    BL_KMP_UNIT_THREAD  /* t, thread */
} bl_kmp_unit;

#define BL_KMP_SUBSET_MAX 16

typedef struct bl_kmp_subset_item {
    bl_kmp_unit unit;
    int count;          /* units kept per parent unit; 0: all */
    int offset;         /* units skipped first */
    char attr[16];      /* "intel_core", "intel_atom", "effN" or "" */
} bl_kmp_subset_item;

typedef struct bl_kmp_hw_subset {
    int n;              /* 0: unset */
    bl_kmp_subset_item item[BL_KMP_SUBSET_MAX];
} bl_kmp_hw_subset;

/* NULL or blank: n 0. Bad syntax, a count of 0, an unknown unit or
 * attribute: -1 with a message naming KMP_HW_SUBSET, the value, where it
 * went wrong and an example that parses. */
int bl_kmp_hw_subset_parse(const char *text, bl_kmp_hw_subset *out,
                           bl_err *err);

/* "socket", "core", "thread", ... */
const char *bl_kmp_unit_name(bl_kmp_unit u);

#endif
