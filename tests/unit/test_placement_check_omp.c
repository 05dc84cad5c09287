/* The OpenMP rules of bindlab check on states built by hand, for each
 * runtime: the expected findings follow from what each runtime was seen
 * doing with the same values (docs/openmp-model.md, "Linting the OpenMP
 * variables"), and the cores come from hwloc synthetic topologies with SMT,
 * which this machine may not have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "placement_check.h"

/* One node; the process on cpus; cores from the synthetic topology. */
static void state(bl_pcheck_state *s, const char *cpus, const char *synth,
                  bl_omp_runtime rt)
{
    assert_int_equal(bl_pcheck_state_init(s, 1, NULL), 0);
    hwloc_bitmap_list_sscanf(s->cpus, cpus);
    hwloc_bitmap_copy(s->node_cpus[0], s->cpus);
    hwloc_bitmap_only(s->nodes, 0);
    hwloc_bitmap_only(s->mems_allowed, 0);
    s->policy = BL_MPOL_DEFAULT;
    s->numa_balancing = 0;
    s->omp_runtime = rt;
    if (synth) {
        hwloc_topology_t topo;
        assert_int_equal(hwloc_topology_init(&topo), 0);
        assert_int_equal(hwloc_topology_set_synthetic(topo, synth), 0);
        assert_int_equal(hwloc_topology_load(topo), 0);
        assert_int_equal(bl_pcheck_cores_from_topology(s, topo, NULL), 0);
        hwloc_topology_destroy(topo);
    }
}

/* The finding id, or NULL. */
static const bl_pcheck_finding *find(const bl_pcheck_findings *f, const char *id)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->item[i].id, id) == 0)
            return &f->item[i];
    return NULL;
}

/* Finding id is there and its text holds each of the words. */
static void has(const bl_pcheck_state *s, const char *id, const char *word1,
                const char *word2)
{
    bl_pcheck_findings f;
    bl_pcheck_eval(s, &f);
    const bl_pcheck_finding *x = find(&f, id);
    if (!x)
        fail_msg("%s expected, not found (%d findings: %s)", id, f.n,
                 f.n ? f.item[0].text : "");
    assert_int_equal(x->severity, BL_PCHECK_WARNING);
    if (word1 && !strstr(x->text, word1))
        fail_msg("%s: '%s' not in: %s", id, word1, x->text);
    if (word2 && !strstr(x->text, word2))
        fail_msg("%s: '%s' not in: %s", id, word2, x->text);
}

static void hasnt(const bl_pcheck_state *s, const char *id)
{
    bl_pcheck_findings f;
    bl_pcheck_eval(s, &f);
    const bl_pcheck_finding *x = find(&f, id);
    if (x)
        fail_msg("%s not expected: %s", id, x->text);
}

static void places_syntax_each_runtime(void **unused)
{
    (void)unused;
    bl_pcheck_state s;
    state(&s, "0-3", NULL, BL_OMP_RT_UNKNOWN);
    s.omp_places = "{0:";
    has(&s, "omp-places-invalid", "at character 4",
        "\"libgomp: Invalid value for environment variable OMP_PLACES\"");
    s.omp_runtime = BL_OMP_RT_LIBOMP;
    has(&s, "omp-places-invalid", "at character 4", "using \"cores\".");
    s.omp_runtime = BL_OMP_RT_INTEL;
    has(&s, "omp-places-invalid", "libiomp5", "syntax error, using threads.");
    /* forms libgomp takes and LLVM's runtimes refuse */
    s.omp_places = " threads ";
    has(&s, "omp-places-invalid", "white space", NULL);
    s.omp_places = "{0,1,!1}";
    s.omp_runtime = BL_OMP_RT_LIBOMP;
    has(&s, "omp-places-invalid", "'!' inside a place", NULL);
    s.omp_runtime = BL_OMP_RT_LIBGOMP;
    hasnt(&s, "omp-places-invalid");
    s.omp_places = "{0:2}:2:2"; /* good everywhere */
    hasnt(&s, "omp-places-invalid");
    s.omp_runtime = BL_OMP_RT_INTEL;
    hasnt(&s, "omp-places-invalid");
    s.omp_places = "cores(2)";
    hasnt(&s, "omp-places-invalid");
    bl_pcheck_state_free(&s);
}

static void proc_bind_syntax_each_runtime(void **unused)
{
    (void)unused;
    bl_pcheck_state s;
    state(&s, "0-3", NULL, BL_OMP_RT_LIBGOMP);
    s.omp_proc_bind = "spread,bogus";
    has(&s, "omp-proc-bind-invalid", "at character 8",
        "\"libgomp: Invalid value for environment variable OMP_PROC_BIND\"");
    s.omp_runtime = BL_OMP_RT_LIBOMP;
    has(&s, "omp-proc-bind-invalid",
        "\"OMP: Warning #42: OMP_PROC_BIND: \"spread,bogus\" is an invalid "
        "value; ignored.\"", NULL);
    s.omp_proc_bind = "spread,close";
    hasnt(&s, "omp-proc-bind-invalid");
    bl_pcheck_state_free(&s);
}

static void kmp_and_gomp_variables_by_runtime(void **unused)
{
    (void)unused;
    bl_pcheck_state s;
    state(&s, "0-3", NULL, BL_OMP_RT_LIBGOMP);
    s.kmp_affinity = "compact";
    s.omp_proc_bind = "spread";
    has(&s, "kmp-ignored", "libgomp reads no KMP_* variable", "OMP_PROC_BIND");
    hasnt(&s, "kmp-affinity-overrides");
    s.omp_runtime = BL_OMP_RT_LIBOMP;
    hasnt(&s, "kmp-ignored");
    has(&s, "kmp-affinity-overrides",
        "\"OMP: Warning #182: OMP_PROC_BIND: ignored because KMP_AFFINITY "
        "has been defined\"", NULL);
    s.kmp_affinity = "verbose"; /* a modifier alone: OMP_* still rule */
    hasnt(&s, "kmp-affinity-overrides");
    s.kmp_affinity = "granularity=fine,explicit,proclist=[0,1]";
    has(&s, "kmp-affinity-overrides", NULL, NULL);
    s.gomp_cpu_affinity = "1 0";
    has(&s, "gomp-cpu-affinity-ignored",
        "GOMP_CPU_AFFINITY: ignored because KMP_AFFINITY", NULL);
    s.kmp_affinity = NULL;
    has(&s, "gomp-cpu-affinity-overrides",
        "\"OMP: Warning #182: OMP_PROC_BIND: ignored because "
        "GOMP_CPU_AFFINITY has been defined\"", NULL);
    s.omp_runtime = BL_OMP_RT_LIBGOMP; /* libgomp honours it... */
    hasnt(&s, "gomp-cpu-affinity-overrides");
    hasnt(&s, "gomp-cpu-affinity-ignored");
    s.omp_places = "cores"; /* ...unless OMP_PLACES is set */
    has(&s, "gomp-cpu-affinity-ignored", "libgomp uses OMP_PLACES only", NULL);
    s.gomp_cpu_affinity = "1 x";
    s.omp_places = NULL;
    has(&s, "gomp-cpu-affinity-invalid", "enviroment variable GOMP_CPU_AFFINITY", NULL);
    s.gomp_cpu_affinity = NULL;
    s.kmp_hw_subset = "1c";
    has(&s, "kmp-ignored", "KMP_HW_SUBSET=1c", NULL);
    s.omp_runtime = BL_OMP_RT_INTEL;
    has(&s, "kmp-hw-subset", "Intel's libiomp5", NULL);
    bl_pcheck_state_free(&s);
}

static void places_outside_the_allowed_cpus(void **unused)
{
    (void)unused;
    bl_pcheck_state s;
    state(&s, "0-3", NULL, BL_OMP_RT_LIBGOMP);
    s.omp_proc_bind = "close";
    s.omp_places = "{0},{1},{6,7}";
    has(&s, "places-outside-allowed", "names CPUs 6-7",
        "\"libgomp: Number of places reduced from 3 to 2 because some places "
        "didn't contain any usable logical CPUs\"");
    s.omp_places = "{3,4}"; /* the place keeps CPU 3 */
    has(&s, "places-outside-allowed", "names CPU 4", "without a word");
    s.omp_places = "{8:2}";
    has(&s, "places-outside-allowed", "None of the places contain usable", NULL);
    s.omp_runtime = BL_OMP_RT_LIBOMP;
    has(&s, "places-outside-allowed",
        "\"OMP: Warning #124: Ignoring invalid OS proc ID 8.\"",
        "Warning #125: No valid OS proc IDs specified");
    s.omp_places = "{0:4}";
    hasnt(&s, "places-outside-allowed");
    s.kmp_affinity = "explicit,proclist=[0,{1,2},5-6]"; /* overrides OMP_PLACES */
    has(&s, "places-outside-allowed", "KMP_AFFINITY", "names CPUs 5-6");
    s.omp_runtime = BL_OMP_RT_LIBGOMP; /* ignored there: nothing to say */
    hasnt(&s, "places-outside-allowed");
    s.omp_places = NULL;
    s.gomp_cpu_affinity = "0-3 9";
    has(&s, "places-outside-allowed", "GOMP_CPU_AFFINITY='0-3 9' names CPU 9",
        "\"libgomp: Thread creation failed: Invalid argument\"");
    bl_pcheck_state_free(&s);
}

/* 4 cores x 2 SMT threads, siblings numbered next to each other. */
#define SMT_NEAR "pack:1 core:4 pu:2"
/* The same with siblings N and N+4, as many x86 machines number them. */
#define SMT_FAR "pack:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)"

static void smt_siblings_from_hwloc(void **unused)
{
    (void)unused;
    bl_pcheck_state s;
    state(&s, "0-7", SMT_NEAR, BL_OMP_RT_LIBGOMP);
    assert_int_equal(s.core_of[1], 0);
    assert_int_equal(s.core_of[7], 6);
    s.omp_num_threads = "2";
    s.omp_proc_bind = "close";
    s.omp_places = "threads";
    has(&s, "smt-siblings", "CPUs 0-1", "cores 2,4,6 of the process stay idle");
    s.omp_places = NULL; /* libgomp's default places are threads too */
    has(&s, "smt-siblings", "OMP_PLACES unset", NULL);
    s.omp_runtime = BL_OMP_RT_LIBOMP; /* LLVM's default places are cores */
    hasnt(&s, "smt-siblings");
    s.omp_runtime = BL_OMP_RT_LIBGOMP;
    s.omp_places = "cores";
    hasnt(&s, "smt-siblings");
    s.omp_places = "threads";
    s.omp_proc_bind = "spread"; /* places 0 and 4: two cores */
    hasnt(&s, "smt-siblings");
    s.omp_proc_bind = "close";
    s.omp_num_threads = "8"; /* every CPU: sharing cannot be helped */
    hasnt(&s, "smt-siblings");
    s.omp_num_threads = "3";
    s.omp_places = "{0},{1},{2}";
    has(&s, "smt-siblings", "OMP_PLACES={0},{1},{2}", "sharing core 0 (");
    s.omp_places = NULL;
    s.gomp_cpu_affinity = "0 1 2";
    has(&s, "smt-siblings", "GOMP_CPU_AFFINITY='0 1 2'", NULL);
    bl_pcheck_state_free(&s);

    state(&s, "0-7", SMT_FAR, BL_OMP_RT_LIBGOMP);
    assert_int_equal(s.core_of[4], 0);
    s.omp_num_threads = "2";
    s.omp_proc_bind = "close";
    s.omp_places = "threads"; /* core by core: CPUs 0 and 4 */
    has(&s, "smt-siblings", "CPUs 0,4", NULL);
    s.omp_places = "{0},{1}"; /* two cores */
    hasnt(&s, "smt-siblings");
    bl_pcheck_state_free(&s);

    /* Two CPUs of one core allowed: no core idles. */
    state(&s, "0-1", SMT_NEAR, BL_OMP_RT_LIBGOMP);
    s.omp_num_threads = "2";
    s.omp_proc_bind = "close";
    hasnt(&s, "smt-siblings");
    bl_pcheck_state_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(places_syntax_each_runtime),
        cmocka_unit_test(proc_bind_syntax_each_runtime),
        cmocka_unit_test(kmp_and_gomp_variables_by_runtime),
        cmocka_unit_test(places_outside_the_allowed_cpus),
        cmocka_unit_test(smt_siblings_from_hwloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
