/* The Intel MPI placement model (plan_ranks_impi.c) on synthetic nodes
 * whose PU numbering is known by construction: in "pack:2 numa:2 l3:2
 * core:4 pu:2" hwloc numbers PUs in order, so core c holds PUs 2c and
 * 2c+1, L3 l PUs 8l..8l+7, NUMA node n PUs 16n..16n+15, package p PUs
 * 32p..32p+31. Expected sets below are derived from that, by hand. The
 * model against the real Intel MPI: tests/integration/test_plan_hydra.sh. */
#include "bl_test.h"

#include "cpuset.h"
#include "launcher/layout_hydra.h"
#include "plan/plan_ranks.h"
#include "topo.h"

#define NODE "pack:2 numa:2 l3:2 core:4 pu:2"

/* Plans -np np --map-by map --bind-to bind for Intel MPI on NODE and checks
 * rank i's PUs against want[i]. */
static void check(int np, const char *map, const char *bind,
                  const char *const *want, int bound)
{
    hwloc_topology_t t;
    bl_layout l;
    bl_plan p;
    bl_err err;
    char buf[32];
    bl_launcher_info li = {.kind = BL_LAUNCHER_INTELMPI, .major = 2021,
                           .minor = 19, .version = "2021.19.0"};
    assert_int_equal(bl_topo_load(NODE, &t, &err), 0);
    bl_layout_defaults(&l);
    snprintf(buf, sizeof buf, "%d", np);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, buf, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_BIND_TO, bind, &err), 0);
    if (bl_layout_translate_for(&l, &li, t, &err) < 0)
        fail_msg("%s %s: %s", map, bind, err.msg);
    memset(&p, 0, sizeof p);
    if (bl_plan_ranks_impi_model(&l, t, &li, &p, &err) < 0)
        fail_msg("%s %s: %s", map, bind, err.msg);
    assert_int_equal(p.modelled, 1);
    assert_non_null(strstr(p.how, "modelled by bindlab"));
    assert_string_equal(p.launcher, "Intel MPI 2021.19.0");
    assert_int_equal(p.nranks, np);
    for (int r = 0; r < np; r++) {
        char got[256];
        bl_cpuset_format_list(p.rank_pus[r], got, sizeof got);
        if (strcmp(got, want[r]) != 0)
            fail_msg("%s %s rank %d: %s, expected %s", map, bind, r, got,
                     want[r]);
        assert_int_equal(p.rank_bound[r], bound);
    }
    bl_plan_free(&p);
    hwloc_topology_destroy(t);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__})

/* core domains, compact: neighbouring cores in order */
static void impi_core_domains_in_order(void **state)
{
    (void)state;
    check(3, "core", "core", WANT("0-1", "2-3", "4-5"), 1);
}

/* core:PE=2 = I_MPI_PIN_DOMAIN=4:compact (2 cores x 2 PUs) */
static void impi_pe_domains_are_pu_runs(void **state)
{
    (void)state;
    check(2, "core:PE=2", "core", WANT("0-3", "4-7"), 1);
}

/* 4 NUMA nodes; rank 4 wraps to node 0, as Intel MPI did on the VM */
static void impi_numa_domains_wrap_around(void **state)
{
    (void)state;
    check(5, "numa", "numa",
          WANT("0-15", "16-31", "32-47", "48-63", "0-15"), 1);
}

static void impi_socket_and_l3_domains(void **state)
{
    (void)state;
    check(2, "package", "package", WANT("0-31", "32-63"), 1);
    check(3, "l3cache", "l3cache", WANT("0-7", "8-15", "16-23"), 1);
}

/* I_MPI_PIN=0: nobody pinned, each rank the whole node */
static void impi_unpinned_ranks_get_the_node(void **state)
{
    (void)state;
    check(2, "core", "none", WANT("0-63", "0-63"), 0);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest model[] = {
        cmocka_unit_test(impi_core_domains_in_order),
        cmocka_unit_test(impi_pe_domains_are_pu_runs),
        cmocka_unit_test(impi_numa_domains_wrap_around),
        cmocka_unit_test(impi_socket_and_l3_domains),
        cmocka_unit_test(impi_unpinned_ranks_get_the_node),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("model", model),
    };
    return bl_run_groups(argc, argv, groups);
}
