/* The size a rate regex grows to inside regcomp: each part counted once,
 * bounds and '+' multiplying what they follow, the parts that may be
 * skipped counted apart (regcomp pays their square), brackets and escapes
 * one part; the rate regexes of real programs far below the limits, and
 * the ones the fuzzer found (2 GB, minutes, a crash in regcomp) above. */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "bl_test.h"
#include "sweep/ere_size.h"

static void expect_size(const char *pattern, double parts, double optional)
{
    bl_ere_size s;
    if (bl_ere_measure(pattern, &s) < 0)
        fail_msg("'%s': refused", pattern);
    if (s.parts != parts || s.optional != optional)
        fail_msg("'%s': %.0f parts, %.0f optional; expected %.0f, %.0f",
                 pattern, s.parts, s.optional, parts, optional);
}

static int too_large(const char *pattern)
{
    bl_ere_size s;
    return bl_ere_measure(pattern, &s) == 0 &&
           (s.parts > BL_ERE_MAX_PARTS || s.optional > BL_ERE_MAX_OPTIONAL);
}

static void each_part_counts_once(void **state)
{
    (void)state;
    expect_size("", 0, 0);
    expect_size("abc", 3, 0);
    expect_size("^a.$", 4, 0);
    expect_size("\\(\\+", 2, 0);       /* escaped: characters */
    expect_size("[]a(+]", 1, 0);       /* ']' first is in the bracket */
    expect_size("[^]{}]x", 2, 0);
    expect_size("[[:digit:].]", 1, 0); /* the class's ']' does not close */
    expect_size("(ab)", 3, 0);         /* the group is one part more */
    expect_size("a|bc", 4, 1);
    expect_size("a{", 2, 0);           /* not a bound: two characters */
    expect_size("a{x}", 4, 0);
}

static void repeats_multiply_what_they_follow(void **state)
{
    (void)state;
    expect_size("a*", 2, 1);
    expect_size("a?", 2, 1);
    expect_size("a+", 3, 1);          /* "aa*" */
    expect_size("a++", 7, 3);         /* each '+' doubles */
    expect_size("a{10}", 11, 0);
    expect_size("a{2,}", 4, 1);       /* "aaa*" */
    expect_size("a{2,5}", 6, 3);      /* "aa" and three that may go */
    expect_size("a{,5}", 6, 5);
    expect_size("(ab){3}", 10, 0);    /* the group's 3 parts, 3 times */
    expect_size("((a{10}){10}){10}", 1221, 0);
    expect_size("(a?){1000}", 3001, 1000);
    expect_size("x[0-9]{4}", 6, 0);
}

/* n groups, each inside the one before, around one character */
static int nested(int n, bl_ere_size *s)
{
    char p[2 * BL_ERE_MAX_DEPTH + 8];
    int len = 0;
    for (int i = 0; i < n; i++)
        p[len++] = '(';
    p[len++] = 'a';
    for (int i = 0; i < n; i++)
        p[len++] = ')';
    p[len] = '\0';
    return bl_ere_measure(p, s);
}

static void unclosed_and_deep_groups(void **state)
{
    bl_ere_size s;
    (void)state;
    expect_size("(a(b", 2, 0); /* regcomp reports the missing ')' */
    expect_size("a)", 2, 0);
    assert_int_equal(nested(BL_ERE_MAX_DEPTH, &s), 0);
    assert_true(s.parts == 1 + BL_ERE_MAX_DEPTH);
    assert_int_equal(nested(BL_ERE_MAX_DEPTH + 1, &s), -1);
}

/* Rate regexes of real programs compile and are far below the limits;
 * the largest patterns under them still compile; what the fuzzer wrote
 * is above them. */
static void real_patterns_and_the_fuzzer_s(void **state)
{
    static const char *const fit[] = {
        "^Performance: +([0-9.]+)",              /* GROMACS */
        "Performance: ([0-9.]+) tau/day",        /* LAMMPS */
        "HPL_Tflops=([0-9.eE+-]+)",              /* HPCC */
        "([0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?) ns/day",
    };
    static const char *const near_limits[] = {"(a{255}){255}", "(a?){500}"};
    static const char *const over[] = {
        /* 2 GB */
        "^Performan++++++++++++++++++++++++++++++ce: +([0-9.]+)",
        /* minutes */
        ("^P:e?????????????????????jjj????????????????????????????????"
         "?????????+++++++++++"),
        /* regcomp's stack overflows */
        "((a?){150}){150}",
        /* 300 MB and more */
        "(a?){2000}", "(a{0,4000})", "((a{100}){100}){100}",
    };
    regex_t re;
    bl_ere_size s;
    (void)state;
    for (size_t i = 0; i < sizeof fit / sizeof *fit; i++) {
        assert_int_equal(bl_ere_measure(fit[i], &s), 0);
        assert_true(s.parts < 100 && s.optional < 20);
        assert_int_equal(regcomp(&re, fit[i], REG_EXTENDED), 0);
        regfree(&re);
    }
    for (size_t i = 0; i < sizeof near_limits / sizeof *near_limits; i++) {
        assert_false(too_large(near_limits[i]));
        assert_int_equal(regcomp(&re, near_limits[i], REG_EXTENDED), 0);
        regfree(&re);
    }
    for (size_t i = 0; i < sizeof over / sizeof *over; i++)
        if (!too_large(over[i]))
            fail_msg("'%s' is within the limits", over[i]);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest size[] = {
        cmocka_unit_test(each_part_counts_once),
        cmocka_unit_test(repeats_multiply_what_they_follow),
        cmocka_unit_test(unclosed_and_deep_groups),
        cmocka_unit_test(real_patterns_and_the_fuzzer_s),
    };
    const bl_test_group groups[] = {
        BL_GROUP("size", size),
    };
    return bl_run_groups(argc, argv, groups);
}
