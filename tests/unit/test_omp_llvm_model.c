/* The libomp/Intel side of the places model (harness/plan/plan_omp.c's
 * BL_OMP_LLVM team rules, plan_omp_kmp.c's KMP_AFFINITY placement,
 * plan_kmp.c's parser): cases measured with libomp 14 and libiomp5 2026.2
 * on the development VM (the team rules, place lists repeating two CPUs),
 * and KMP_AFFINITY on a synthetic two-package SMT node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "plan/plan_kmp.h"
#include "plan/plan_omp.h"

/* The places of a team of T on P places, parent on place 0, as "0 0 1". */
static const char *team(bl_omp_bind bind, int T, int P)
{
    static char out[256];
    bl_omp_slot s[64];
    bl_err err;
    out[0] = '\0';
    assert_int_equal(bl_omp_team(bind, BL_OMP_LLVM, T, 0, 0, P, s, &err), 0);
    for (int i = 0; i < T; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", i ? " " : "", s[i].place);
    return out;
}

/* Measured (tests/integration/test_omp_runtimes.sh runs some of them):
 * T > P puts the extra threads on every (P / (T mod P))-th place; P
 * dividing T (the fuzzer found a division by zero there); spread with
 * T <= P puts thread i at floor(i (P+1) / T). */
static void llvm_team_rules(void **state)
{
    static const struct {
        bl_omp_bind bind;
        int T, P;
        const char *places;
    } cases[] = {
        {BL_OMP_BIND_CLOSE, 7, 5, "0 0 1 2 2 3 4"},
        {BL_OMP_BIND_CLOSE, 8, 5, "0 0 1 1 2 2 3 4"},
        {BL_OMP_BIND_SPREAD, 12, 5, "0 0 0 1 1 2 2 2 3 3 4 4"},
        {BL_OMP_BIND_CLOSE, 3, 2, "0 0 1"},
        {BL_OMP_BIND_CLOSE, 4, 2, "0 0 1 1"},
        {BL_OMP_BIND_SPREAD, 6, 3, "0 0 1 1 2 2"},
        {BL_OMP_BIND_SPREAD, 4, 5, "0 1 3 4"},
        {BL_OMP_BIND_SPREAD, 3, 8, "0 3 6"},
        {BL_OMP_BIND_SPREAD, 5, 8, "0 1 3 5 7"},
        {BL_OMP_BIND_SPREAD, 2, 4, "0 2"},
        {BL_OMP_BIND_CLOSE, 3, 5, "0 1 2"},
        {BL_OMP_BIND_PRIMARY, 3, 5, "0 0 0"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(team(cases[i].bind, cases[i].T, cases[i].P), cases[i].places);
}

/* Each thread's PUs on "pack:2 core:2 pu:2" (PUs 0-7, core 0 = 0-1). */
static const char *kmp(const char *runtime, const char *places, const char *bind,
                       const char *kmp_affinity, int T)
{
    static char out[512];
    hwloc_topology_t t;
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    bl_plan p;
    bl_err err;
    bl_omp_env env = {BL_OMP_RT_LIBGOMP, places, bind, kmp_affinity, NULL};
    assert_int_equal(bl_omp_runtime_parse(runtime, &env.runtime, &err), 0);
    assert_int_equal(hwloc_topology_init(&t), 0);
    assert_int_equal(hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:2"), 0);
    assert_int_equal(hwloc_topology_load(t), 0);
    hwloc_bitmap_set_range(all, 0, 7);
    memset(&p, 0, sizeof p);
    assert_int_equal(bl_omp_assign_env(t, 0, all, &env, T, &p, &err), 0);
    out[0] = '\0';
    for (size_t i = 0; i < p.nthreads; i++) {
        char set[64];
        bl_cpuset_format_list(p.threads[i].pus, set, sizeof set);
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", set);
    }
    if (strcmp(runtime, "libgomp") == 0)
        assert_string_equal(p.runtime, "libgomp");
    else
        assert_non_null(strstr(p.runtime, "modelled by bindlab"));
    bl_plan_free(&p);
    hwloc_bitmap_free(all);
    hwloc_topology_destroy(t);
    return out;
}

static void kmp_affinity_placement(void **state)
{
    (void)state;
    assert_string_equal(kmp("libomp", NULL, NULL, "compact", 4), "0-1 0-1 2-3 2-3");
    assert_string_equal(kmp("intel", NULL, NULL, "compact,nodups", 3), "0-1 2-3 4-5");
    assert_string_equal(kmp("libomp", NULL, NULL, "compact,granularity=fine", 3), "0 1 2");
    assert_string_equal(kmp("libomp", NULL, NULL, "scatter", 4), "0-1 4-5 2-3 6-7");
    assert_string_equal(kmp("libomp", NULL, NULL, "scatter,granularity=fine", 5), "0 4 2 6 1");
    assert_string_equal(kmp("libomp", NULL, NULL, "scatter,0,2", 2), "2-3 6-7");
    assert_string_equal(kmp("libomp", NULL, NULL, "granularity=socket,compact", 2), "0-3 0-3");
    assert_string_equal(kmp("libomp", NULL, NULL, "balanced", 6), "0-1 0-1 2-3 2-3 4-5 6-7");
    assert_string_equal(kmp("libomp", NULL, NULL, "balanced,granularity=fine", 6), "0 1 2 3 4 6");
    assert_string_equal(kmp("libomp", NULL, NULL, "explicit,proclist=[7,{0,1},9]", 3), "7 0-1 7");
    assert_string_equal(kmp("libomp", NULL, NULL, "explicit,proclist=[9]", 2), "0-7 0-7");
    assert_string_equal(kmp("libomp", NULL, NULL, "none", 2), "0-7 0-7");
    /* a type overrides OMP_PLACES/OMP_PROC_BIND; libgomp ignores KMP_AFFINITY */
    assert_string_equal(kmp("intel", "{5}", "close", "compact,granularity=fine", 2), "0 1");
    assert_string_equal(kmp("libgomp", "{5}", "close", "compact,granularity=fine", 2), "5 5");
    /* true and OMP_PLACES alone: spread for libomp, close for libgomp;
     * default places: cores, and PUs for libgomp */
    assert_string_equal(kmp("libomp", NULL, "true", NULL, 2), "0-1 4-5");
    assert_string_equal(kmp("libgomp", NULL, "true", NULL, 2), "0 1");
    assert_string_equal(kmp("libomp", "threads", NULL, NULL, 2), "0 4");
    assert_string_equal(kmp("libomp", NULL, "close", "granularity=fine", 2), "0 1");
    /* an explicit list with no CPU of the rank: libomp does not bind */
    assert_string_equal(kmp("libomp", "{9}", "close", NULL, 2), "0-7 0-7");
    assert_string_equal(kmp("libgomp", "{9}", "close", NULL, 2), "0 1");
}

/* A proclist range past any CPU (the fuzzer's 45555...-5555...: strtol
 * saturates at LONG_MAX, and the range's counter overflowed) is refused
 * with its text, not expanded. */
static void kmp_affinity_huge_range_refused(void **state)
{
    hwloc_topology_t t;
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    bl_plan p;
    bl_err err;
    bl_omp_env env = {BL_OMP_RT_LIBOMP, NULL, NULL,
                      "explicit,proclist=[4555555555555555555555-5555555555555555555555,5]",
                      NULL};
    (void)state;
    assert_int_equal(hwloc_topology_init(&t), 0);
    assert_int_equal(hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:2"), 0);
    assert_int_equal(hwloc_topology_load(t), 0);
    hwloc_bitmap_set_range(all, 0, 7);
    memset(&p, 0, sizeof p);
    assert_int_equal(bl_omp_assign_env(t, 0, all, &env, 2, &p, &err), -1);
    assert_non_null(strstr(err.msg, "goes past CPU 65535"));
    bl_plan_free(&p);
    hwloc_bitmap_free(all);
    hwloc_topology_destroy(t);
}

static void kmp_affinity_parse(void **state)
{
    bl_kmp_affinity k;
    bl_err err;
    (void)state;
    assert_int_equal(bl_kmp_affinity_parse("verbose,granularity=fine,scatter,1,2", &k, &err), 0);
    assert_int_equal(k.type, BL_KMP_SCATTER);
    assert_int_equal(k.gran, BL_KMP_GRAN_THREAD);
    assert_int_equal(k.permute, 1);
    assert_int_equal(k.offset, 2);
    assert_true(k.verbose && k.dups && k.respect && k.warnings);
    assert_int_equal(bl_kmp_affinity_parse("explicit,proclist=[0-3,{4,5}],nodups", &k, &err), 0);
    assert_string_equal(k.proclist, "0-3,{4,5}");
    assert_false(k.dups);
    assert_int_equal(bl_kmp_affinity_parse("", &k, &err), 0);
    assert_int_equal(k.type, BL_KMP_UNSET);
    static const char *const bad[] = {"compact,1,2,3", "none,1", "bogus", "compact,",
                                      "compact,scatter", "explicit", "proclist=[1,0",
                                      "granularity=huge,compact", "7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bl_kmp_affinity_parse(bad[i], &k, &err), -1);
        assert_non_null(strstr(err.msg, "KMP_AFFINITY"));
    }
    bl_omp_runtime rt;
    assert_int_equal(bl_omp_runtime_parse("iomp5", &rt, &err), 0);
    assert_int_equal(rt, BL_OMP_RT_INTEL);
    assert_int_equal(bl_omp_runtime_parse("msvc", &rt, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llvm_team_rules),
        cmocka_unit_test(kmp_affinity_placement),
        cmocka_unit_test(kmp_affinity_huge_range_refused),
        cmocka_unit_test(kmp_affinity_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
