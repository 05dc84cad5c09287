/* cpuset text forms: list, hex mask, Open MPI 4 bracket map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"

static char *list_of(hwloc_const_bitmap_t s)
{
    static char buf[256];
    bl_cpuset_format_list(s, buf, sizeof buf);
    return buf;
}

static void cpuset_list_round_trips(void **state)
{
    static const char *const lists[] = {"0", "0-3", "0-3,8", "1,3,5,7",
                                        "0-63,128-191", "5-6,9,11-12", "65535"};
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        assert_int_equal(bl_cpuset_parse_list(lists[i], s, &err), 0);
        assert_string_equal(list_of(s), lists[i]);
    }
    /* Unsorted and overlapping input prints in canonical form. */
    assert_int_equal(bl_cpuset_parse_list(" 8,0-3,2 ", s, &err), 0);
    assert_string_equal(list_of(s), "0-3,8");
    hwloc_bitmap_free(s);
}

static void cpuset_parse_rejects_reversed_range(void **state)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    assert_int_equal(bl_cpuset_parse_list("3-1", s, &err), -1);
    assert_non_null(strstr(err.msg, "reversed"));
    hwloc_bitmap_free(s);
}

static void cpuset_parse_rejects_junk(void **state)
{
    static const char *const bad[] = {"", "a", "1,", ",1", "1-", "1--2",
                                      "1 2", "0x", "-1", "70000", "1;2"};
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        assert_int_equal(bl_cpuset_parse(bad[i], s, &err), -1);
        assert_true(strlen(err.msg) > 0);
    }
    hwloc_bitmap_free(s);
}

static void cpuset_mask_round_trips(void **state)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    char buf[128];
    bl_err err;
    (void)state;
    assert_int_equal(bl_cpuset_parse_mask("0xff", s, &err), 0);
    assert_string_equal(list_of(s), "0-7");
    assert_int_equal(bl_cpuset_parse_mask("0x3", s, &err), 0);
    bl_cpuset_format_mask(s, buf, sizeof buf);
    assert_string_equal(buf, "0x3");
    /* Linux / Slurm 32-bit groups, most significant first. */
    assert_int_equal(bl_cpuset_parse_mask("00000001,00000000,0000000f", s, &err),
                     0);
    assert_string_equal(list_of(s), "0-3,64");
    bl_cpuset_format_mask(s, buf, sizeof buf);
    assert_string_equal(buf, "0x1000000000000000f");
    assert_int_equal(bl_cpuset_parse(buf, s, &err), 0);
    assert_string_equal(list_of(s), "0-3,64");
    assert_int_equal(bl_cpuset_parse("0xAAAA", s, &err), 0);
    assert_string_equal(list_of(s), "1,3,5,7,9,11,13,15");
    hwloc_bitmap_free(s);
}

static void cpuset_mask_rejects_empty_and_bad_digits(void **state)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    assert_int_equal(bl_cpuset_parse_mask("0x0", s, &err), -1);
    assert_non_null(strstr(err.msg, "no CPU"));
    assert_int_equal(bl_cpuset_parse_mask("0xfg", s, &err), -1);
    assert_non_null(strstr(err.msg, "'g'"));
    hwloc_bitmap_free(s);
}

static void cpuset_brackets_give_logical_positions(void **state)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    /* Captured here: "MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]". */
    assert_int_equal(bl_cpuset_parse_brackets("[./B]", s, &err), 0);
    assert_string_equal(list_of(s), "1");
    /* Two packages, two cores with two hardware threads each. */
    assert_int_equal(bl_cpuset_parse_brackets("[BB/..][../.B]", s, &err), 0);
    assert_string_equal(list_of(s), "0-1,7");
    hwloc_bitmap_free(s);
}

static void cpuset_brackets_reject_truncated(void **state)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    (void)state;
    assert_int_equal(bl_cpuset_parse_brackets("[BB/..][../", s, &err), -1);
    assert_non_null(strstr(err.msg, "truncated"));
    assert_int_equal(bl_cpuset_parse_brackets("[B/x]", s, &err), -1);
    assert_int_equal(bl_cpuset_parse_brackets("[]", s, &err), -1);
    assert_int_equal(bl_cpuset_parse_brackets("B/.", s, &err), -1);
    hwloc_bitmap_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpuset_list_round_trips),
        cmocka_unit_test(cpuset_parse_rejects_reversed_range),
        cmocka_unit_test(cpuset_parse_rejects_junk),
        cmocka_unit_test(cpuset_mask_round_trips),
        cmocka_unit_test(cpuset_mask_rejects_empty_and_bad_digits),
        cmocka_unit_test(cpuset_brackets_give_logical_positions),
        cmocka_unit_test(cpuset_brackets_reject_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
