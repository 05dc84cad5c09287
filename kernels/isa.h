/* Runtime dispatch by the CPU's instruction set. The hot loops of the
 * kernels (stencil rows, triad, the LU's own DGEMM and panel updates) live
 * in files named *_isa.c, which CMake compiles once per level with that
 * level's flags: on x86-64 sse2 (-march=x86-64, the baseline), avx2
 * (-march=x86-64-v3: AVX2, FMA, BMI) and avx512 (-march=x86-64-v4:
 * AVX-512 F/BW/CD/DQ/VL); elsewhere once, as "generic". Each compile names
 * its functions with the level's suffix (BL_ISA_FN, isa_level.h), and the
 * kernels call the variant of the level chosen at start: the best one the
 * CPU supports, or a lower one asked for (BINDLAB_ISA, --isa) for
 * benchmarks and tests. docs/kernels/isa.md. */
#ifndef BL_ISA_H
#define BL_ISA_H

#include <stddef.h>

#include "err.h"

typedef enum bl_isa {
    BL_ISA_GENERIC, /* no x86 paths in this build (another architecture) */
    BL_ISA_SSE2,
    BL_ISA_AVX2,
    BL_ISA_AVX512,
    BL_ISA_COUNT
} bl_isa;

/* The level as BINDLAB_ISA and the run file spell it: "generic", "sse2",
 * "avx2", "avx512". */
const char *bl_isa_name(bl_isa isa);

/* 1 when this build has code for isa (the x86 levels on x86-64, generic
 * elsewhere). */
int bl_isa_built(bl_isa isa);

/* 1 when this build has code for isa and this CPU (and OS) can run it. */
int bl_isa_runs_here(bl_isa isa);

/* The best level that runs here. */
bl_isa bl_isa_best(void);

/* The levels that run here, lowest first, comma-separated: "sse2,avx2". */
void bl_isa_list_here(char *buf, size_t len);

/* Chooses the level the kernels use from now on: the best one when asked
 * is NULL or "" (or "best"), else the named one. A name that is no level,
 * a level this build lacks, or one this CPU cannot run is refused (-1,
 * with a line naming the level and the ones that run here); the choice is
 * then left as it was. */
int bl_isa_select(const char *asked, bl_err *err);

/* The level in use: the one selected, the best one before any select. */
bl_isa bl_isa_current(void);

/* The variants of a kernel function in a table indexed by bl_isa: on x86
 * the generic slot runs the sse2 variant (SSE2 is the x86-64 baseline). */
#ifdef BL_ISA_X86
#define BL_ISA_VARIANTS(name) \
    {name##_sse2, name##_sse2, name##_avx2, name##_avx512}
#define BL_ISA_DECLARE(ret, name, params) \
    ret name##_sse2 params;               \
    ret name##_avx2 params;               \
    ret name##_avx512 params
#else
#define BL_ISA_VARIANTS(name) {name##_generic, NULL, NULL, NULL}
#define BL_ISA_DECLARE(ret, name, params) ret name##_generic params
#endif

#endif
