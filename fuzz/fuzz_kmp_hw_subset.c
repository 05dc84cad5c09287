/* libFuzzer target: KMP_HW_SUBSET as the planner reads and models it
 * (harness/plan/plan_kmp_subset.c, plan_omp_kmp.c's bl_omp_hw_subset).
 * The first byte picks the runtime, the node and the rank's PUs; the rest
 * is the value. Checks what each promises: a value parsed once parses
 * again to the same items, each with a known unit and no negative count
 * or offset; the subset kept is never empty and never leaves the rank
 * (all of it under libgomp, or when a note says the runtime ignores the
 * value); a plan inside it keeps every thread there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "plan/plan.h"
#include "plan/plan_kmp.h"
#include "plan/plan_omp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A two-package SMT node, and one whose package NUMA nodes split. */
static hwloc_topology_t topology(int which)
{
    static hwloc_topology_t topo[2];
    static const char *const desc[2] = {"pack:2 core:3 pu:2",
                                        "pack:1 numa:2 core:2 pu:2"};
    if (!topo[which] && (hwloc_topology_init(&topo[which]) < 0 ||
                         hwloc_topology_set_synthetic(topo[which], desc[which]) < 0 ||
                         hwloc_topology_load(topo[which]) < 0))
        abort();
    return topo[which];
}

static void check_parse(const char *text)
{
    bl_kmp_hw_subset a, b;
    bl_err err;
    if (bl_kmp_hw_subset_parse(text, &a, &err) < 0)
        return;
    if (bl_kmp_hw_subset_parse(text, &b, &err) < 0 || memcmp(&a, &b, sizeof a) ||
        a.n < 0 || a.n > BL_KMP_SUBSET_MAX)
        abort();
    for (int i = 0; i < a.n; i++)
        if (strcmp(bl_kmp_unit_name(a.item[i].unit), "?") == 0 ||
            a.item[i].count < 0 || a.item[i].offset < 0 ||
            strlen(a.item[i].attr) >= sizeof a.item[i].attr)
            abort();
}

static void check_plan(hwloc_topology_t topo, hwloc_const_bitmap_t rank,
                       hwloc_const_bitmap_t kept, bl_omp_runtime rt,
                       const char *text)
{
    bl_omp_env env = {rt, NULL, "spread", NULL, text};
    bl_plan plan;
    bl_err err;
    memset(&plan, 0, sizeof plan);
    if (bl_omp_assign_env(topo, 0, rank, &env, 3, &plan, &err) == 0) {
        if (plan.nthreads != 3)
            abort();
        for (size_t i = 0; i < plan.nthreads; i++)
            if (!hwloc_bitmap_isincluded(plan.threads[i].pus, kept))
                abort();
    } else if (plan.nthreads != 0) {
        abort();
    }
    bl_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = malloc(size);
    hwloc_bitmap_t rank = hwloc_bitmap_alloc(), kept = hwloc_bitmap_alloc();
    bl_err err;
    if (!text || !rank || !kept)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    check_parse(text);

    bl_omp_runtime rt = (bl_omp_runtime)(data[0] % 3);
    hwloc_topology_t topo = topology((data[0] >> 2) & 1);
    /* the whole node, or PUs 1..6 (cores cut in two) */
    if (data[0] & 8)
        hwloc_bitmap_set_range(rank, 1, 6);
    else
        hwloc_bitmap_copy(rank, hwloc_topology_get_topology_cpuset(topo));
    char note[96];
    if (bl_omp_hw_subset(topo, rank, rt, text, kept, note, sizeof note, &err) == 0) {
        /* a note means nothing was kept out */
        if (hwloc_bitmap_iszero(kept) || !hwloc_bitmap_isincluded(kept, rank) ||
            (rt == BL_OMP_RT_LIBGOMP && !hwloc_bitmap_isequal(kept, rank)) ||
            (note[0] && !hwloc_bitmap_isequal(kept, rank)) ||
            strlen(note) >= sizeof note)
            abort();
        check_plan(topo, rank, kept, rt, text);
    }
    hwloc_bitmap_free(rank);
    hwloc_bitmap_free(kept);
    free(text);
    return 0;
}
