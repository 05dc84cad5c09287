/* For *_isa.c files only, which CMake compiles once per ISA level with
 * BL_ISA_SUFFIX set to _sse2, _avx2, _avx512 (or _generic): BL_ISA_FN(f)
 * is f with that suffix, the name kernels/isa.h's BL_ISA_VARIANTS finds. */
#ifndef BL_ISA_LEVEL_H
#define BL_ISA_LEVEL_H

#ifndef BL_ISA_SUFFIX
#error "an *_isa.c file is compiled by CMake once per level, with BL_ISA_SUFFIX"
#endif

#define BL_ISA_CAT2(a, b) a##b
#define BL_ISA_CAT(a, b) BL_ISA_CAT2(a, b)
#define BL_ISA_FN(name) BL_ISA_CAT(name, BL_ISA_SUFFIX)

#endif
