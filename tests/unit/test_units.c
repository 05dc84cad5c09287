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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_parse_accepts_units),
        cmocka_unit_test(size_parse_rejects_bad_input_naming_the_option),
        cmocka_unit_test(long_parse_checks_range_and_junk),
        cmocka_unit_test(size_format_is_readable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
