#include "isa.h"

#include <stdio.h>
#include <string.h>

static const char *const names[BL_ISA_COUNT] = {"generic", "sse2", "avx2",
                                                 "avx512"};

/* -1: nothing selected yet (bl_isa_current then gives the best) */
static int selected = -1;

const char *bl_isa_name(bl_isa isa)
{
    return (unsigned)isa < BL_ISA_COUNT ? names[isa] : "unknown";
}

int bl_isa_built(bl_isa isa)
{
#ifdef BL_ISA_X86
    return isa == BL_ISA_SSE2 || isa == BL_ISA_AVX2 || isa == BL_ISA_AVX512;
#else
    return isa == BL_ISA_GENERIC;
#endif
}

#ifdef BL_ISA_X86
/* What -march=x86-64-v3 and -v4 let the compiler emit, as the CPU and the
 * OS (saved vector state) allow it: GCC knows the levels by name, clang
 * before 19 only the features, and not F16C or MOVBE, which every CPU
 * with AVX2, FMA and BMI2 has. */
static int cpu_has(bl_isa isa)
{
    __builtin_cpu_init();
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    if (isa == BL_ISA_AVX512)
        return __builtin_cpu_supports("x86-64-v4") != 0;
    if (isa == BL_ISA_AVX2)
        return __builtin_cpu_supports("x86-64-v3") != 0;
#else
    if (isa == BL_ISA_AVX512)
        return cpu_has(BL_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
    if (isa == BL_ISA_AVX2)
        return __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
#endif
    return isa == BL_ISA_SSE2; /* the x86-64 baseline */
}
#endif

int bl_isa_runs_here(bl_isa isa)
{
    if (!bl_isa_built(isa))
        return 0;
#ifdef BL_ISA_X86
    return cpu_has(isa);
#else
    return 1;
#endif
}

bl_isa bl_isa_best(void)
{
    for (int i = BL_ISA_COUNT - 1; i > 0; i--)
        if (bl_isa_runs_here((bl_isa)i))
            return (bl_isa)i;
    return bl_isa_built(BL_ISA_GENERIC) ? BL_ISA_GENERIC : BL_ISA_SSE2;
}

void bl_isa_list_here(char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < BL_ISA_COUNT; i++)
        if (bl_isa_runs_here((bl_isa)i) && used < len) {
            int n = snprintf(buf + used, len - used, "%s%s",
                             used ? "," : "", names[i]);
            used += n > 0 ? (size_t)n : 0;
        }
}

int bl_isa_select(const char *asked, bl_err *err)
{
    char here[64];
    if (!asked || !*asked || strcmp(asked, "best") == 0) {
        selected = (int)bl_isa_best();
        return 0;
    }
    bl_isa_list_here(here, sizeof here);
    for (int i = 0; i < BL_ISA_COUNT; i++) {
        if (strcmp(asked, names[i]) != 0)
            continue;
        if (!bl_isa_built((bl_isa)i))
            return bl_err_set(err, "ISA level '%s': this build has no %s "
                              "code (it has: %s)", asked, asked, here);
        if (!bl_isa_runs_here((bl_isa)i))
            return bl_err_set(err, "ISA level '%s': this CPU cannot run it "
                              "(it runs: %s)", asked, here);
        selected = i;
        return 0;
    }
    return bl_err_set(err, "ISA level '%s': accepted are best, generic, "
                      "sse2, avx2, avx512 (this build and CPU run: %s)",
                      asked, here);
}

bl_isa bl_isa_current(void)
{
    if (selected < 0)
        selected = (int)bl_isa_best();
    return (bl_isa)selected;
}
