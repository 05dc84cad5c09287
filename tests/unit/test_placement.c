/* Placement records on this machine: PU lookup, page locations and the
 * calling thread's CPU, each checked against what the kernel says through
 * another door (get_mempolicy for a page's node, mbind to put pages on a
 * chosen node, sched_setaffinity and /proc for a thread's CPUs). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bl_test.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "kernel.h"
#include "measure/pagemap.h"
#include "measure/placement.h"
#include "topo.h"

static hwloc_topology_t topo;

enum { NPAGES = 64, TOUCHED = 10 };

/* The hwloc logical NUMA node of a present page, from get_mempolicy(2)
 * (the kernel's answer for one address; move_pages is what bindlab uses). */
static int page_node(const void *addr)
{
    int os = -1;
    if (syscall(SYS_get_mempolicy, &os, NULL, 0UL, addr,
                MPOL_F_NODE | MPOL_F_ADDR) != 0)
        fail_msg("get_mempolicy: %s", strerror(errno));
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)os);
    if (!node)
        fail_msg("page on Linux node %d, which hwloc does not list", os);
    return (int)node->logical_index;
}

static void pages_are_counted_on_the_node_the_kernel_names(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)page * NPAGES;
    char *buf = bl_untouched_alloc(bytes);
    int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    long long counts[65] = {0}, want[65] = {0};
    long long local = 0, total = 0;
    bl_err err;
    (void)state;
    assert_non_null(buf);
    assert_true(nnodes >= 1 && nnodes < 64);
    assert_int_equal(bl_place_pages_by_node(topo, buf, bytes, counts, &err), 0);
    assert_int_equal(counts[nnodes], NPAGES); /* fresh mapping: none present */
    for (int i = 0; i < TOUCHED; i++)
        buf[(size_t)i * (size_t)page] = 1;
    for (int i = 0; i < TOUCHED; i++)
        want[page_node(buf + (size_t)i * (size_t)page)]++;
    want[nnodes] = NPAGES - TOUCHED;
    memset(counts, 0, sizeof counts);
    assert_int_equal(bl_place_pages_by_node(topo, buf, bytes, counts, &err), 0);
    for (int n = 0; n <= nnodes; n++)
        if (counts[n] != want[n])
            fail_msg("node slot %d: bindlab counts %lld pages, get_mempolicy "
                     "%lld", n, counts[n], want[n]);
    /* "Local" to the node of the first page: the pages the kernel put there. */
    int first = page_node(buf);
    assert_int_equal(bl_place_pages_local(topo, buf, bytes, first, &local,
                                          &total, &err), 0);
    assert_int_equal(local, want[first]);
    assert_int_equal(total, TOUCHED);
    bl_untouched_free(buf, bytes);
}

/* Pages put on purpose: the first half of the touched pages on the first
 * NUMA node, the rest on the last (the same node on a one-node machine). */
static void pages_bound_with_mbind_are_counted_where_they_were_put(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)page * NPAGES, half = (size_t)page * (TOUCHED / 2);
    char *buf = bl_untouched_alloc(bytes);
    int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    hwloc_obj_t a = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
    hwloc_obj_t b = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                          (unsigned)nnodes - 1);
    unsigned long mask[16];
    long long counts[65] = {0}, local = 0, total = 0;
    bl_err err;
    (void)state;
    assert_non_null(buf);
    assert_true(a->os_index < 1024 && b->os_index < 1024);
    for (int k = 0; k < 2; k++) {
        hwloc_obj_t node = k ? b : a;
        memset(mask, 0, sizeof mask);
        mask[node->os_index / (8 * sizeof *mask)] |=
            1UL << (node->os_index % (8 * sizeof *mask));
        if (syscall(SYS_mbind, buf + (k ? half : 0), half, MPOL_BIND, mask,
                    8 * sizeof mask, 0U) != 0)
            fail_msg("mbind to node %u: %s", node->os_index, strerror(errno));
    }
    for (int i = 0; i < TOUCHED; i++)
        buf[(size_t)i * (size_t)page] = 1;
    assert_int_equal(bl_place_pages_by_node(topo, buf, bytes, counts, &err), 0);
    if (nnodes == 1) {
        assert_int_equal(counts[0], TOUCHED);
    } else {
        assert_int_equal(counts[a->logical_index], TOUCHED / 2);
        assert_int_equal(counts[b->logical_index], TOUCHED / 2);
    }
    assert_int_equal(counts[nnodes], NPAGES - TOUCHED);
    assert_int_equal(bl_place_pages_local(topo, buf, bytes,
                                          (int)b->logical_index, &local,
                                          &total, &err), 0);
    assert_int_equal(local, nnodes == 1 ? TOUCHED : TOUCHED / 2);
    assert_int_equal(total, TOUCHED);
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

/* The calling thread's Cpus_allowed_list, as Linux shows it. */
static void proc_cpus_allowed(char *out, size_t len)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status",
             (long)syscall(SYS_gettid));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    out[0] = '\0';
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Cpus_allowed_list: %4095s", line) == 1) {
            snprintf(out, len, "%s", line);
            break;
        }
    fclose(f);
    assert_true(out[0] != '\0');
}

/* Pinned to the last CPU it may use, the thread must be recorded there:
 * that CPU at start and end, that CPU alone as its binding (as /proc
 * lists it), the core hwloc puts that PU in, and no migration. */
static void thread_record_names_the_cpu_it_was_pinned_to(void **state)
{
    cpu_set_t saved, one;
    bl_thread_place p = {0};
    char allowed[4096], want[32];
    int cpu = -1;
    (void)state;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &saved))
            cpu = c;
    assert_true(cpu >= 0);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    sched_yield(); /* let the scheduler move us there */
    bl_place_thread_begin(&p);
    bl_place_thread_end(topo, &p);
    proc_cpus_allowed(allowed, sizeof allowed);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);

    snprintf(want, sizeof want, "%d", cpu);
    assert_string_equal(allowed, want);
    assert_int_equal(p.cpu_first, cpu);
    assert_int_equal(p.cpu_last, cpu);
    assert_string_equal(p.cpuset, allowed);
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
    assert_non_null(pu);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE,
                                                     pu);
    if (core)
        assert_int_equal(p.core, (int)core->logical_index);
    if (pkg)
        assert_int_equal(p.package, (int)pkg->logical_index);
    /* -1 only where the kernel shows no se.nr_migrations */
    assert_true(p.migrations == 0 || p.migrations == -1);
}

/* The frames of /proc/self/pagemap name the node get_mempolicy names; an
 * untouched page has none. Root only: other users read frame 0. */
static void pagemap_names_the_node_of_present_pages(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    char *buf = bl_untouched_alloc((size_t)page * 4);
    bl_pagemap pm;
    (void)state;
    assert_non_null(buf);
    if (bl_pagemap_open(&pm) < 0) {
        bl_pagemap_close(&pm);
        bl_untouched_free(buf, (size_t)page * 4);
        BL_SKIP("/proc/self/pagemap shows no frames to this user "
                "(CAP_SYS_ADMIN needed)");
    }
    for (int i = 0; i < 3; i++)
        buf[(size_t)i * (size_t)page] = 1;
    for (int i = 0; i < 3; i++) {
        int os = bl_pagemap_node(&pm, (uintptr_t)(buf + (size_t)i * (size_t)page));
        hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)os);
        assert_non_null(node);
        assert_int_equal((int)node->logical_index,
                         page_node(buf + (size_t)i * (size_t)page));
    }
    assert_int_equal(bl_pagemap_node(&pm, (uintptr_t)(buf + 3 * (size_t)page)), -1);
    bl_pagemap_close(&pm);
    bl_untouched_free(buf, (size_t)page * 4);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest placement[] = {
        cmocka_unit_test(pages_are_counted_on_the_node_the_kernel_names),
        cmocka_unit_test(pages_bound_with_mbind_are_counted_where_they_were_put),
        cmocka_unit_test(pu_lookup_names_core_and_package),
        cmocka_unit_test(foreign_topology_loads_from_synthetic),
        cmocka_unit_test(thread_record_names_the_cpu_it_was_pinned_to),
    };
    static const struct CMUnitTest pagemap[] = {
        cmocka_unit_test(pagemap_names_the_node_of_present_pages),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("placement", placement),
        BL_MACHINE_GROUP("pagemap", pagemap),
    };
    bl_err err;
    int rc;
    if (bl_topo_load(NULL, &topo, &err) < 0) {
        fprintf(stderr, "test_placement: %s\n", err.msg);
        return 1;
    }
    rc = bl_run_groups(argc, argv, groups);
    hwloc_topology_destroy(topo);
    return rc;
}
