/* Sizes and whole numbers as users type them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

static size_t size_of(const char *text)
{
    size_t v = 0;
    bl_err err;
    assert_int_equal(bl_parse_size(text, "--size", &v, &err), 0);
    return v;
}

static void size_parse_accepts_units(void **state)
{
    (void)state;
    assert_int_equal(size_of("4096"), 4096);
    assert_int_equal(size_of("512B"), 512);
    assert_int_equal(size_of("1.5GiB"), 1610612736ULL);
    assert_int_equal(size_of("1.5 GiB"), 1610612736ULL);
    assert_int_equal(size_of("800MB"), 800000000ULL);
    assert_int_equal(size_of("64mib"), 64ULL << 20);
    assert_int_equal(size_of("2G"), 2ULL << 30);
    assert_int_equal(size_of("1KB"), 1000);
    assert_int_equal(size_of("1KiB"), 1024);
    assert_int_equal(size_of("0.5TiB"), 1ULL << 39);
}

static void size_parse_rejects_bad_input_naming_the_option(void **state)
{
    static const char *const bad[] = {"", "GiB", "-1GiB", "1.5XB", "12 GiBs",
                                      "inf", "nan", "0x10", "0", "0.1",
                                      "1e30GiB", "1,5GiB"};
    size_t v;
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        assert_int_equal(bl_parse_size(bad[i], "--size", &v, &err), -1);
        assert_non_null(strstr(err.msg, "--size"));
    }
    bl_parse_size("1.5XB", "--size", &v, &err);
    assert_non_null(strstr(err.msg, "unknown unit"));
    assert_non_null(strstr(err.msg, "GiB"));
}

static void long_parse_checks_range_and_junk(void **state)
{
    long v;
    bl_err err;
    (void)state;
    assert_int_equal(bl_parse_long("10", "--iters", 1, 100, &v, &err), 0);
    assert_int_equal(v, 10);
    assert_int_equal(bl_parse_long("0", "--iters", 1, 100, &v, &err), -1);
    assert_non_null(strstr(err.msg, "out of range (1 to 100)"));
    assert_int_equal(bl_parse_long("10x", "--iters", 1, 100, &v, &err), -1);
    assert_int_equal(bl_parse_long("", "--iters", 1, 100, &v, &err), -1);
    assert_int_equal(bl_parse_long("+5", "--iters", 1, 100, &v, &err), -1);
    assert_int_equal(bl_parse_long("99999999999999999999", "--iters", 1, 100,
                                   &v, &err), -1);
}

static void size_format_is_readable(void **state)
{
    char buf[32];
    (void)state;
    bl_format_size(512, buf, sizeof buf);
    assert_string_equal(buf, "512 B");
    bl_format_size(3ULL << 29, buf, sizeof buf);
    assert_string_equal(buf, "1.50 GiB");
}

static void grid_parse_reads_one_to_three_sides(void **state)
{
    long d[3] = {0, 0, 0};
    int n = 0;
    bl_err err;
    (void)state;
    assert_int_equal(bl_parse_grid("4096", "--grid", d, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(d[0], 4096);
    assert_int_equal(bl_parse_grid("4X2", "--grid", d, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(d[0], 4);
    assert_int_equal(d[1], 2);
    assert_int_equal(bl_parse_grid("256x128x1000000", "--grid", d, &n, &err),
                     0);
    assert_int_equal(n, 3);
    assert_int_equal(d[2], 1000000);
}

static void grid_parse_rejects_what_is_not_a_grid(void **state)
{
    static const char *const bad[] = {"", "x", "4x", "x4", "0", "4x0",
                                      "010", "1x2x3x4", "-4", "+4", "4 x 2",
                                      "4*2", "1000001", "99999999999999999999",
                                      "4x2 "};
    long d[3];
    int n;
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        if (bl_parse_grid(bad[i], "--grid", d, &n, &err) != -1)
            fail_msg("'%s' accepted", bad[i]);
        assert_non_null(strstr(err.msg, "--grid: '"));
        assert_non_null(strstr(err.msg, "from 1 to 1000000"));
    }
}

/* The ranges bindlab-app documents in --help and its kernels need. */
static void count_parse_uses_the_app_ranges(void **state)
{
    long v, min, max;
    bl_err err;
    (void)state;
    assert_int_equal(bl_parse_count("0", "--warmup", "warmup", &v, &err), 0);
    assert_int_equal(v, 0);
    assert_int_equal(bl_parse_count("0", "--iters", "iters", &v, &err), -1);
    assert_string_equal(err.msg, "iters: 0 is out of range (1 to 1000000)");
    assert_int_equal(bl_parse_count("2147483647", "seed", "seed", &v, &err),
                     0);
    assert_int_equal(bl_parse_count("1", "--nope", "nope", &v, &err), -1);
    assert_int_equal(bl_count_range("--radius", &min, &max), 0);
    assert_int_equal(min, 1);
    assert_int_equal(bl_count_range("--unknown", &min, &max), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_parse_accepts_units),
        cmocka_unit_test(size_parse_rejects_bad_input_naming_the_option),
        cmocka_unit_test(long_parse_checks_range_and_junk),
        cmocka_unit_test(size_format_is_readable),
        cmocka_unit_test(grid_parse_reads_one_to_three_sides),
        cmocka_unit_test(grid_parse_rejects_what_is_not_a_grid),
        cmocka_unit_test(count_parse_uses_the_app_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
