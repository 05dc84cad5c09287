/* CPU sets from text for the unit tests: "0-3,8" as an hwloc bitmap, the
 * test failing on a list that does not parse. Include after <cmocka.h>. */
#ifndef BL_TEST_CPUS_H
#define BL_TEST_CPUS_H

#include <hwloc.h>

#include "cpuset.h"

/* The set (hwloc_bitmap_free it). */
static inline hwloc_bitmap_t bl_test_set_of(const char *list)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    if (bl_cpuset_parse_list(list, s, &err) < 0)
        fail_msg("%s: %s", list, err.msg);
    return s;
}

#endif
