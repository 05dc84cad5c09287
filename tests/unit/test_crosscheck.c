/* The cross-check on real report lines (captured here with Open MPI 4.1.4)
 * against hand-made run records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bindreport/crosscheck.h"
#include "topo.h"

static hwloc_topology_t topo; /* 2 cores, as this VM */

/* mpirun -np 2 --map-by core --bind-to core --report-bindings (stderr) */
static const char *const launcher_report =
    "[vm:09135] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
    "[vm:09135] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]\n";

static bl_h5_placement rows[2];
static bl_h5_env env[1];
static bl_h5_run run;

static void make_run(const char *bind, const char *cs0, const char *cs1,
                     int cpu0, int cpu1)
{
    static char host[] = "vm";
    static char names[] = "OMP_PROC_BIND";
    static char set0[16], set1[16], bindv[16];
    memset(rows, 0, sizeof rows);
    memset(&run, 0, sizeof run);
    strcpy(set0, cs0);
    strcpy(set1, cs1);
    for (int r = 0; r < 2; r++) {
        rows[r].rank = r;
        rows[r].host = host;
        rows[r].rank_cpuset = r ? set1 : set0;
        rows[r].cpuset = r ? set1 : set0;
        rows[r].cpu_last = r ? cpu1 : cpu0;
        rows[r].numa = 0;
        rows[r].pid = 1000 + r;
    }
    run.ranks = 2;
    run.placement = rows;
    run.nplacement = 2;
    run.result.local_page_fraction = 1.0;
    if (bind) {
        strcpy(bindv, bind);
        env[0].name = names;
        env[0].value = bindv;
        run.env = env;
        run.nenv = 1;
    }
}

/* A run of one rank with cpuset set, last seen on cpu, and report_text
 * parsed into *rep. */
static void one_rank(const char *report_text, const char *set, int cpu,
                     bl_binding_report *rep)
{
    bl_err err;
    make_run("close", set, set, cpu, cpu);
    run.ranks = 1;
    run.nplacement = 1;
    assert_int_equal(bl_bindreport_parse(report_text, BL_REPORT_AUTO, topo,
                                         rep, &err), 0);
}

static int check(const char *report_text, char *flags, size_t len,
                 bl_h5_check **checks, size_t *n)
{
    bl_binding_report rep;
    bl_err err;
    int mism;
    assert_int_equal(bl_bindreport_parse(report_text, BL_REPORT_AUTO, topo,
                                         &rep, &err), 0);
    mism = bl_crosscheck(&rep, &run, 0, NULL, checks, n, flags, len);
    bl_bindreport_free(&rep);
    return mism;
}

static void crosscheck_matching_bindings_raise_no_flag(void **state)
{
    char flags[256];
    bl_h5_check *c;
    size_t n;
    (void)state;
    make_run("close", "0", "1", 0, 1);
    assert_int_equal(check(launcher_report, flags, sizeof flags, &c, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(c[0].matches, 1);
    assert_int_equal(c[1].matches, 1);
    assert_string_equal(c[1].claimed, "1");
    assert_string_equal(c[1].source, "launcher");
    assert_string_equal(flags, "");
    bl_h5_table_free(&bl_h5_check_def, c, n);
}

static void crosscheck_flags_a_mismatch_and_shared_pu(void **state)
{
    char flags[256];
    bl_h5_check *c;
    size_t n;
    (void)state;
    /* Rank 1 says it ran on CPU 0, not the core mpirun claimed. */
    make_run("close", "0", "0", 0, 0);
    assert_int_equal(check(launcher_report, flags, sizeof flags, &c, &n), 1);
    assert_int_equal(c[1].matches, 0);
    assert_string_equal(flags, "binding-mismatch,pu-shared");
    bl_h5_table_free(&bl_h5_check_def, c, n);
}

static void crosscheck_reads_a_rank_report_against_its_master_thread(void **state)
{
    /* --bind-to none: Open MPI 4 leaves the report to each rank, which
     * prints its master thread's binding (pid = the rank's own). */
    static const char *const self =
        "[vm:1000] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
        "[vm:1001] MCW rank 1 bound to socket 0[core 0[hwt 0]]: [B/.]\n";
    char flags[256];
    bl_h5_check *c;
    size_t n;
    (void)state;
    make_run("close", "0", "0", 0, 0);
    rows[0].rank_cpuset = rows[1].rank_cpuset = (char *)"0-1";
    assert_int_equal(check(self, flags, sizeof flags, &c, &n), 0);
    assert_string_equal(c[0].source, "rank");
    assert_string_equal(c[0].seen, "0");
    assert_string_equal(flags, "pu-shared");
    bl_h5_table_free(&bl_h5_check_def, c, n);
}

/* --bind-to none under OMP_PROC_BIND: the rank prints "not bound" from
 * MPI_Init (Open MPI 4.1.4, captured here), but libgomp bound its master
 * thread to the first place before main. Its line speaks of the set the
 * launcher gave, not of the runtime's narrowing: no mismatch. */
static void crosscheck_reads_not_bound_against_the_given_set(void **state)
{
    static const char *const self =
        "[vm:1000] MCW rank 0 is not bound (or bound to all available "
        "processors)\n";
    bl_crosscheck_allowed here = {"vm", "0-1"};
    bl_binding_report rep;
    bl_h5_check *c;
    char flags[256];
    size_t n;
    (void)state;
    one_rank(self, "0", 0, &rep);
    rows[0].rank_cpuset = (char *)"0-1"; /* before libgomp's binding */
    assert_int_equal(bl_crosscheck(&rep, &run, 0, &here, &c, &n, flags,
                                   sizeof flags), 0);
    assert_string_equal(c[0].source, "rank");
    assert_string_equal(c[0].seen, "0-1");
    assert_int_equal(c[0].matches, 1);
    assert_null(strstr(flags, "binding-mismatch"));
    bl_h5_table_free(&bl_h5_check_def, c, n);
    /* given 0 only and running on 0: the launcher's "all" is wrong */
    rows[0].rank_cpuset = (char *)"0";
    assert_int_equal(bl_crosscheck(&rep, &run, 0, &here, &c, &n, flags,
                                   sizeof flags), 1);
    assert_non_null(strstr(flags, "binding-mismatch"));
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
}

static void crosscheck_compares_each_rank_with_its_own_node(void **state)
{
    /* mpirun --map-by node over bl1 and bl2 (captured on the test cluster,
     * tests/slurm/nodes.sh): each node binds its rank to its core 0. */
    static const char *const two_nodes =
        "[bl1:05460] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
        "[bl2:05458] MCW rank 1 bound to socket 0[core 0[hwt 0]]: [B/.]\n";
    static char bl1[] = "bl1", bl2[] = "bl2.cluster.example";
    char flags[256];
    bl_h5_check *c;
    size_t n;
    (void)state;
    /* both on CPU 0, each on its own node: no shared PU, no mismatch (the
     * long name of bl2 is the same host) */
    make_run("close", "0", "0", 0, 0);
    rows[0].host = bl1;
    rows[1].host = bl2;
    assert_int_equal(check(two_nodes, flags, sizeof flags, &c, &n), 0);
    assert_string_equal(c[1].host, "bl2.cluster.example");
    assert_string_equal(flags, "");
    bl_h5_table_free(&bl_h5_check_def, c, n);
    /* rank 1 says it ran on bl1, where mpirun did not put it */
    rows[1].host = bl1;
    assert_int_equal(check(two_nodes, flags, sizeof flags, &c, &n), 0);
    assert_string_equal(flags, "host-mismatch,pu-shared");
    bl_h5_table_free(&bl_h5_check_def, c, n);
}

/* Nodes of different shapes: bl1 as this VM (2 cores), bl2 two packages
 * of 2 cores. Each rank's line is read with its node's topology (bl2's
 * core 2 is PU 2, which bl1 does not have) and the check row says which
 * node read it. The lines are drawn by hand from those shapes. */
static void crosscheck_records_the_node_whose_topology_read_each_claim(
    void **state)
{
    static const char *const text =
        "[bl1:7] MCW rank 0 bound to socket 0[core 1[hwt 0]]: [./B]\n"
        "[bl2:8] MCW rank 1 bound to socket 1[core 2[hwt 0]]: [./.][B/.]\n";
    static char bl1[] = "bl1", bl2[] = "bl2";
    hwloc_topology_t other;
    const char *hosts[] = {"bl1", "bl2"};
    hwloc_topology_t topos[2];
    bl_report_topos t;
    bl_binding_report rep;
    bl_h5_check *c;
    size_t n;
    char flags[256];
    bl_err err;
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 core:2 pu:1", &other, &err), 0);
    topos[0] = topo;
    topos[1] = other;
    t = (bl_report_topos){topo, 2, hosts, topos};
    make_run("close", "1", "2", 1, 2);
    rows[0].host = bl1;
    rows[1].host = bl2;
    assert_int_equal(bl_bindreport_parse_nodes(text, BL_REPORT_AUTO, &t, &rep,
                                               &err), 0);
    assert_int_equal(bl_crosscheck(&rep, &run, 0, NULL, &c, &n, flags,
                                   sizeof flags), 0);
    assert_int_equal(n, 2);
    assert_int_equal(c[0].matches, 1);
    assert_int_equal(c[0].node, 0);
    assert_int_equal(c[1].matches, 1);
    assert_string_equal(c[1].claimed, "2");
    assert_int_equal(c[1].node, 1);
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
    /* read with bl1's shape alone, rank 1's line is rejected: no claim */
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, topo, &rep,
                                         &err), 0);
    bl_crosscheck(&rep, &run, 0, NULL, &c, &n, flags, sizeof flags);
    assert_int_equal(c[1].matches, -1);
    assert_int_equal(c[1].node, -1);
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
    hwloc_topology_destroy(other);
}

static void crosscheck_takes_slurm_lines_as_the_launchers(void **state)
{
    /* Slurm names the task's pid, but it bound the task before exec: its
     * claim is the rank's binding, not the master thread's. */
    static const char *const slurm =
        "cpu-bind=MASK - vm, task  0  0 [1000]: mask 0x3 set\n";
    char flags[256];
    bl_h5_check *c;
    size_t n;
    (void)state;
    make_run("close", "0", "1", 0, 1);
    rows[0].rank_cpuset = (char *)"0-1";
    run.ranks = 1;
    run.nplacement = 1;
    assert_int_equal(check(slurm, flags, sizeof flags, &c, &n), 0);
    assert_string_equal(c[0].source, "launcher");
    assert_string_equal(c[0].seen, "0-1");
    assert_int_equal(c[0].matches, 1);
    bl_h5_table_free(&bl_h5_check_def, c, n);
}

static void crosscheck_flags_unbound_threads_remote_pages_and_balancing(void **state)
{
    char flags[256];
    bl_h5_check *c;
    size_t n;
    bl_binding_report rep;
    bl_err err;
    (void)state;
    make_run(NULL, "0", "1", 0, 1);
    run.result.local_page_fraction = 0.5;
    rows[1].migrations = 3;
    rows[1].numa = 1;
    rows[1].rank = 0; /* both threads in rank 0, on two NUMA nodes */
    rows[1].thread = 1;
    run.ranks = 1;
    assert_int_equal(bl_bindreport_parse("", BL_REPORT_AUTO, topo, &rep, &err), 0);
    bl_crosscheck(&rep, &run, 1, NULL, &c, &n, flags, sizeof flags);
    assert_string_equal(flags, "rank-spans-numa,omp-unbound,remote-pages,"
                               "numa-balancing,migrated");
    assert_int_equal(c[0].matches, -1); /* nothing claimed */
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
}

/* The app's first-touch figures: a serial first touch the kernel made
 * more local, and huge pages across shares; a file written before them
 * (pages_total_init 0) raises neither. */
static void crosscheck_flags_what_happened_after_first_touch(void **state)
{
    char flags[256];
    bl_h5_check *c;
    size_t n;
    bl_binding_report rep;
    bl_err err;
    (void)state;
    make_run("close", "0", "1", 0, 1);
    run.ranks = 1;
    run.result.local_page_fraction = 0.95;
    run.result.local_page_fraction_init = 0.25;
    run.result.pages_total_init = 16386;
    run.result.pages_migrated = 9000;
    run.result.huge_share = 1.0;
    run.result.straddles = 6;
    run.result.best_local_fraction = 0.9376;
    assert_int_equal(bl_bindreport_parse("", BL_REPORT_AUTO, topo, &rep, &err), 0);
    bl_crosscheck(&rep, &run, 0, NULL, &c, &n, flags, sizeof flags);
    assert_string_equal(flags, "pages-migrated,huge-page-straddle");
    bl_h5_table_free(&bl_h5_check_def, c, n);
    run.result.pages_total_init = 0; /* an older file */
    bl_crosscheck(&rep, &run, 0, NULL, &c, &n, flags, sizeof flags);
    assert_string_equal(flags, "");
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
    memset(&run.result, 0, sizeof run.result);
}

/* Inside an allocation (taskset -c 1, a cgroup, a Slurm step) an unbound
 * rank may run on the job's CPUs only: "not bound" is that set, not the
 * node, so a rank that ran on exactly the allowed CPU matches. On another
 * host the harness's set says nothing, and the whole node stays the claim. */
static void crosscheck_reads_not_bound_as_the_allowed_cpus(void **state)
{
    static const char *const ompi5 =
        "[vm:11] Rank 0 is not bound (or bound to all available "
        "processors)\n";
    bl_crosscheck_allowed here = {"vm", "1"}, there = {"other", "1"};
    bl_binding_report rep;
    bl_err err;
    bl_h5_check *c;
    char flags[256];
    size_t n;
    (void)state;
    one_rank(ompi5, "1", 1, &rep);
    assert_int_equal(rep.count, 1);
    assert_int_equal(bl_crosscheck(&rep, &run, 0, &here, &c, &n, flags,
                                   sizeof flags), 0);
    assert_string_equal(c[0].claimed, "1");
    assert_int_equal(c[0].matches, 1);
    assert_null(strstr(flags, "binding-mismatch"));
    bl_h5_table_free(&bl_h5_check_def, c, n);
    /* the allowed set of another host: the node's CPUs, a mismatch */
    assert_int_equal(bl_crosscheck(&rep, &run, 0, &there, &c, &n, flags,
                                   sizeof flags), 1);
    assert_string_equal(c[0].claimed, "0-1");
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
    /* a rank bound past the allowed set (mpirun under taskset -c 1
     * binding to core 0): its claim matches, but it ran outside */
    rows[0].rank_cpuset = (char *)"0";
    assert_int_equal(bl_crosscheck(NULL, &run, 0, &here, &c, &n, flags,
                                   sizeof flags), 0);
    assert_non_null(strstr(flags, "outside-allowed"));
    bl_h5_table_free(&bl_h5_check_def, c, n);
    assert_int_equal(bl_crosscheck(NULL, &run, 0, &there, &c, &n, flags,
                                   sizeof flags), 0);
    assert_null(strstr(flags, "outside-allowed"));
    bl_h5_table_free(&bl_h5_check_def, c, n);
    rows[0].rank_cpuset = rows[0].cpuset;
    /* Slurm's NONE reads the same way */
    assert_int_equal(bl_bindreport_parse(
                         "cpu-bind=NONE - vm, task  0  0 [1000]: mask 0x3 "
                         "set\n", BL_REPORT_AUTO, topo, &rep, &err), 0);
    assert_int_equal(bl_crosscheck(&rep, &run, 0, &here, &c, &n, flags,
                                   sizeof flags), 0);
    assert_int_equal(c[0].matches, 1);
    bl_h5_table_free(&bl_h5_check_def, c, n);
    bl_bindreport_free(&rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crosscheck_matching_bindings_raise_no_flag),
        cmocka_unit_test(crosscheck_flags_a_mismatch_and_shared_pu),
        cmocka_unit_test(crosscheck_reads_a_rank_report_against_its_master_thread),
        cmocka_unit_test(crosscheck_compares_each_rank_with_its_own_node),
        cmocka_unit_test(
            crosscheck_records_the_node_whose_topology_read_each_claim),
        cmocka_unit_test(crosscheck_takes_slurm_lines_as_the_launchers),
        cmocka_unit_test(crosscheck_flags_unbound_threads_remote_pages_and_balancing),
        cmocka_unit_test(crosscheck_flags_what_happened_after_first_touch),
        cmocka_unit_test(crosscheck_reads_not_bound_as_the_allowed_cpus),
        cmocka_unit_test(crosscheck_reads_not_bound_against_the_given_set),
    };
    bl_err err;
    int rc;
    if (bl_topo_load("pack:1 core:2 pu:1", &topo, &err) < 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    hwloc_topology_destroy(topo);
    return rc;
}
