/* libFuzzer target: the value parsers users type on command lines and in
 * sweep files (common/units.c: sizes, grids, counts; common/cpuset.c: CPU
 * lists, masks, Open MPI bracket maps). The first byte picks the parser,
 * the rest is the text. Checks what each promises: a size is at least one
 * byte, a grid has 1 to 3 sides in range, a count lies in its option's
 * range, and a CPU set printed as a list reads back as the same set. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cpuset.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const count_options[] = {"--iters", "--warmup", "--radius",
                                            "--n",     "--nb",     "--seed"};

static void check_set(hwloc_bitmap_t set, int may_be_empty)
{
    hwloc_bitmap_t again = hwloc_bitmap_alloc();
    char *list = bl_cpuset_list_strdup(set);
    char mask[20000];
    bl_err err;
    if (!again || !list)
        abort();
    if (hwloc_bitmap_iszero(set) && may_be_empty) {
        free(list);
        hwloc_bitmap_free(again);
        return;
    }
    if (hwloc_bitmap_iszero(set) ||
        hwloc_bitmap_last(set) > BL_CPUSET_MAX_INDEX ||
        bl_cpuset_parse_list(list, again, &err) < 0 ||
        !hwloc_bitmap_isequal(set, again))
        abort();
    if (bl_cpuset_format_mask(set, mask, sizeof mask) < (int)sizeof mask &&
        (bl_cpuset_parse_mask(mask, again, &err) < 0 ||
         !hwloc_bitmap_isequal(set, again)))
        abort();
    free(list);
    hwloc_bitmap_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    bl_err err;
    hwloc_bitmap_t set;
    size_t bytes;
    long dims[3], v, min, max;
    int n;
    if (size < 1 || !(text = malloc(size)))
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    set = hwloc_bitmap_alloc();
    switch (data[0] % 7) {
    case 0:
        if (bl_parse_size(text, "--size", &bytes, &err) == 0 && bytes < 1)
            abort();
        break;
    case 1:
        if (bl_parse_grid(text, "--grid", dims, &n, &err) == 0) {
            if (n < 1 || n > 3)
                abort();
            for (int i = 0; i < n; i++)
                if (dims[i] < 1 || dims[i] > BL_GRID_DIM_MAX)
                    abort();
        }
        break;
    case 2: {
        const char *opt = count_options[(data[0] / 7) % 6];
        if (bl_parse_count(text, opt, opt, &v, &err) == 0 &&
            (bl_count_range(opt, &min, &max) < 0 || v < min || v > max))
            abort();
        break;
    }
    case 3:
        if (bl_cpuset_parse_list(text, set, &err) == 0)
            check_set(set, 0);
        break;
    case 4:
        if (bl_cpuset_parse_mask(text, set, &err) == 0)
            check_set(set, 0);
        break;
    case 5:
        if (bl_cpuset_parse(text, set, &err) == 0)
            check_set(set, 0);
        break;
    default:
        /* An all-'.' map is a valid map of an unbound rank. */
        if (bl_cpuset_parse_brackets(text, set, &err) == 0)
            check_set(set, 1);
        break;
    }
    hwloc_bitmap_free(set);
    free(text);
    return 0;
}
