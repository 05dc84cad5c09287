/* Every ISA level of the kernels' hot loops (kernels/isa.h) that this CPU
 * runs computes the same bits as the lowest one, on random input where any
 * change in rounding (a fused multiply-add, a reordered sum) would show;
 * the levels the CPU lacks are named as not testable here. The CPU's
 * levels are taken from /proc/cpuinfo's flags, not from the code under
 * test. */
#include "bl_test.h"

#include <math.h>

#include <omp.h>

#include "isa.h"
#include "lu/dgemm_fallback.h"
#include "stencil/stencil.h"
#include "triad_loop.h"

/* 1 when /proc/cpuinfo's first flags line has every flag in want (space
 * separated); 0 when it lacks one or there is no such line. */
static int cpuinfo_has(const char *want)
{
    char line[8192] = " ", flag[64], padded[80];
    FILE *f = fopen("/proc/cpuinfo", "r");
    int found = 0;
    while (f && fgets(line + 1, sizeof line - 2, f))
        if (strncmp(line + 1, "flags", 5) == 0) {
            line[strcspn(line, "\n")] = '\0';
            strcat(line, " ");
            found = 1;
            break;
        }
    if (f)
        fclose(f);
    for (const char *p = want; found && sscanf(p, "%63s", flag) == 1;
         p += strspn(p, " ") + strlen(flag)) {
        snprintf(padded, sizeof padded, " %s ", flag);
        found = strstr(line, padded) != NULL;
    }
    return found;
}

/* What the machine says of each level (x86-64 psABI levels v1, v3, v4). */
static int machine_runs(bl_isa isa)
{
#if defined(__x86_64__)
    if (isa == BL_ISA_SSE2)
        return 1;
    if (isa == BL_ISA_AVX2)
        return cpuinfo_has("avx2 fma bmi1 bmi2 f16c movbe");
    if (isa == BL_ISA_AVX512)
        return cpuinfo_has("avx2 fma bmi1 bmi2 f16c movbe avx512f avx512bw "
                           "avx512cd avx512dq avx512vl");
    return 0;
#else
    return isa == BL_ISA_GENERIC;
#endif
}

static void isa_detection_matches_the_machine(void **st)
{
    bl_err err;
    (void)st;
    for (int i = 0; i < BL_ISA_COUNT; i++) {
        bl_isa isa = (bl_isa)i;
        assert_int_equal(bl_isa_runs_here(isa), machine_runs(isa));
        if (machine_runs(isa)) {
            assert_int_equal(bl_isa_select(bl_isa_name(isa), &err), 0);
            assert_int_equal(bl_isa_current(), isa);
        } else {
            err.msg[0] = '\0';
            assert_int_equal(bl_isa_select(bl_isa_name(isa), &err), -1);
            assert_non_null(strstr(err.msg, bl_isa_name(isa)));
            print_message("isa %s: not testable on this machine (%s)\n",
                          bl_isa_name(isa), err.msg);
        }
    }
    assert_int_equal(bl_isa_select("avx1024", &err), -1);
    assert_non_null(strstr(err.msg, "accepted are best"));
    assert_int_equal(bl_isa_select(NULL, &err), 0);
    for (int i = bl_isa_current() + 1; i < BL_ISA_COUNT; i++)
        assert_false(machine_runs((bl_isa)i)); /* best is the highest */
}

/* ---- the loops, on random input ------------------------------------- */

enum { NX = 301, NY = 37, LD = 328, TRIAD_N = 10007, GM = 67, GN = 45,
       GK = 150 };

typedef struct outputs {
    double stencil[4][2][LD * NY]; /* radius 1..4, normal / streaming */
    double triad[TRIAD_N];
    double gemm[GM * GN];
    double sub[TRIAD_N];
} outputs;

static double rnd(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Fills every output of the level in use from the same random inputs. */
static void run_loops(outputs *o)
{
    static double in[LD * NY], b[TRIAD_N], c[TRIAD_N], ga[GM * GK],
        gb[GK * GN];
    unsigned long seed = 12345;
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        in[i] = rnd(&seed);
    for (int i = 0; i < TRIAD_N; i++) {
        b[i] = rnd(&seed);
        c[i] = rnd(&seed);
    }
    for (int i = 0; i < GM * GK; i++)
        ga[i] = rnd(&seed);
    for (int i = 0; i < GK * GN; i++)
        gb[i] = rnd(&seed);
    omp_set_num_threads(2);
    for (int r = 1; r <= 4; r++)
        for (int nt = 0; nt < 2; nt++) {
            /* i0 = r + 1: a scalar head before the aligned vectors */
            bl_stencil_rect rect = {r + 1, NX - r, r, NY - r};
            bl_stencil_sweep_cfg cfg = {.streaming = nt, .block_cols = 0};
            double *out = o->stencil[r - 1][nt];
            memset(out, 0, sizeof o->stencil[0][0]);
            bl_stencil_sweep_ex(in, out, LD, r, rect, &cfg);
        }
    bl_triad_loop(o->triad, b, c, TRIAD_N, 1.0 / 3.0);
    for (int i = 0; i < GM * GN; i++)
        o->gemm[i] = 0.25 * (double)i;
    bl_dgemm_fallback(GM, GN, GK, -1.0 / 7.0, ga, GM, gb, GK, o->gemm, GM);
    memcpy(o->sub, b, sizeof o->sub);
    bl_lu_sub_scaled(o->sub, c, 1.0 / 3.0, TRIAD_N);
}

static void isa_levels_compute_identical_bits(void **st)
{
    outputs *ref = calloc(1, sizeof *ref), *got = calloc(1, sizeof *got);
    bl_err err;
    int lowest = -1, compared = 0;
    (void)st;
    assert_non_null(ref);
    assert_non_null(got);
    for (int i = 0; i < BL_ISA_COUNT; i++) {
        if (!bl_isa_runs_here((bl_isa)i))
            continue;
        assert_int_equal(bl_isa_select(bl_isa_name((bl_isa)i), &err), 0);
        run_loops(lowest < 0 ? ref : got);
        if (lowest < 0) {
            lowest = i;
            continue;
        }
        print_message("isa %s against %s: stencil r=1..4 normal and "
                      "streaming, triad, DGEMM, column update\n",
                      bl_isa_name((bl_isa)i), bl_isa_name((bl_isa)lowest));
        assert_memory_equal(ref->stencil, got->stencil, sizeof ref->stencil);
        assert_memory_equal(ref->triad, got->triad, sizeof ref->triad);
        assert_memory_equal(ref->gemm, got->gemm, sizeof ref->gemm);
        assert_memory_equal(ref->sub, got->sub, sizeof ref->sub);
        compared++;
    }
    assert_true(lowest >= 0);
    /* the random input is not trivial: an answer depends on rounding */
    assert_true(ref->triad[0] != 0.0 && ref->stencil[1][0][5 * LD + 9] != 0.0);
    if (compared == 0)
        print_message("isa: only %s runs here; nothing to compare it with\n",
                      bl_isa_name((bl_isa)lowest));
    bl_isa_select(NULL, &err);
    free(ref);
    free(got);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(isa_detection_matches_the_machine),
        cmocka_unit_test(isa_levels_compute_identical_bits),
    };
    const bl_test_group groups[] = {
        BL_GROUP("isa", cases)
    };
    return bl_run_groups(argc, argv, groups);
}
