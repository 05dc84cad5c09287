/* libFuzzer target: what a rank's OpenMP runtime reads, as the planner
 * models it (harness/plan/plan_kmp.c, plan_omp.c, plan_omp_kmp.c). The
 * first byte picks the runtime (libgomp, libomp, intel) and the thread
 * count, the rest is "KMP_AFFINITY\nOMP_PLACES\nOMP_PROC_BIND". Checks
 * what each promises: a KMP_AFFINITY value parsed once parses again to the
 * same fields; a plan that succeeds has one row per thread, each with PUs
 * inside the rank's; a failure leaves no row behind. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "plan/plan.h"
#include "plan/plan_kmp.h"
#include "plan/plan_omp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static hwloc_topology_t topology(void)
{
    static hwloc_topology_t topo;
    if (!topo && (hwloc_topology_init(&topo) < 0 ||
                  hwloc_topology_set_synthetic(topo, "pack:2 core:3 pu:2") < 0 ||
                  hwloc_topology_load(topo) < 0))
        abort();
    return topo;
}

static void check_kmp(const char *text)
{
    bl_kmp_affinity a, b;
    bl_err err;
    if (bl_kmp_affinity_parse(text, &a, &err) < 0)
        return;
    if (bl_kmp_affinity_parse(text, &b, &err) < 0 || memcmp(&a, &b, sizeof a) ||
        strlen(a.proclist) >= sizeof a.proclist ||
        strcmp(bl_kmp_type_name(a.type), "?") == 0 ||
        strcmp(bl_kmp_gran_name(a.gran), "?") == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, *places, *bind;
    hwloc_topology_t topo = topology();
    hwloc_bitmap_t rank = hwloc_bitmap_alloc();
    bl_plan plan;
    bl_err err;
    if (size < 1 || size > 4096) {
        hwloc_bitmap_free(rank);
        return 0;
    }
    if (!rank || !(text = malloc(size)))
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    places = strchr(text, '\n');
    if (places)
        *places++ = '\0';
    bind = places ? strchr(places, '\n') : NULL;
    if (bind)
        *bind++ = '\0';
    check_kmp(text);

    bl_omp_env env = {(bl_omp_runtime)(data[0] % 3), places, bind, text, NULL};
    int nthreads = 1 + (data[0] >> 2) % 14;
    /* a rank on PUs 1..8: cores cut in two, both packages */
    hwloc_bitmap_set_range(rank, 1, 8);
    memset(&plan, 0, sizeof plan);
    if (bl_omp_assign_env(topo, 0, rank, &env, nthreads, &plan, &err) == 0) {
        if (plan.nthreads != (size_t)nthreads)
            abort();
        for (size_t i = 0; i < plan.nthreads; i++)
            if (hwloc_bitmap_iszero(plan.threads[i].pus) ||
                !hwloc_bitmap_isincluded(plan.threads[i].pus, rank))
                abort();
    } else if (plan.nthreads != 0) {
        abort();
    }
    bl_plan_free(&plan);
    hwloc_bitmap_free(rank);
    free(text);
    return 0;
}
