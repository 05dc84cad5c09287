/* The CPUs a job may use (common/allowed.h), read from made-up /proc and
 * /sys trees: the affinity within a cgroup v2 or v1 cpuset, Slurm's grant
 * capping the count, a --cpuset list, and a topology cut to the set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allowed.h"
#include "bindreport/bindreport.h"
#include "sys_util.h"
#include "topo.h"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(bl_mkdir_p(dir, NULL), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    strcpy(root, "/tmp/bl-allowed-XXXXXX");
    assert_non_null(mkdtemp(root));
    put("/proc/self/status", "Name:\tx\nCpus_allowed:\tff\n"
                             "Cpus_allowed_list:\t0-7\nMems_allowed_list:\t0\n");
    unsetenv("SLURM_CPUS_ON_NODE");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    unsetenv("SLURM_CPU_BIND");
    return 0;
}

static int teardown(void **state)
{
    char *argv[] = {"rm", "-rf", root, NULL};
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        execvp("rm", argv);
        _exit(127);
    }
    while (wait(NULL) < 0)
        ;
    return 0;
}

static void allowed_is_the_affinity_within_a_cgroup_v2_cpuset(void **state)
{
    bl_allowed a;
    bl_err err;
    char list[64], from[256];
    (void)state;
    put("/proc/self/cgroup", "0::/job42\n");
    put("/sys/fs/cgroup/job42/cpuset.cpus.effective", "2-5\n");
    put("/sys/fs/cgroup/job42/cpuset.mems.effective", "0\n");
    assert_int_equal(bl_allowed_gather(&a, root, &err), 0);
    bl_allowed_list(&a, list, sizeof list);
    assert_string_equal(list, "2-5");
    assert_int_equal(bl_allowed_usable(&a), 4);
    bl_allowed_sources(&a, from, sizeof from);
    assert_string_equal(from, "affinity 0-7, cgroup cpuset 2-5");
    bl_allowed_free(&a);
}

static void allowed_reads_a_cgroup_v1_cpuset_and_slurms_grant(void **state)
{
    char list[64], from[256];
    bl_allowed a;
    bl_err err;
    (void)state;
    put("/proc/self/cgroup", "4:memory:/x\n3:cpuset:/slurm/uid_0/job_7\n");
    put("/sys/fs/cgroup/cpuset/slurm/uid_0/job_7/cpuset.effective_cpus",
        "4-7\n");
    setenv("SLURM_CPUS_ON_NODE", "2", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "2(x3)", 1);
    assert_int_equal(bl_allowed_gather(&a, root, &err), 0);
    bl_allowed_list(&a, list, sizeof list);
    assert_string_equal(list, "4-7");
    /* four CPUs in the set, two granted: two usable at once */
    assert_int_equal(bl_allowed_usable(&a), 2);
    bl_allowed_sources(&a, from, sizeof from);
    assert_string_equal(from, "affinity 0-7, cgroup cpuset 4-7, "
                              "SLURM_CPUS_ON_NODE 2, "
                              "SLURM_JOB_CPUS_PER_NODE 2(x3)");
    bl_allowed_free(&a);
    unsetenv("SLURM_CPUS_ON_NODE");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
}

static void allowed_without_a_cgroup_is_the_affinity(void **state)
{
    bl_allowed a;
    bl_err err;
    char list[64];
    (void)state;
    put("/proc/self/cgroup", "1:name=systemd:/\n");
    assert_int_equal(bl_allowed_gather(&a, root, &err), 0);
    bl_allowed_list(&a, list, sizeof list);
    assert_string_equal(list, "0-7");
    assert_string_equal(a.cgroup_cpus, "");
    bl_allowed_free(&a);
}

static void allowed_cuts_a_topology_to_the_set(void **state)
{
    hwloc_topology_t topo, cut;
    bl_allowed a;
    bl_err err;
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 core:4 pu:2", &topo, &err), 0);
    assert_int_equal(bl_allowed_from_list(&a, "4-7", &err), 0);
    assert_int_equal(bl_allowed_restrict(&a, topo, &cut, &err), 0);
    assert_non_null(cut);
    assert_int_equal(hwloc_get_nbobjs_by_type(cut, HWLOC_OBJ_CORE), 2);
    /* logical core 0 of the cut node is the core of OS PUs 4-5 */
    hwloc_obj_t c0 = hwloc_get_obj_by_type(cut, HWLOC_OBJ_CORE, 0);
    assert_int_equal(hwloc_bitmap_first(c0->cpuset), 4);
    hwloc_topology_destroy(cut);
    bl_allowed_free(&a);
    /* the whole node: nothing to cut; none of it: an error */
    assert_int_equal(bl_allowed_from_list(&a, "0-15", &err), 0);
    assert_int_equal(bl_allowed_restrict(&a, topo, &cut, &err), 0);
    assert_null(cut);
    bl_allowed_free(&a);
    assert_int_equal(bl_allowed_from_list(&a, "99", &err), 0);
    assert_int_equal(bl_allowed_restrict(&a, topo, &cut, &err), -1);
    assert_non_null(strstr(err.msg, "99"));
    bl_allowed_free(&a);
    assert_int_equal(bl_allowed_from_list(&a, "x", &err), -1);
    bl_allowed_free(&a);
    hwloc_topology_destroy(topo);
}

/* Inside a cgroup cpuset every hwloc reader (Open MPI's mapper, bindlab's
 * loads of this machine and of a run's recorded topology) sees only the
 * allowed PUs, and logical numbers count from them: Open MPI's "core 0"
 * there is the first allowed core. Read with the node cut the same way,
 * the report's sets are OS indexes of the whole machine. */
static void allowed_maps_a_report_numbered_in_the_cgroup(void **state)
{
    static const char *const line =
        "[n1:1] MCW rank 0 bound to socket 0[core 0[hwt 0-1]]: [BB/..]\n"
        "[n1:1] MCW rank 1 bound to socket 0[core 1[hwt 0-1]]: [../BB]\n";
    hwloc_topology_t topo, cut;
    bl_binding_report rep;
    bl_allowed a;
    bl_err err;
    char set[32];
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 core:4 pu:2", &topo, &err), 0);
    assert_int_equal(bl_allowed_from_list(&a, "4-7", &err), 0);
    assert_int_equal(bl_allowed_restrict(&a, topo, &cut, &err), 0);
    assert_int_equal(bl_bindreport_parse(line, BL_REPORT_OMPI4, cut, &rep,
                                         &err), 0);
    assert_int_equal(rep.count, 2);
    hwloc_bitmap_list_snprintf(set, sizeof set, rep.items[0].cpus);
    assert_string_equal(set, "4-5");
    hwloc_bitmap_list_snprintf(set, sizeof set, rep.items[1].cpus);
    assert_string_equal(set, "6-7");
    bl_bindreport_free(&rep);
    hwloc_topology_destroy(cut);
    hwloc_topology_destroy(topo);
    bl_allowed_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allowed_is_the_affinity_within_a_cgroup_v2_cpuset),
        cmocka_unit_test(allowed_reads_a_cgroup_v1_cpuset_and_slurms_grant),
        cmocka_unit_test(allowed_without_a_cgroup_is_the_affinity),
        cmocka_unit_test(allowed_cuts_a_topology_to_the_set),
        cmocka_unit_test(allowed_maps_a_report_numbered_in_the_cgroup),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
