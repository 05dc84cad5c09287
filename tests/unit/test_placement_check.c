/* The rules of bindlab check on placements built by hand, for what one
 * NUMA node cannot show: a node of two (node 0 = CPUs 0-3, node 1 = CPUs
 * 4-7) and the memory settings numactl would make there. The expected
 * findings follow from the settings' meaning (e.g. --cpunodebind=0
 * --membind=1: every page remote), not from running the code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "placement_check.h"

/* Two nodes, default policy, the process on cpus, memory allowed on both. */
static void two_nodes(bl_pcheck_state *s, const char *cpus)
{
    assert_int_equal(bl_pcheck_state_init(s, 2, NULL), 0);
    hwloc_bitmap_set_range(s->node_cpus[0], 0, 3);
    hwloc_bitmap_set_range(s->node_cpus[1], 4, 7);
    hwloc_bitmap_set_range(s->nodes, 0, 1);
    hwloc_bitmap_set_range(s->mems_allowed, 0, 1);
    hwloc_bitmap_list_sscanf(s->cpus, cpus);
    s->policy = BL_MPOL_DEFAULT;
    s->numa_balancing = 0;
    strcpy(s->thp, "madvise");
}

static void policy(bl_pcheck_state *s, int mode, const char *nodes)
{
    s->policy = mode;
    hwloc_bitmap_list_sscanf(s->policy_nodes, nodes);
}

/* The severity of finding id: 'w', 'n', or 0 when absent. */
static char found(const bl_pcheck_findings *f, const char *id)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->item[i].id, id) == 0)
            return f->item[i].severity == BL_PCHECK_WARNING ? 'w' : 'n';
    return 0;
}

static void one_node_default_is_clean(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3");
    hwloc_bitmap_only(s.mems_allowed, 0); /* numactl --membind=0 via cpuset */
    bl_pcheck_eval(&s, &f);
    assert_int_equal(f.n, 0);
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

static void membind_remote_node_is_misaligned(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --membind=1 */
    policy(&s, BL_MPOL_BIND, "1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "cpu-mem-nodes"), 'w');
    assert_non_null(strstr(f.item[0].text, "every page is remote"));
    assert_int_equal(f.warnings, 1);
    bl_pcheck_state_free(&s);
}

static void membind_same_node_is_clean(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "4-7"); /* --cpunodebind=1 --membind=1 */
    policy(&s, BL_MPOL_BIND, "1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(f.warnings, 0);
    assert_int_equal(f.n, 0);
    bl_pcheck_state_free(&s);
}

static void membind_one_of_two_cpu_nodes_is_partly_remote(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-7"); /* --membind=0, CPUs everywhere */
    policy(&s, BL_MPOL_BIND, "0");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "cpu-mem-nodes"), 'w');
    assert_non_null(strstr(f.item[0].text, "threads on node 1 get remote"));
    assert_int_equal(found(&f, "cpus-cross-nodes"), 'w');
    bl_pcheck_state_free(&s);
}

static void membind_wider_than_cpus_is_a_note(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --membind=0,1 */
    policy(&s, BL_MPOL_BIND, "0-1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "mem-nodes-wider"), 'n');
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

static void cpuset_mems_without_the_cpus_node_is_misaligned(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* cgroup: cpuset.cpus 0-3, cpuset.mems 1 */
    hwloc_bitmap_only(s.mems_allowed, 1);
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "cpu-mem-nodes"), 'w');
    bl_pcheck_state_free(&s);
}

static void localalloc_on_a_subset_notes_the_wider_mask(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --localalloc */
    policy(&s, BL_MPOL_LOCAL, "");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "local-mask-wider"), 'n');
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

static void preferred_remote_node_is_misaligned(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --preferred=1 */
    policy(&s, BL_MPOL_PREFERRED, "1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "preferred-remote"), 'w');
    bl_pcheck_state_free(&s);
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --preferred=0 */
    policy(&s, BL_MPOL_PREFERRED, "0");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "preferred-remote"), 0);
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

static void interleave_all_from_one_node_is_a_note(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --interleave=all */
    policy(&s, BL_MPOL_INTERLEAVE, "0-1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "interleave-remote"), 'n');
    assert_non_null(strstr(f.item[0].text, "1 of every 2 pages"));
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
    two_nodes(&s, "0-3"); /* --cpunodebind=0 --interleave=1 */
    policy(&s, BL_MPOL_INTERLEAVE, "1");
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "cpu-mem-nodes"), 'w');
    bl_pcheck_state_free(&s);
}

static void numa_balancing_warns_only_with_two_nodes(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3");
    s.numa_balancing = 1;
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "numa-balancing"), 'w');
    /* it says what balancing does to a first-touch measurement */
    for (int i = 0; i < f.n; i++)
        if (strcmp(f.item[i].id, "numa-balancing") == 0)
            assert_non_null(strstr(f.item[i].text, "a serial first touch "
                                   "can read as mostly local"));
    hwloc_bitmap_only(s.nodes, 0);
    hwloc_bitmap_only(s.mems_allowed, 0);
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "numa-balancing"), 'n');
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

static void slurm_verbosity_alone_does_not_bind(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3");
    hwloc_bitmap_only(s.mems_allowed, 0);
    strcpy(s.mpirun_binding, "OMPI_MCA_hwloc_base_binding_policy=core");
    s.slurm_cpu_bind = "verbose,none";
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "double-binding"), 0);
    s.slurm_cpu_bind = "verbose";
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "double-binding"), 0);
    s.slurm_cpu_bind = "verbose,mask_cpu:0x3,0xc";
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "double-binding"), 'w');
    bl_pcheck_state_free(&s);
}

/* Node 0 of two_nodes() as 2 cores x 2 SMT threads: CPUs 0,1 are core 0,
 * CPUs 2,3 core 2 (each core named by its first CPU, as Linux lists
 * siblings when they are numbered next to each other). */
static void smt_cores(bl_pcheck_state *s)
{
    static const int core[] = {0, 0, 2, 2, 4, 4, 6, 6};
    s->cpu_slots = 8;
    s->core_of = malloc(sizeof core);
    memcpy(s->core_of, core, sizeof core);
}

static void close_threads_on_siblings_leave_a_core_idle(void **state)
{
    (void)state;
    bl_pcheck_state s;
    bl_pcheck_findings f;
    two_nodes(&s, "0-3");
    hwloc_bitmap_only(s.mems_allowed, 0);
    smt_cores(&s);
    s.omp_num_threads = "2";
    s.omp_places = "threads";
    s.omp_proc_bind = "close";
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "smt-siblings"), 'w');
    assert_non_null(strstr(f.item[0].text, "CPUs 0-1, two or more sharing core 0 (one CPU or its SMT siblings)"));
    s.omp_proc_bind = "spread"; /* places 0 and 2: one thread per core */
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "smt-siblings"), 0);
    s.omp_proc_bind = "close";
    s.omp_places = "cores";
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "smt-siblings"), 0);
    s.omp_places = NULL; /* unset: one place per CPU, as threads */
    s.omp_num_threads = "4"; /* as many threads as CPUs: sharing is needed */
    bl_pcheck_eval(&s, &f);
    assert_int_equal(found(&f, "smt-siblings"), 0);
    assert_int_equal(f.warnings, 0);
    bl_pcheck_state_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_node_default_is_clean),
        cmocka_unit_test(membind_remote_node_is_misaligned),
        cmocka_unit_test(membind_same_node_is_clean),
        cmocka_unit_test(membind_one_of_two_cpu_nodes_is_partly_remote),
        cmocka_unit_test(membind_wider_than_cpus_is_a_note),
        cmocka_unit_test(cpuset_mems_without_the_cpus_node_is_misaligned),
        cmocka_unit_test(localalloc_on_a_subset_notes_the_wider_mask),
        cmocka_unit_test(preferred_remote_node_is_misaligned),
        cmocka_unit_test(interleave_all_from_one_node_is_a_note),
        cmocka_unit_test(numa_balancing_warns_only_with_two_nodes),
        cmocka_unit_test(slurm_verbosity_alone_does_not_bind),
        cmocka_unit_test(close_threads_on_siblings_leave_a_core_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
