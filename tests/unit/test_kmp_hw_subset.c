/* KMP_HW_SUBSET: the parser (harness/plan/plan_kmp_subset.c), the subset
 * libomp and Intel's runtime keep (plan_omp_kmp.c, bl_omp_hw_subset) and
 * the threads placed inside it (bl_omp_assign_env), on synthetic nodes.
 * Expectations worked by hand from the PU numbering of hwloc's synthetic
 * topologies: on "pack:2 core:4 pu:2" package p holds PUs 8p..8p+7 and
 * its core k PUs 8p+2k and 8p+2k+1. The rules (counted among the rank's
 * PUs; libomp ignores an item asking for too many units, Intel's keeps
 * what exists) are those both runtimes showed on the development VM
 * (tests/fixtures/omp/kmp-*-hw-subset*.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bindreport/bindreport.h"
#include "cpuset.h"
#include "plan/plan_kmp.h"
#include "plan/plan_omp.h"

#include "bl_test_files.h"

#define SMT_NODE "pack:2 core:4 pu:2"

/* The PUs runtime rt keeps of rank's PUs (a list), as a list; or "error:
 * MESSAGE". */
static const char *kept(const char *topo, const char *rt, const char *rank,
                        const char *value)
{
    static char out[1100];
    hwloc_topology_t t = bl_test_topology(topo);
    hwloc_bitmap_t pus = hwloc_bitmap_alloc(), k = hwloc_bitmap_alloc();
    bl_omp_runtime r;
    bl_err err;
    assert_int_equal(bl_omp_runtime_parse(rt, &r, &err), 0);
    assert_int_equal(bl_cpuset_parse_list(rank, pus, &err), 0);
    if (bl_omp_hw_subset(t, pus, r, value, k, NULL, 0, &err) < 0)
        snprintf(out, sizeof out, "error: %s", err.msg);
    else
        bl_cpuset_format_list(k, out, sizeof out);
    hwloc_bitmap_free(pus);
    hwloc_bitmap_free(k);
    hwloc_topology_destroy(t);
    return out;
}

static void subset_both_runtimes(void **state)
{
    static const struct {
        const char *value, *pus;
    } cases[] = {
        {"1s", "0-7"},
        {"1s@1", "8-15"},
        {"2c", "0-3,8-11"},          /* cores per socket */
        {"2c@1", "2-5,10-13"},
        {"1t", "0,2,4,6,8,10,12,14"}, /* threads per core */
        {"1s,2c,1t", "0,2"},
        {"1t,1c,1s", "0"},            /* order does not matter */
        {"*c@3", "6-7,14-15"},        /* all cores from the fourth */
        {"c@2,1T@1", "5,7,13,15"},
        {"2cores,1thread", "0,2,8,10"},
        {"1c:eff0", "0-1,8-9"},       /* attribute ignored: not hybrid */
        {"1s@2", "0-15"},             /* nothing left: ignored */
        {"", "0-15"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_string_equal(kept(SMT_NODE, "libomp", "0-15", cases[i].value), cases[i].pus);
        assert_string_equal(kept(SMT_NODE, "intel", "0-15", cases[i].value), cases[i].pus);
        /* libgomp reads no KMP_* variable */
        assert_string_equal(kept(SMT_NODE, "libgomp", "0-15", cases[i].value), "0-15");
    }
}

/* Where libomp and Intel's part, and units numbered among the rank's PUs
 * (as each runtime numbers the machine its process may use: taskset -c 1
 * with 1c kept CPU 1). */
static void subset_by_runtime_and_rank(void **state)
{
    static const struct {
        const char *rt, *rank, *value, *pus;
    } cases[] = {
        /* 5 cores asked of 4: libomp ignores the whole value ("too many
         * requested"), Intel's keeps the 4 and applies the rest */
        {"libomp", "0-15", "5c,1t", "0-15"},
        {"intel", "0-15", "5c,1t", "0,2,4,6,8,10,12,14"},
        {"libomp", "0-15", "3c@2", "0-15"},
        {"intel", "0-15", "3c@2", "4-7,12-15"},
        {"libomp", "0-15", "3t", "0-15"},
        {"intel", "0-15", "3t", "0-15"},
        /* PUs 4-11: cores 2, 3 of package 0 and cores 0, 1 of package 1 */
        {"libomp", "4-11", "1c", "4-5,8-9"},
        {"libomp", "4-11", "1s", "4-7"},
        {"libomp", "4-11", "1c@1", "6-7,10-11"},
        /* one PU of core 0, both of core 1: the first thread of each */
        {"intel", "1-3", "1t", "1-2"},
        /* 2 cores of the rank's package: offset 2 is too many for libomp */
        {"libomp", "2-5", "1c@2", "2-5"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(kept(SMT_NODE, cases[i].rt, cases[i].rank, cases[i].value),
                            cases[i].pus);
}

/* Why a value changes nothing, for bindlab plan's note. */
static void subset_notes(void **state)
{
    hwloc_topology_t t = bl_test_topology(SMT_NODE);
    hwloc_bitmap_t pus = hwloc_bitmap_alloc(), k = hwloc_bitmap_alloc();
    char note[256];
    bl_err err;
    (void)state;
    hwloc_bitmap_set_range(pus, 0, 15);
    assert_int_equal(bl_omp_hw_subset(t, pus, BL_OMP_RT_LIBOMP, "5c,1t", k, note, sizeof note, &err), 0);
    assert_string_equal(note, "libomp ignores KMP_HW_SUBSET=5c,1t (\"too many requested\"): "
                              "cores per socket: at most 4 here");
    assert_int_equal(bl_omp_hw_subset(t, pus, BL_OMP_RT_INTEL, "1s@2", k, note, sizeof note, &err), 0);
    assert_string_equal(note, "KMP_HW_SUBSET=1s@2 keeps none of the CPUs: the runtime ignores it");
    assert_int_equal(bl_omp_hw_subset(t, pus, BL_OMP_RT_LIBGOMP, "1c", k, note, sizeof note, &err), 0);
    assert_string_equal(note, "libgomp ignores KMP_HW_SUBSET=1c");
    assert_int_equal(bl_omp_hw_subset(t, pus, BL_OMP_RT_INTEL, "5c,1t", k, note, sizeof note, &err), 0);
    assert_string_equal(note, "");
    hwloc_bitmap_free(pus);
    hwloc_bitmap_free(k);
    hwloc_topology_destroy(t);
}

static void subset_not_modelled(void **state)
{
    static const char *const values[] = {"1n", "1L2", "2d", "1c,2c"};
    (void)state;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const char *e = kept(SMT_NODE, "libomp", "0-15", values[i]);
        assert_non_null(strstr(e, "error: KMP_HW_SUBSET"));
        assert_non_null(strstr(e, "not modelled"));
    }
    /* cores per socket where NUMA nodes split the package: refused;
     * threads per core do not depend on it */
    assert_non_null(strstr(kept("pack:1 numa:2 core:2 pu:2", "intel", "0-7", "1c"),
                           "not modelled"));
    assert_string_equal(kept("pack:1 numa:2 core:2 pu:2", "intel", "0-7", "1t"), "0,2,4,6");
    assert_string_equal(kept("pack:1 numa:2 core:2 pu:2", "intel", "0-3", "1c"), "0-1");
    /* a rank across a NUMA boundary: refused; inside one: cores per NUMA
     * node are cores per socket as the runtime sees it */
    assert_non_null(strstr(kept("pack:1 numa:2 core:2 pu:2", "intel", "2-5", "1c"),
                           "not modelled"));
    assert_string_equal(kept("pack:1 numa:2 core:2 pu:2", "libomp", "4-7", "1c@1"), "6-7");
}

/* Each thread's PUs under runtime rt on SMT_NODE's PUs 0-15. */
static const char *threads(const char *rt, const char *bind, const char *kmp,
                           const char *subset, int T)
{
    static char out[1100];
    hwloc_topology_t t = bl_test_topology(SMT_NODE);
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    bl_omp_env env = {BL_OMP_RT_LIBGOMP, NULL, bind, kmp, subset};
    bl_plan p;
    bl_err err;
    assert_int_equal(bl_omp_runtime_parse(rt, &env.runtime, &err), 0);
    hwloc_bitmap_set_range(all, 0, 15);
    memset(&p, 0, sizeof p);
    out[0] = '\0';
    if (bl_omp_assign_env(t, 0, all, &env, T, &p, &err) < 0)
        snprintf(out, sizeof out, "error: %s", err.msg);
    for (size_t i = 0; i < p.nthreads; i++) {
        char set[64];
        bl_cpuset_format_list(p.threads[i].pus, set, sizeof set);
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", set);
    }
    bl_plan_free(&p);
    hwloc_bitmap_free(all);
    hwloc_topology_destroy(t);
    return out;
}

static void placement_inside_the_subset(void **state)
{
    (void)state;
    /* compact over the kept PUs 0, 2, 8, 10 (granularity core: each
     * core cut to its kept PU) */
    assert_string_equal(threads("libomp", NULL, "compact", "2c,1t", 4), "0 2 8 10");
    assert_string_equal(threads("intel", NULL, "scatter", "2c,1t", 2), "0 8");
    /* default places (cores) of package 0 only: spread T=2 over 4 places */
    assert_string_equal(threads("libomp", "spread", NULL, "1s", 2), "0-1 4-5");
    /* unbound threads float over the subset, not the rank */
    assert_string_equal(threads("libomp", NULL, NULL, "1c@1", 2), "2-3,10-11 2-3,10-11");
    assert_string_equal(threads("intel", NULL, "none", "1c@1", 1), "2-3,10-11");
    /* libgomp ignores it */
    assert_string_equal(threads("libgomp", "close", NULL, "1c", 2), "0 1");
    /* affinity disabled: libomp drops the subset, Intel's stops */
    assert_string_equal(threads("libomp", NULL, "disabled", "1c", 1), "0-15");
    assert_non_null(strstr(threads("intel", NULL, "disabled", "1c", 1),
                           "error: KMP_HW_SUBSET '1c' with KMP_AFFINITY disabled"));
}

/* The captures of tests/fixtures/omp/ (the development VM: one package,
 * two cores of one PU) against the model of the same settings: each
 * thread's CPUs as the runtime reported them, in its order. */
static void fixtures_match_the_model(void **state)
{
    static const struct {
        const char *file, *rank, *subset, *kmp;
    } cases[] = {
        {"hw-subset.txt", "0-1", "1c", "compact"},
        {"hw-subset-offset.txt", "0-1", "1c@1", "compact"},
        {"hw-subset-sct.txt", "0-1", "1s,2c,1t", "compact"},
        {"hw-subset-too-many.txt", "0-1", "3c", "compact"},
        {"hw-subset-none-left.txt", "0-1", "1s@1", "compact"},
        {"hw-subset-unbound.txt", "0-1", "1c@1", NULL},
        {"hw-subset-taskset.txt", "1", "1c", "compact"},
    };
    static const char *const rts[] = {"libomp", "intel"};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t k = 0; k < 2; k++) {
            char name[128], real[128] = "", model[128] = "", set[32];
            hwloc_topology_t t = bl_test_topology("pack:1 core:2 pu:1");
            hwloc_bitmap_t rank = hwloc_bitmap_alloc();
            bl_omp_env env = {BL_OMP_RT_LIBOMP, NULL, NULL, cases[i].kmp,
                              cases[i].subset};
            bl_binding_report r;
            bl_plan p;
            bl_err err;
            snprintf(name, sizeof name, "kmp-%s-%s", rts[k], cases[i].file);
            char *text = bl_test_fixture("omp", name);
            assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, t, &r, &err), 0);
            for (size_t j = 0; j < r.count; j++) {
                bl_cpuset_format_list(r.items[j].cpus, set, sizeof set);
                snprintf(real + strlen(real), sizeof real - strlen(real), "%s%s", j ? " " : "", set);
            }
            assert_int_equal(bl_omp_runtime_parse(rts[k], &env.runtime, &err), 0);
            assert_int_equal(bl_cpuset_parse_list(cases[i].rank, rank, &err), 0);
            memset(&p, 0, sizeof p);
            assert_int_equal(bl_omp_assign_env(t, 0, rank, &env, 2, &p, &err), 0);
            for (size_t j = 0; j < p.nthreads; j++) {
                bl_cpuset_format_list(p.threads[j].pus, set, sizeof set);
                snprintf(model + strlen(model), sizeof model - strlen(model), "%s%s", j ? " " : "", set);
            }
            if (strcmp(real, model))
                fail_msg("%s: the runtime printed '%s', the model gives '%s'", name, real, model);
            bl_plan_free(&p);
            bl_bindreport_free(&r);
            free(text);
            hwloc_bitmap_free(rank);
            hwloc_topology_destroy(t);
        }
}

static void parse(void **state)
{
    bl_kmp_hw_subset h;
    bl_err err;
    (void)state;
    assert_int_equal(bl_kmp_hw_subset_parse("1s,2c@1,1t", &h, &err), 0);
    assert_int_equal(h.n, 3);
    assert_int_equal(h.item[0].unit, BL_KMP_UNIT_SOCKET);
    assert_int_equal(h.item[0].count, 1);
    assert_int_equal(h.item[1].unit, BL_KMP_UNIT_CORE);
    assert_int_equal(h.item[1].count, 2);
    assert_int_equal(h.item[1].offset, 1);
    assert_int_equal(h.item[2].unit, BL_KMP_UNIT_THREAD);
    assert_int_equal(bl_kmp_hw_subset_parse(" *C , c@3 ,2Threads ", &h, &err), 0);
    assert_int_equal(h.n, 3);
    assert_int_equal(h.item[0].count, 0);
    assert_int_equal(h.item[1].count, 0);
    assert_int_equal(h.item[1].offset, 3);
    assert_int_equal(h.item[2].count, 2);
    assert_int_equal(bl_kmp_hw_subset_parse("4c:intel_atom,1L3,2numa,1tile", &h, &err), 0);
    assert_string_equal(h.item[0].attr, "intel_atom");
    assert_int_equal(h.item[1].unit, BL_KMP_UNIT_L3);
    assert_int_equal(h.item[2].unit, BL_KMP_UNIT_NUMA);
    assert_int_equal(h.item[3].unit, BL_KMP_UNIT_TILE);
    assert_string_equal(bl_kmp_unit_name(h.item[2].unit), "NUMA domain");
    assert_int_equal(bl_kmp_hw_subset_parse(NULL, &h, &err), 0);
    assert_int_equal(h.n, 0);
    assert_int_equal(bl_kmp_hw_subset_parse("  ", &h, &err), 0);
    assert_int_equal(h.n, 0);
    /* the runtimes warn "invalid value" and ignore these: a plan should
     * not quietly show that */
    static const char *const bad[] = {"0c", "abc", "1x", "1c@", "1c,", ",1c",
                                      "1c;2t", "1c:foo", "1c@-1", "1cc",
                                      "9999999999c", "1 c", "2c@1@2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bl_kmp_hw_subset_parse(bad[i], &h, &err), -1);
        assert_non_null(strstr(err.msg, "KMP_HW_SUBSET '"));
        assert_non_null(strstr(err.msg, "e.g. 1s,2c,1t"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse),
        cmocka_unit_test(subset_both_runtimes),
        cmocka_unit_test(subset_by_runtime_and_rank),
        cmocka_unit_test(subset_notes),
        cmocka_unit_test(subset_not_modelled),
        cmocka_unit_test(placement_inside_the_subset),
        cmocka_unit_test(fixtures_match_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
