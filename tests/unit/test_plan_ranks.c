/* Rank placement through Open MPI's own mapper on shipped topologies. The
 * expected sets are Open MPI 4.1.4's answers (the version they were taken
 * with); on another version the tests that ask mpirun are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <limits.h>

#include <cmocka.h>

#include "cpuset.h"
#include "launcher_info.h"
#include "plan_ranks.h"

#define PINNED_OMPI "4.1.4"

static char preload[PATH_MAX];
static int ompi_matches = -1;

static void path_of(char *buf, size_t len, const char *rel)
{
    const char *src = getenv("BINDLAB_SOURCE_DIR");
    snprintf(buf, len, "%s/%s", src ? src : ".", rel);
}

static void topo_path(char *buf, size_t len, const char *file)
{
    char rel[256];
    snprintf(rel, sizeof rel, "configs/topologies/%s", file);
    path_of(buf, len, rel);
}

/* Skips the calling test unless mpirun is the pinned Open MPI. */
static void need_pinned_ompi(void)
{
    if (ompi_matches < 0) {
        bl_launcher_info li;
        bl_err e;
        ompi_matches = bl_launcher_detect_mpirun("mpirun", 30, &li, &e) == 0 &&
                       li.kind == BL_LAUNCHER_OPENMPI &&
                       strcmp(li.version, PINNED_OMPI) == 0;
        if (!ompi_matches)
            fprintf(stderr, "note: expectations are Open MPI " PINNED_OMPI
                            "'s answers; mpirun here is not it, skipping\n");
    }
    if (!ompi_matches)
        skip();
}

/* The preload library sits in the build directory, one above tests/. */
static void find_preload(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    bl_err e;
    assert_true(n > 0);
    exe[n] = '\0';
    snprintf(preload, sizeof preload, "%s/../%s", dirname(exe),
             BL_PLAN_PRELOAD_NAME);
    setenv("BINDLAB_PRELOAD", preload, 1);
    assert_int_equal(bl_plan_ranks_preload_path(preload, sizeof preload, &e),
                     0);
}

typedef struct plan_case {
    const char *topology;   /* file in configs/topologies, or synthetic */
    int np;
    const char *map_by, *bind_to;
    const char *expect[8];  /* per rank, list form */
    int bound;
} plan_case;

static void check_plan(const plan_case *c, int launched)
{
    char path[PATH_MAX], got[4096];
    hwloc_topology_t topo;
    bl_plan p = {0};
    bl_err e = {{0}};
    bl_plan_request req = {.np = c->np, .map_by = c->map_by,
                           .bind_to = c->bind_to};
    int rc;

    need_pinned_ompi();
    if (strchr(c->topology, ' '))
        snprintf(path, sizeof path, "%s", c->topology);
    else
        topo_path(path, sizeof path, c->topology);
    req.topology = path;
    assert_int_equal(bl_plan_topology_load(path, &topo, &e), 0);
    rc = launched ? bl_plan_ranks_launched(&req, topo, preload, &p, &e)
                  : bl_plan_ranks(&req, topo, preload, &p, &e);
    if (rc != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(p.refusal, "");
    assert_string_equal(p.launcher, "Open MPI " PINNED_OMPI);
    assert_int_equal(p.nranks, c->np);
    for (int r = 0; r < c->np; r++) {
        bl_cpuset_format_list(p.rank_pus[r], got, sizeof got);
        assert_string_equal(got, c->expect[r]);
        assert_int_equal(p.rank_bound[r], c->bound);
    }
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

static const plan_case epyc9654_ppr_package_pe4 = {
    "AMD-19h-Zen4-2xEpyc-9654.xml", 2, "ppr:1:package:PE=4", "core",
    {"0-3,192-195", "96-99,288-291"}, 1};
static const plan_case nps4_ppr_numa_pe2 = {
    "AMD-EPYC-7763-2s-NPS4-SMT.xml", 4, "ppr:1:numa:PE=2", "core",
    {"0-1,128-129", "16-17,144-145", "32-33,160-161", "48-49,176-177"}, 1};
static const plan_case nps4_ppr2_l3cache = {
    "AMD-EPYC-7763-2s-NPS4-SMT.xml", 4, "ppr:2:l3cache", "core",
    {"0,128", "1,129", "8,136", "9,137"}, 1};
static const plan_case icelake_core = {
    "Intel-IceLake-8380-2s-SNC2-HT.xml", 3, "core", "core",
    {"0,80", "1,81", "2,82"}, 1};
static const plan_case icelake_ppr_numa_pe4 = {
    "Intel-IceLake-8380-2s-SNC2-HT.xml", 4, "ppr:1:numa:PE=4", "core",
    {"0-3,80-83", "20-23,100-103", "40-43,120-123", "60-63,140-143"}, 1};
static const plan_case icelake_bind_none = {
    "Intel-IceLake-8380-2s-SNC2-HT.xml", 3, "core", "none",
    {"0-159", "0-159", "0-159"}, 0};
static const plan_case epyc7763_ppr_package_pe2 = {
    "AMD-19h-Zen3-2xEpyc-7763.xml", 2, "ppr:1:package:PE=2", "core",
    {"0-1", "64-65"}, 1};
/* A synthetic description goes to mpirun as an exported XML file. */
static const plan_case synthetic_ppr_numa = {
    "pack:2 numa:4 l3:2 core:8 pu:2", 2, "ppr:1:numa:PE=2", "core",
    {"0-3", "32-35"}, 1};

static void plan_ranks_epyc9654_ppr1_package_pe4_takes_first_cores_of_each_package(void **s)
{
    (void)s;
    check_plan(&epyc9654_ppr_package_pe4, 0);
}

static void plan_ranks_nps4_ppr1_numa_pe2_puts_one_rank_per_numa_node_in_package_order(void **s)
{
    (void)s;
    check_plan(&nps4_ppr_numa_pe2, 0);
}

static void plan_ranks_nps4_ppr2_l3cache_fills_each_ccd_with_two_cores(void **s)
{
    (void)s;
    check_plan(&nps4_ppr2_l3cache, 0);
}

static void plan_ranks_icelake_core_binds_each_rank_to_one_core_and_its_ht_sibling(void **s)
{
    (void)s;
    check_plan(&icelake_core, 0);
}

static void plan_ranks_icelake_snc2_ppr1_numa_pe4_spreads_over_four_numa_nodes(void **s)
{
    (void)s;
    check_plan(&icelake_ppr_numa_pe4, 0);
}

static void plan_ranks_bind_to_none_leaves_every_rank_unbound_on_the_whole_node(void **s)
{
    (void)s;
    check_plan(&icelake_bind_none, 0);
}

static void plan_ranks_epyc7763_nps1_ppr1_package_pe2(void **s)
{
    (void)s;
    check_plan(&epyc7763_ppr_package_pe2, 0);
}

static void plan_ranks_accepts_a_synthetic_description(void **s)
{
    (void)s;
    check_plan(&synthetic_ppr_numa, 0);
}

/* The launch path (preload records the binding, --report-bindings reads
 * it back) must give the job map's answer. */
static void plan_ranks_launched_through_the_preload_agrees_with_the_job_map(void **s)
{
    (void)s;
    check_plan(&epyc9654_ppr_package_pe4, 1);
    check_plan(&nps4_ppr_numa_pe2, 1);
    check_plan(&nps4_ppr2_l3cache, 1);
    check_plan(&icelake_core, 1);
    check_plan(&icelake_bind_none, 1);
}

static void refused(const char *topology, int np, const char *map_by,
                    const char *bind_to, const char *must_contain,
                    int launched)
{
    char path[PATH_MAX];
    hwloc_topology_t topo;
    bl_plan p = {0};
    bl_err e = {{0}};
    bl_plan_request req = {.np = np, .map_by = map_by, .bind_to = bind_to};
    int rc;

    need_pinned_ompi();
    topo_path(path, sizeof path, topology);
    req.topology = path;
    assert_int_equal(bl_plan_topology_load(path, &topo, &e), 0);
    rc = launched ? bl_plan_ranks_launched(&req, topo, preload, &p, &e)
                  : bl_plan_ranks(&req, topo, preload, &p, &e);
    if (rc != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(p.nranks, 0);
    if (!strstr(p.refusal, must_contain))
        fail_msg("refusal lacks '%s':\n%s", must_contain, p.refusal);
    assert_null(strstr(p.refusal, "-----"));
    assert_null(strstr(p.refusal, "FORCE-TERMINATE"));
    assert_null(strstr(p.refusal, "\n\n"));
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

static void plan_ranks_more_ranks_than_the_ppr_allows_gives_open_mpis_trimmed_message(void **s)
{
    (void)s;
    refused("AMD-EPYC-7763-2s-NPS4-SMT.xml", 40, "ppr:2:numa", "core",
            "Your job has requested more processes than the ppr for\n"
            "this topology can support:", 0);
    refused("AMD-EPYC-7763-2s-NPS4-SMT.xml", 40, "ppr:2:numa", "core",
            "more processes than the ppr", 1);
}

static void plan_ranks_more_cores_than_a_package_has_is_refused_by_binding(void **s)
{
    (void)s;
    refused("AMD-19h-Zen4-2xEpyc-9654.xml", 4, "ppr:2:package:PE=96", "core",
            "binding more\nprocesses than cpus on a resource:", 0);
}

static void plan_ranks_rejects_np_zero_and_an_unknown_binding(void **s)
{
    char path[PATH_MAX];
    hwloc_topology_t topo;
    bl_plan p = {0};
    bl_err e = {{0}};
    bl_plan_request req = {.np = 0, .map_by = "core", .bind_to = "core"};
    (void)s;
    need_pinned_ompi();
    topo_path(path, sizeof path, "Intel-IceLake-8380-2s-SNC2-HT.xml");
    req.topology = path;
    assert_int_equal(bl_plan_topology_load(path, &topo, &e), 0);
    assert_int_equal(bl_plan_ranks(&req, topo, preload, &p, &e), -1);
    assert_non_null(strstr(e.msg, "-np 0"));
    req.np = 2;
    req.bind_to = "socketz";
    assert_int_equal(bl_plan_ranks(&req, topo, preload, &p, &e), -1);
    assert_non_null(strstr(e.msg, "socketz"));
    hwloc_topology_destroy(topo);
}

static void topology_load_names_a_missing_file(void **s)
{
    hwloc_topology_t t = (hwloc_topology_t)1;
    bl_err e;
    (void)s;
    assert_int_equal(bl_plan_topology_load("/nonexistent/node.xml", &t, &e),
                     -1);
    assert_null(t);
    assert_non_null(strstr(e.msg, "'/nonexistent/node.xml': no such file"));
}

static void topology_load_rejects_a_truncated_xml_file(void **s)
{
    char path[PATH_MAX];
    hwloc_topology_t t;
    bl_err e;
    (void)s;
    path_of(path, sizeof path, "tests/fixtures/plan/truncated-topology.xml");
    assert_int_equal(access(path, R_OK), 0);
    assert_int_equal(bl_plan_topology_load(path, &t, &e), -1);
    assert_non_null(strstr(e.msg, "not a readable hwloc XML file"));
}

static void topology_load_rejects_a_bad_synthetic_description(void **s)
{
    hwloc_topology_t t;
    bl_err e;
    (void)s;
    assert_int_equal(bl_plan_topology_load("pack:x core:2", &t, &e), -1);
    assert_non_null(strstr(e.msg, "not an hwloc synthetic description"));
}

static char *slurp(const char *rel)
{
    char path[PATH_MAX];
    FILE *f;
    char *buf;
    long n;
    path_of(path, sizeof path, rel);
    assert_non_null(f = fopen(path, "r"));
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    assert_non_null(buf = calloc((size_t)n + 1, 1));
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static void map_to_report_turns_the_job_map_into_report_lines(void **s)
{
    char *text = slurp("tests/fixtures/plan/ompi414-do-not-launch-7763.txt");
    int n;
    char *rep = bl_plan_ranks_map_to_report(text, &n);
    (void)s;
    assert_non_null(rep);
    assert_int_equal(n, 3);
    assert_non_null(strstr(rep, "MCW rank 0 bound to socket 0[core 0[hwt 0]], "
                                "socket 0[core 1[hwt 0]]: [B/B/./"));
    assert_non_null(strstr(rep, "MCW rank 2 bound to socket 1[core 64[hwt 0]]"));
    assert_null(strstr(rep, "FORCE-TERMINATE"));
    free(rep);
    free(text);
}

static void trim_refusal_keeps_the_message_and_drops_banners(void **s)
{
    char *text = slurp("tests/fixtures/plan/ompi414-refused-overload-9654.txt");
    char buf[2048], small[80];
    const char *body = strchr(text, '\n') + 1; /* after the source line */
    (void)s;
    bl_plan_ranks_trim_refusal(body, buf, sizeof buf);
    assert_string_equal(buf,
        "A request was made to bind to that would result in binding more\n"
        "processes than cpus on a resource:\n"
        "   Bind to:     CORE\n"
        "   Node:        vm\n"
        "   #processes:  2\n"
        "   #cpus:       1\n"
        "You can override this protection by adding the \"overload-allowed\"\n"
        "option to your binding directive.");
    /* Only whole lines when it does not fit. */
    bl_plan_ranks_trim_refusal(body, small, sizeof small);
    assert_string_equal(small, "A request was made to bind to that would "
                               "result in binding more");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_ranks_epyc9654_ppr1_package_pe4_takes_first_cores_of_each_package),
        cmocka_unit_test(plan_ranks_nps4_ppr1_numa_pe2_puts_one_rank_per_numa_node_in_package_order),
        cmocka_unit_test(plan_ranks_nps4_ppr2_l3cache_fills_each_ccd_with_two_cores),
        cmocka_unit_test(plan_ranks_icelake_core_binds_each_rank_to_one_core_and_its_ht_sibling),
        cmocka_unit_test(plan_ranks_icelake_snc2_ppr1_numa_pe4_spreads_over_four_numa_nodes),
        cmocka_unit_test(plan_ranks_bind_to_none_leaves_every_rank_unbound_on_the_whole_node),
        cmocka_unit_test(plan_ranks_epyc7763_nps1_ppr1_package_pe2),
        cmocka_unit_test(plan_ranks_accepts_a_synthetic_description),
        cmocka_unit_test(plan_ranks_launched_through_the_preload_agrees_with_the_job_map),
        cmocka_unit_test(plan_ranks_more_ranks_than_the_ppr_allows_gives_open_mpis_trimmed_message),
        cmocka_unit_test(plan_ranks_more_cores_than_a_package_has_is_refused_by_binding),
        cmocka_unit_test(plan_ranks_rejects_np_zero_and_an_unknown_binding),
        cmocka_unit_test(topology_load_names_a_missing_file),
        cmocka_unit_test(topology_load_rejects_a_truncated_xml_file),
        cmocka_unit_test(topology_load_rejects_a_bad_synthetic_description),
        cmocka_unit_test(map_to_report_turns_the_job_map_into_report_lines),
        cmocka_unit_test(trim_refusal_keeps_the_message_and_drops_banners),
    };
    find_preload();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
