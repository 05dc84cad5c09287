/* Rank placement through Open MPI's own mapper on shipped topologies.
 * The expected sets are derived here from each topology with hwloc (which
 * cores a ppr/PE/core mapping takes, and their PUs), and that derivation is
 * itself checked against sets worked out by hand from the README's
 * description of each node. Groups: "rules" needs no MPI; "openmpi" asks the
 * installed Open MPI (any version) and skips, saying why, without one;
 * "openmpi41-text" checks refusal wording Open MPI 4.1 prints. */
#include "bl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <limits.h>

#include "cpuset.h"
#include "launcher/launcher_info.h"
#include "plan/plan_ranks.h"

static char preload[PATH_MAX];
static int ompi_known; /* 1 once mpirun was asked */
static bl_launcher_info ompi;
static char ompi_missing[4400]; /* why there is no Open MPI, or "" */

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

/* Asks PATH for mpirun and mpirun for its version, once. */
static void ask_for_openmpi(void)
{
    char where[4096];
    bl_err e;
    if (ompi_known)
        return;
    ompi_known = 1;
    if (!bl_test_find_program("mpirun", where, sizeof where)) {
        snprintf(ompi_missing, sizeof ompi_missing, "no mpirun in PATH");
        return;
    }
    if (bl_launcher_detect_mpirun("mpirun", 30, &ompi, &e) != 0)
        fail_msg("%s", e.msg); /* an mpirun that cannot say what it is */
    if (ompi.kind != BL_LAUNCHER_OPENMPI)
        snprintf(ompi_missing, sizeof ompi_missing,
                 "mpirun at %s is %s %s; plans use Open MPI's mapper", where,
                 bl_launcher_kind_name(ompi.kind), ompi.version);
}

/* Skips the calling test when this machine has no Open MPI mpirun. */
#define NEED_OPENMPI()                                                      \
    do {                                                                    \
        ask_for_openmpi();                                                  \
        if (ompi_missing[0])                                                \
            BL_SKIP("%s", ompi_missing);                                    \
    } while (0)

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
    const char *by_hand[8]; /* per rank, list form, worked out by hand */
    int bound;
} plan_case;

/* By hand, from configs/topologies/README.md: the 9654 has 96 cores per
 * package and SMT siblings 192 PUs apart; the NPS4 7763 has 16 cores per
 * NUMA node, 8 per L3, siblings 128 apart; the SNC2 8380 has 20 cores per
 * NUMA node, siblings 80 apart; the 7763 capture has SMT off. */
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

static const plan_case *const all_cases[] = {
    &epyc9654_ppr_package_pe4, &nps4_ppr_numa_pe2, &nps4_ppr2_l3cache,
    &icelake_core, &icelake_ppr_numa_pe4, &icelake_bind_none,
    &epyc7763_ppr_package_pe2, &synthetic_ppr_numa,
};

static hwloc_topology_t load_case(const plan_case *c, char *path, size_t len)
{
    hwloc_topology_t topo;
    bl_err e = {{0}};
    if (strchr(c->topology, ' '))
        snprintf(path, len, "%s", c->topology);
    else
        topo_path(path, len, c->topology);
    if (bl_plan_topology_load(path, &topo, &e) != 0)
        fail_msg("%s", e.msg);
    return topo;
}

/* The documented mapping, straight from the topology: "core" gives rank r
 * the r-th core; "ppr:N:OBJ[:PE=k]" walks the OBJ objects in order and
 * gives each of N ranks per object its next k cores (1 without PE=); the
 * rank's set is the PUs of its cores, or the whole node with bind none.
 * Writes rank r's set, in list form, to out. */
static void derive(hwloc_topology_t topo, const plan_case *c, int r,
                   char *out, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int ppr = 0, pe = 1;
    char res[16] = "";
    if (!strcmp(c->bind_to, "none")) {
        hwloc_bitmap_copy(set, hwloc_get_root_obj(topo)->cpuset);
    } else if (!strcmp(c->map_by, "core")) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE,
                                                 (unsigned)r);
        assert_non_null(core);
        hwloc_bitmap_copy(set, core->cpuset);
    } else {
        int fields = sscanf(c->map_by, "ppr:%d:%15[a-z0-9]:PE=%d", &ppr, res,
                            &pe);
        assert_true(fields >= 2);
        hwloc_obj_type_t type = !strcmp(res, "package") ? HWLOC_OBJ_PACKAGE
                                : !strcmp(res, "numa")  ? HWLOC_OBJ_NUMANODE
                                                        : HWLOC_OBJ_L3CACHE;
        assert_true(!strcmp(res, "package") || !strcmp(res, "numa") ||
                    !strcmp(res, "l3cache"));
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type,
                                                (unsigned)(r / ppr));
        assert_non_null(obj);
        int first = (r % ppr) * pe, seen = 0;
        hwloc_obj_t core = NULL;
        while ((core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE,
                                                  core)) != NULL) {
            if (!hwloc_bitmap_isincluded(core->cpuset, obj->cpuset))
                continue;
            if (seen >= first && seen < first + pe)
                hwloc_bitmap_or(set, set, core->cpuset);
            seen++;
        }
        assert_true(seen >= first + pe);
    }
    hwloc_bitmap_list_snprintf(out, len, set);
    hwloc_bitmap_free(set);
}

/* The derivation reproduces every set worked out by hand. */
static void derivation_from_the_topology_matches_the_hand_worked_sets(void **s)
{
    char path[PATH_MAX], want[4096];
    (void)s;
    for (size_t i = 0; i < sizeof all_cases / sizeof *all_cases; i++) {
        const plan_case *c = all_cases[i];
        hwloc_topology_t topo = load_case(c, path, sizeof path);
        for (int r = 0; r < c->np; r++) {
            derive(topo, c, r, want, sizeof want);
            if (strcmp(want, c->by_hand[r]))
                fail_msg("%s %s rank %d: derived %s, by hand %s", c->topology,
                         c->map_by, r, want, c->by_hand[r]);
        }
        hwloc_topology_destroy(topo);
    }
}

/* Open MPI's answer (job map, or a launch with launched) against the
 * derivation. */
static void check_plan(const plan_case *c, int launched)
{
    char path[PATH_MAX], got[4096], want[4096], who[160];
    hwloc_topology_t topo;
    bl_plan p = {0};
    bl_err e = {{0}};
    bl_plan_request req = {.np = c->np, .map_by = c->map_by,
                           .bind_to = c->bind_to};
    int rc;

    topo = load_case(c, path, sizeof path);
    req.topology = path;
    rc = launched ? bl_plan_ranks_launched(&req, topo, preload, &p, &e)
                  : bl_plan_ranks(&req, topo, preload, &p, &e);
    if (rc != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(p.refusal, "");
    snprintf(who, sizeof who, "Open MPI %s", ompi.version);
    assert_string_equal(p.launcher, who);
    assert_int_equal(p.nranks, c->np);
    for (int r = 0; r < c->np; r++) {
        bl_cpuset_format_list(p.rank_pus[r], got, sizeof got);
        derive(topo, c, r, want, sizeof want);
        if (strcmp(got, want))
            fail_msg("%s np %d --map-by %s --bind-to %s rank %d: %s gave %s, "
                     "the topology says %s", c->topology, c->np, c->map_by,
                     c->bind_to, r, who, got, want);
        assert_int_equal(p.rank_bound[r], c->bound);
    }
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

static void plan_ranks_epyc9654_ppr1_package_pe4_takes_first_cores_of_each_package(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&epyc9654_ppr_package_pe4, 0);
}

static void plan_ranks_nps4_ppr1_numa_pe2_puts_one_rank_per_numa_node_in_package_order(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&nps4_ppr_numa_pe2, 0);
}

static void plan_ranks_nps4_ppr2_l3cache_fills_each_ccd_with_two_cores(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&nps4_ppr2_l3cache, 0);
}

static void plan_ranks_icelake_core_binds_each_rank_to_one_core_and_its_ht_sibling(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&icelake_core, 0);
}

static void plan_ranks_icelake_snc2_ppr1_numa_pe4_spreads_over_four_numa_nodes(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&icelake_ppr_numa_pe4, 0);
}

static void plan_ranks_bind_to_none_leaves_every_rank_unbound_on_the_whole_node(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&icelake_bind_none, 0);
}

static void plan_ranks_epyc7763_nps1_ppr1_package_pe2(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&epyc7763_ppr_package_pe2, 0);
}

static void plan_ranks_accepts_a_synthetic_description(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&synthetic_ppr_numa, 0);
}

/* The launch path (preload records the binding, --report-bindings reads
 * it back) must give the same answer. */
static void plan_ranks_launched_through_the_preload_agrees_with_the_topology(void **s)
{
    (void)s;
    NEED_OPENMPI();
    check_plan(&epyc9654_ppr_package_pe4, 1);
    check_plan(&nps4_ppr_numa_pe2, 1);
    check_plan(&nps4_ppr2_l3cache, 1);
    check_plan(&icelake_core, 1);
    check_plan(&icelake_bind_none, 1);
}

/* Open MPI refuses the layout: no ranks, and a message without banners;
 * must_contain (or NULL) is wording particular to a version. */
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

    topo_path(path, sizeof path, topology);
    req.topology = path;
    assert_int_equal(bl_plan_topology_load(path, &topo, &e), 0);
    rc = launched ? bl_plan_ranks_launched(&req, topo, preload, &p, &e)
                  : bl_plan_ranks(&req, topo, preload, &p, &e);
    if (rc != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(p.nranks, 0);
    assert_true(strlen(p.refusal) > 0);
    if (must_contain && !strstr(p.refusal, must_contain))
        fail_msg("refusal lacks '%s':\n%s", must_contain, p.refusal);
    assert_null(strstr(p.refusal, "-----"));
    assert_null(strstr(p.refusal, "FORCE-TERMINATE"));
    assert_null(strstr(p.refusal, "\n\n"));
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

/* 8 NUMA nodes x 2 = 16 ranks at most; 96 cores per package. */
static void plan_ranks_refuses_more_ranks_than_the_ppr_allows_or_more_cores_than_a_package_has(void **s)
{
    (void)s;
    NEED_OPENMPI();
    refused("AMD-EPYC-7763-2s-NPS4-SMT.xml", 40, "ppr:2:numa", "core", NULL, 0);
    refused("AMD-EPYC-7763-2s-NPS4-SMT.xml", 40, "ppr:2:numa", "core", NULL, 1);
    refused("AMD-19h-Zen4-2xEpyc-9654.xml", 4, "ppr:2:package:PE=96", "core",
            NULL, 0);
}

/* Skips unless mpirun is Open MPI 4.1.x, whose wording these are. */
#define NEED_OPENMPI_4_1()                                                  \
    do {                                                                    \
        NEED_OPENMPI();                                                     \
        if (ompi.major != 4 || ompi.minor != 1)                             \
            BL_SKIP("the refusal wording checked is Open MPI 4.1's; "       \
                    "mpirun is Open MPI %s", ompi.version);                 \
    } while (0)

static void plan_ranks_more_ranks_than_the_ppr_allows_gives_open_mpis_trimmed_message(void **s)
{
    (void)s;
    NEED_OPENMPI_4_1();
    refused("AMD-EPYC-7763-2s-NPS4-SMT.xml", 40, "ppr:2:numa", "core",
            "Your job has requested more processes than the ppr for\n"
            "this topology can support:", 0);
}

static void plan_ranks_more_cores_than_a_package_has_is_refused_by_binding(void **s)
{
    (void)s;
    NEED_OPENMPI_4_1();
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
    NEED_OPENMPI(); /* the launcher is detected before the request is read */
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
    /* where it breaks: the end of the file, inside the open tags */
    assert_non_null(strstr(e.msg, "truncated-topology.xml:6:1: not "
                                  "well-formed XML (Premature end"));
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

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test(derivation_from_the_topology_matches_the_hand_worked_sets),
        cmocka_unit_test(topology_load_names_a_missing_file),
        cmocka_unit_test(topology_load_rejects_a_truncated_xml_file),
        cmocka_unit_test(topology_load_rejects_a_bad_synthetic_description),
        cmocka_unit_test(map_to_report_turns_the_job_map_into_report_lines),
        cmocka_unit_test(trim_refusal_keeps_the_message_and_drops_banners),
    };
    static const struct CMUnitTest openmpi[] = {
        cmocka_unit_test(plan_ranks_epyc9654_ppr1_package_pe4_takes_first_cores_of_each_package),
        cmocka_unit_test(plan_ranks_nps4_ppr1_numa_pe2_puts_one_rank_per_numa_node_in_package_order),
        cmocka_unit_test(plan_ranks_nps4_ppr2_l3cache_fills_each_ccd_with_two_cores),
        cmocka_unit_test(plan_ranks_icelake_core_binds_each_rank_to_one_core_and_its_ht_sibling),
        cmocka_unit_test(plan_ranks_icelake_snc2_ppr1_numa_pe4_spreads_over_four_numa_nodes),
        cmocka_unit_test(plan_ranks_bind_to_none_leaves_every_rank_unbound_on_the_whole_node),
        cmocka_unit_test(plan_ranks_epyc7763_nps1_ppr1_package_pe2),
        cmocka_unit_test(plan_ranks_accepts_a_synthetic_description),
        cmocka_unit_test(plan_ranks_launched_through_the_preload_agrees_with_the_topology),
        cmocka_unit_test(plan_ranks_refuses_more_ranks_than_the_ppr_allows_or_more_cores_than_a_package_has),
        cmocka_unit_test(plan_ranks_rejects_np_zero_and_an_unknown_binding),
    };
    static const struct CMUnitTest openmpi_4_1_text[] = {
        cmocka_unit_test(plan_ranks_more_ranks_than_the_ppr_allows_gives_open_mpis_trimmed_message),
        cmocka_unit_test(plan_ranks_more_cores_than_a_package_has_is_refused_by_binding),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
        BL_MACHINE_GROUP("openmpi", openmpi),
        BL_MACHINE_GROUP("openmpi41-text", openmpi_4_1_text),
    };
    find_preload();
    return bl_run_groups(argc, argv, groups);
}
