/* Placement records on this machine: PU lookup, page locations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel.h"
#include "placement.h"
#include "topo.h"

static hwloc_topology_t topo;

static void untouched_pages_are_not_present_until_written(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)page * 64;
    char *buf = bl_untouched_alloc(bytes);
    int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    long long counts[65] = {0};
    long long local = 0, total = 0;
    bl_err err;
    (void)state;
    assert_non_null(buf);
    assert_true(nnodes >= 1 && nnodes < 64);
    assert_int_equal(bl_place_pages_by_node(topo, buf, bytes, counts, &err), 0);
    assert_int_equal(counts[nnodes], 64); /* all "not present" */
    /* Touch 10 pages: they must now sit on some NUMA node. */
    for (int i = 0; i < 10; i++)
        buf[(size_t)i * (size_t)page] = 1;
    memset(counts, 0, sizeof counts);
    assert_int_equal(bl_place_pages_by_node(topo, buf, bytes, counts, &err), 0);
    assert_int_equal(counts[nnodes], 54);
    {
        long long present = 0;
        for (int n = 0; n < nnodes; n++)
            present += counts[n];
        assert_int_equal(present, 10);
    }
    if (nnodes == 1) {
        assert_int_equal(bl_place_pages_local(topo, buf, bytes, 0, &local,
                                              &total, &err), 0);
        assert_int_equal(local, 10);
        assert_int_equal(total, 10);
    }
    bl_untouched_free(buf, bytes);
}

static void pu_lookup_names_core_and_package(void **state)
{
    bl_pu_where w;
    bl_err err;
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
    (void)state;
    assert_int_equal(bl_topo_pu_where(topo, (int)pu->os_index, &w, &err), 0);
    assert_int_equal(w.pu, 0);
    assert_int_equal(w.core, 0);
    assert_int_equal(w.package, 0);
    assert_int_equal(w.numa, 0);
    assert_int_equal(bl_topo_pu_where(topo, 100000, &w, &err), -1);
}

static void foreign_topology_loads_from_synthetic(void **state)
{
    hwloc_topology_t t;
    bl_topo_counts c;
    bl_pu_where w;
    bl_err err;
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 numa:4 l3:2 core:8 pu:2", &t, &err),
                     0);
    bl_topo_counts_get(t, &c);
    assert_int_equal(c.packages, 2);
    assert_int_equal(c.numa_nodes, 8);
    assert_int_equal(c.l3_domains, 16);
    assert_int_equal(c.cores, 128);
    assert_int_equal(c.pus, 256);
    /* The last PU: package 1, NUMA node 7, L3 15, core 127. */
    assert_int_equal(bl_topo_pu_where(t, 255, &w, &err), 0);
    assert_int_equal(w.package, 1);
    assert_int_equal(w.numa, 7);
    assert_int_equal(w.l3, 15);
    assert_int_equal(w.core, 127);
    hwloc_topology_destroy(t);
    assert_int_equal(bl_topo_load("pack:two", &t, &err), -1);
    assert_non_null(strstr(err.msg, "synthetic"));
}

static void thread_record_names_its_cpu(void **state)
{
    bl_thread_place p = {0};
    (void)state;
    bl_place_thread_begin(&p);
    bl_place_thread_end(topo, &p);
    assert_true(p.cpu_first >= 0);
    assert_true(p.cpu_last >= 0);
    assert_true(p.core >= 0);
    assert_true(strlen(p.cpuset) > 0);
    assert_true(p.migrations >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untouched_pages_are_not_present_until_written),
        cmocka_unit_test(pu_lookup_names_core_and_package),
        cmocka_unit_test(foreign_topology_loads_from_synthetic),
        cmocka_unit_test(thread_record_names_its_cpu),
    };
    bl_err err;
    int rc;
    if (bl_topo_load(NULL, &topo, &err) < 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    hwloc_topology_destroy(topo);
    return rc;
}
