/* Sweep files within the documented limits that would still cost the
 * harness minutes or all its memory: nesting thousands of levels deep
 * (libyaml's time grows with the square of the depth), or expanding to
 * tens of millions of runs (planned until memory runs out). Each is refused
 * with the file, the place or the count, and the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_test.h"
#include "sweep/sweep_file.h"

/* depth levels of "[" one per line (2 bytes a level, so far below the
 * size and line limits), then as many "]". */
static char *nested(int depth)
{
    char *text = malloc((size_t)depth * 4 + 1), *p = text;
    assert_non_null(text);
    for (int i = 0; i < depth; i++) {
        *p++ = '[';
        *p++ = '\n';
    }
    for (int i = 0; i < depth; i++) {
        *p++ = ']';
        *p++ = '\n';
    }
    *p = '\0';
    return text;
}

/* text (freed here) is refused as name with a message holding want. */
static void expect_refusal(char *text, const char *name, const char *want)
{
    bl_sweep s;
    bl_err err = {{0}};
    assert_int_equal(bl_sweep_file_load_string(text, name, &s, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("got: %s\nwanted: %s", err.msg, want);
    free(text);
}

/* 100,000 levels in 400 KB: refused at the first level too deep, line 65
 * (one level per line), before the document is loaded. */
static void limits_refuse_deep_nesting_where_it_gets_too_deep(void **state)
{
    char want[256];
    (void)state;
    snprintf(want, sizeof want, "deep.yaml:%d:1: lists and mappings nested "
             "deeper than %d levels", BL_SWEEP_DEPTH_MAX + 1,
             BL_SWEEP_DEPTH_MAX);
    expect_refusal(nested(100000), "deep.yaml", want);
}

/* At the limit the depth is no reason to refuse: what is said is about
 * the content (a list is not a sweep). */
static void limits_accept_nesting_up_to_the_limit(void **state)
{
    bl_sweep s;
    bl_err err = {{0}};
    char *text = nested(BL_SWEEP_DEPTH_MAX);
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(text, "deep.yaml", &s, &err),
                     -1);
    if (strstr(err.msg, "nested deeper"))
        fail_msg("refused at the limit: %s", err.msg);
    free(text);
}

/* layouts explicit layouts of np 1..layouts, each with reps repetitions,
 * and the max_runs: line extra (or ""). */
static char *many_runs(int layouts, int reps, const char *extra)
{
    size_t cap = (size_t)layouts * 48 + 256, n;
    char *text = malloc(cap);
    assert_non_null(text);
    n = (size_t)snprintf(text, cap, "name: many\n%skernels: [triad]\n"
                         "layouts:\n", extra);
    for (int i = 1; i <= layouts; i++)
        n += (size_t)snprintf(text + n, cap - n, "  - {np: %d, repetitions: "
                              "%d}\n", i, reps);
    assert_true(n < cap);
    return text;
}

/* 2,000 layouts x 10,000 repetitions: refused at load with the count and
 * the cap, instead of "out of memory" while planning. */
static void limits_refuse_more_runs_than_the_cap(void **state)
{
    char want[256];
    (void)state;
    snprintf(want, sizeof want, "many.yaml: %ld runs (2000 layouts with "
             "their repetitions), more than the cap of %ld", 2000L * 10000L,
             BL_SWEEP_RUNS_MAX);
    expect_refusal(many_runs(2000, 10000, ""), "many.yaml", want);
}

/* The cap is the file's to raise (max_runs:), up to a ceiling; one run
 * over it is refused, and exactly at it the sweep loads. */
static void limits_max_runs_key_moves_the_cap(void **state)
{
    bl_sweep s;
    bl_err err = {{0}};
    char *at = many_runs(3, 100, "max_runs: 300\n");
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(at, "m.yaml", &s, &err), 0);
    assert_int_equal(bl_sweep_runs(&s), 300);
    bl_sweep_free(&s);
    free(at);
    expect_refusal(many_runs(3, 100, "max_runs: 299\n"), "m.yaml",
                   "m.yaml: 300 runs (3 layouts with their repetitions), "
                   "more than the cap of 299");
    expect_refusal(many_runs(1, 1, "max_runs: 10000001\n"), "m.yaml",
                   "m.yaml:2:11: max_runs");
}

/* A value of 3,000 characters (under the line limit), in a layout or a
 * kernels entry: the message says where, a bounded part of the value and
 * its length, then why. */
static void limits_long_value_keeps_its_place_and_reason(void **state)
{
    static const struct {
        const char *head, *tail, *word;
    } cases[] = {
        {"kernels: [triad]\nlayouts:\n  - {name: a, map_by: ", ", np: 1}\n",
         "map_by"},
        {"kernels: [triad]\nlayouts:\n  - {name: a, np: ", "}\n", "np"},
        {"kernels: [triad]\nlayouts:\n  - {name: a, bind_to: ", ", np: 1}\n",
         "bind_to"},
        {"layouts: [{np: 1}]\nkernels:\n  - {name: triad, label: ", "}\n",
         "kernel label"},
        {"layouts: [{np: 1}]\nkernels:\n  - {name: stencil, overlap: ", "}\n",
         "overlap"},
    };
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *text = malloc(4000), want[128];
        const char *line = strrchr(cases[k].head, '\n') + 1;
        bl_sweep s;
        bl_err err = {{0}};
        int n = snprintf(text, 4000, "%s", cases[k].head);
        memset(text + n, 'x', 3000);
        strcpy(text + n + 3000, cases[k].tail);
        /* the value's column: right after the head's last line */
        snprintf(want, sizeof want, "long.yaml:3:%d: %s",
                 (int)strlen(line) + 1, cases[k].word);
        assert_int_equal(bl_sweep_file_load_string(text, "long.yaml", &s,
                                                   &err), -1);
        free(text);
        if (strncmp(err.msg, want, strlen(want)) ||
            !strstr(err.msg, "... (3000 characters)'") ||
            !strstr(err.msg, "accepted: "))
            fail_msg("got: %s\nwanted: %s 'xxx... (3000 characters)': "
                     "accepted: ...", err.msg, want);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest limits[] = {
        cmocka_unit_test(limits_refuse_deep_nesting_where_it_gets_too_deep),
        cmocka_unit_test(limits_accept_nesting_up_to_the_limit),
        cmocka_unit_test(limits_refuse_more_runs_than_the_cap),
        cmocka_unit_test(limits_max_runs_key_moves_the_cap),
        cmocka_unit_test(limits_long_value_keeps_its_place_and_reason),
    };
    const bl_test_group groups[] = {
        BL_GROUP("limits", limits),
    };
    return bl_run_groups(argc, argv, groups);
}
