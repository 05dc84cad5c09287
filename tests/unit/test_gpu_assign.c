/* Dealing GPUs to ranks (gpu_assign.h) on hand-made localities, and the
 * devices bindlab plan finds in real topologies from hwloc's test set
 * (tests/fixtures/topologies/devices/). */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "gpu_assign.h"
#include "gpu_visible.h"
#include "plan/plan_devices.h"
#include "plan/plan_ranks.h"

#include "bl_test_cpus.h"

/* Four GPUs: 0-1 local to PUs 0-7 (package 0), 2-3 to PUs 8-15. */
typedef struct node4 {
    hwloc_bitmap_t dev[4];
} node4;

static void node4_make(node4 *n)
{
    for (int d = 0; d < 4; d++)
        n->dev[d] = bl_test_set_of(d < 2 ? "0-7" : "8-15");
}

static void node4_free(node4 *n)
{
    for (int d = 0; d < 4; d++)
        hwloc_bitmap_free(n->dev[d]);
}

/* The devices of local rank lr bound to pus, the ranks before it bound
 * to before[i] ("" unknown), as "0,1" ("" for none). */
static const char *dealt_after(node4 *n, bl_gpu_bind how, int per_rank,
                               int lr, const char *pus,
                               const char *const *before)
{
    static char buf[64];
    hwloc_bitmap_t sets[8] = {0};
    int out[4], got;
    for (int i = 0; i < lr; i++)
        sets[i] = before && before[i][0] ? bl_test_set_of(before[i]) : NULL;
    sets[lr] = bl_test_set_of(pus);
    got = bl_gpu_assign(how, per_rank, lr, (hwloc_const_bitmap_t *)sets, 4,
                        (hwloc_const_bitmap_t *)n->dev, out);
    for (int i = 0; i <= lr; i++)
        hwloc_bitmap_free(sets[i]);
    buf[0] = '\0';
    for (int j = 0; j < got; j++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d",
                 j ? "," : "", out[j]);
    return buf;
}

/* ... the ranks before it unknown (a wrapper's view). */
static const char *dealt(node4 *n, bl_gpu_bind how, int per_rank, int lr,
                         const char *pus)
{
    return dealt_after(n, how, per_rank, lr, pus, NULL);
}

static void closest_takes_local_gpus_by_local_rank(void **state)
{
    node4 n;
    (void)state;
    node4_make(&n);
    /* two ranks per package, one GPU each: each its own local GPU */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 0, "0-3"), "0");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 1, "4-7"), "1");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 2, "8-11"), "2");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 3, "12-15"), "3");
    /* ranks alternating packages (map-by package), unknown to each
     * other: local, dealt by local rank */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 1, "8"), "3");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 2, "1"), "0");
    /* ... known: each package's ranks take its GPUs in turn */
    {
        const char *const before[] = {"0", "8", "1"};
        assert_string_equal(dealt_after(&n, BL_GPU_BIND_CLOSEST, 1, 1, "8",
                                        before), "2");
        assert_string_equal(dealt_after(&n, BL_GPU_BIND_CLOSEST, 1, 2, "1",
                                        before), "1");
        assert_string_equal(dealt_after(&n, BL_GPU_BIND_CLOSEST, 1, 3, "9",
                                        before), "3");
        /* an unknown rank before counts as one of the same domain */
        const char *const unknown[] = {"0", ""};
        assert_string_equal(dealt_after(&n, BL_GPU_BIND_CLOSEST, 1, 2, "8",
                                        unknown), "3");
    }
    /* two GPUs per rank: the package's pair */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 2, 1, "8-15"), "2,3");
    /* three per rank: both local ones, then one remote */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 3, 0, "0-7"),
                        "0,1,2");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 3, 1, "0-7"),
                        "0,1,3");
    /* more than the node has: all of them */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 9, 0, "0"),
                        "0,1,2,3");
    /* a rank over both packages sees all four as local: round robin */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 3, "0-15"), "3");
    /* bound where no GPU is local: dealt from all of them */
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 1, 1, "16-19"), "1");
    node4_free(&n);
}

static void round_robin_ignores_locality_and_none_gives_nothing(void **state)
{
    node4 n;
    (void)state;
    node4_make(&n);
    assert_string_equal(dealt(&n, BL_GPU_BIND_ROUND_ROBIN, 1, 1, "8"), "1");
    assert_string_equal(dealt(&n, BL_GPU_BIND_ROUND_ROBIN, 1, 5, "0"), "1");
    assert_string_equal(dealt(&n, BL_GPU_BIND_ROUND_ROBIN, 2, 1, "0"),
                        "2,3");
    assert_string_equal(dealt(&n, BL_GPU_BIND_ROUND_ROBIN, 3, 1, "0"),
                        "0,1,3");
    assert_string_equal(dealt(&n, BL_GPU_BIND_NONE, 1, 0, "0"), "");
    assert_string_equal(dealt(&n, BL_GPU_BIND_CLOSEST, 0, 0, "0"), "");
    node4_free(&n);
}

static void bind_names_parse_both_ways(void **state)
{
    bl_gpu_bind b;
    bl_err err;
    (void)state;
    assert_int_equal(bl_gpu_bind_parse("round_robin", &b, &err), 0);
    assert_string_equal(bl_gpu_bind_name(b), "round-robin");
    assert_int_equal(bl_gpu_bind_parse("closest", &b, &err), 0);
    assert_string_equal(bl_gpu_bind_name(b), "closest");
    assert_int_equal(bl_gpu_bind_parse("nearest", &b, &err), -1);
    assert_non_null(strstr(err.msg, "closest, round-robin, none"));
}

/* The devices of fixture name, as "kind index busid numa package" lines. */
static char *devices_of(const char *name)
{
    char path[PATH_MAX], *buf = NULL;
    size_t len = 0;
    hwloc_topology_t topo;
    bl_plan_devices d;
    bl_err err;
    FILE *f = open_memstream(&buf, &len);
    snprintf(path, sizeof path, "%s/topologies/devices/%s",
             getenv("BINDLAB_FIXTURES"), name);
    if (bl_plan_topology_load(path, &topo, &err) < 0 ||
        bl_plan_devices_find(topo, &d, &err) < 0)
        fail_msg("%s: %s", name, err.msg);
    for (int i = 0; i < d.n; i++)
        fprintf(f, "%s %d %s %d %d %s\n",
                d.dev[i].kind == BL_DEVICE_GPU ? "gpu" : "nic",
                d.dev[i].index, d.dev[i].busid, d.dev[i].numa,
                d.dev[i].package, d.dev[i].names);
    fclose(f);
    bl_plan_devices_free(&d);
    hwloc_topology_destroy(topo);
    return buf;
}

/* By hand from the fixtures' PCI trees (lstopo --input F): the onboard
 * ATI ES1000 VGA is not a GPU; the ConnectX-3 (class 0c06) is a NIC. */
static void devices_of_real_topologies(void **state)
{
    char *s;
    (void)state;
    if (!getenv("BINDLAB_FIXTURES"))
        fail_msg("BINDLAB_FIXTURES is not set (run through ctest)");
    s = devices_of("24em64t-2n6c2t-pci.xml");
    assert_string_equal(s, "gpu 0 0000:06:00.0 0 0 \n"
                           "gpu 1 0000:11:00.0 1 1 \n"
                           "gpu 2 0000:14:00.0 1 1 \n"
                           "nic -1 0000:04:00.0 0 0 eth0\n"
                           "nic -1 0000:04:00.1 0 0 eth1\n"
                           "nic -1 0000:05:00.0 0 0 eth2,ib0,mlx4_0\n");
    free(s);
    s = devices_of("power8gpudistances.xml");
    assert_string_equal(s,
        "gpu 0 0002:01:00.0 0 0 cuda0,opencl0d0,nvml0\n"
        "gpu 1 0003:01:00.0 0 0 cuda1,opencl0d1,nvml1\n"
        "gpu 2 000a:01:00.0 1 1 cuda2,opencl0d2,nvml2\n"
        "gpu 3 000b:01:00.0 1 1 cuda3,opencl0d3,nvml3\n");
    free(s);
    /* NUMA nodes above four packages each: no single package */
    s = devices_of("96em64t-4n4d3ca2co-pci.xml");
    assert_non_null(strstr(s, "nic -1 0000:32:00.1 1 -1 eth3\n"));
    assert_null(strstr(s, "gpu"));
    free(s);
}

/* The visible-device variables a test sets; what the filter returned. */
static const char *cuda_value, *rocr_value, *ze_value;
static int last_given;

static const char *fake_env(void *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "CUDA_VISIBLE_DEVICES")   ? cuda_value
           : !strcmp(name, "ROCR_VISIBLE_DEVICES") ? rocr_value
           : !strcmp(name, "ZE_AFFINITY_MASK")     ? ze_value
                                                   : NULL;
}

/* Bus ids of the GPUs kept from 3 NVIDIA, 2 AMD and 2 Intel ones. */
static const char *kept(const char *cuda, const char *rocr, const char *ze,
                        int *hidden)
{
    static const struct { const char *bus; unsigned vendor; } all[] = {
        {"0000:01:00.0", 0x10de}, {"0000:02:00.0", 0x10de},
        {"0000:03:00.0", 0x1002}, {"0000:04:00.0", 0x10de},
        {"0000:05:00.0", 0x1002}, {"0000:06:00.0", 0x8086},
        {"0000:07:00.0", 0x8086}};
    static char buf[128];
    bl_pci_list l = {calloc(7, sizeof(bl_pci_fn)), 7};
    for (int i = 0; i < 7; i++) {
        snprintf(l.fn[i].busid, sizeof l.fn[i].busid, "%s", all[i].bus);
        l.fn[i].vendor = all[i].vendor;
        l.fn[i].local_cpus = hwloc_bitmap_alloc();
    }
    cuda_value = cuda, rocr_value = rocr, ze_value = ze;
    last_given = bl_gpu_visible_filter(&l, fake_env, NULL, hidden);
    buf[0] = '\0';
    for (int i = 0; i < l.n; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%c",
                 l.fn[i].busid + 5, i + 1 < l.n ? ' ' : '\0');
    bl_pci_list_free(&l);
    return buf;
}

static void visible_variables_pick_per_vendor(void **state)
{
    int hidden;
    (void)state;
    assert_string_equal(kept(NULL, NULL, NULL, &hidden),
                        "01:00.0 02:00.0 03:00.0 04:00.0 05:00.0 06:00.0 "
                        "07:00.0");
    assert_int_equal(hidden, 0);
    assert_int_equal(last_given, 0);    /* nothing chose among them */
    /* NVIDIA's third is 04:00.0; AMD's second 05:00.0 */
    assert_string_equal(kept("2", "1", NULL, &hidden),
                        "04:00.0 05:00.0 06:00.0 07:00.0");
    assert_int_equal(hidden, 3);
    assert_int_equal(last_given, 0);    /* Intel's: no variable */
    /* empty hides every one of that vendor; ZE's "1.0" is device 1 */
    assert_string_equal(kept("", "0,1", "1.0", &hidden),
                        "03:00.0 05:00.0 07:00.0");
    assert_int_equal(last_given, 1);
    /* a UUID cannot be resolved: that vendor's are all kept */
    assert_string_equal(kept("GPU-8f2c,1", "", "", &hidden),
                        "01:00.0 02:00.0 04:00.0");
    assert_int_equal(last_given, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closest_takes_local_gpus_by_local_rank),
        cmocka_unit_test(round_robin_ignores_locality_and_none_gives_nothing),
        cmocka_unit_test(bind_names_parse_both_ways),
        cmocka_unit_test(devices_of_real_topologies),
        cmocka_unit_test(visible_variables_pick_per_vendor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
