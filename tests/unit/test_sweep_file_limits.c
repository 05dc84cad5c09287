/* Sweep files within the documented limits that would still cost the
 * harness minutes or all its memory: nesting thousands of levels deep
 * (libyaml's time grows with the square of the depth). Each is refused
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

/* 100,000 levels in 400 KB: refused at the first level too deep, line 65
 * (one level per line), before the document is loaded. */
static void limits_refuse_deep_nesting_where_it_gets_too_deep(void **state)
{
    bl_sweep s;
    bl_err err = {{0}};
    char *text = nested(100000), want[256];
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(text, "deep.yaml", &s, &err),
                     -1);
    snprintf(want, sizeof want, "deep.yaml:%d:1: lists and mappings nested "
             "deeper than %d levels", BL_SWEEP_DEPTH_MAX + 1,
             BL_SWEEP_DEPTH_MAX);
    if (!strstr(err.msg, want))
        fail_msg("got: %s\nwanted: %s", err.msg, want);
    free(text);
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

int main(int argc, char **argv)
{
    const struct CMUnitTest limits[] = {
        cmocka_unit_test(limits_refuse_deep_nesting_where_it_gets_too_deep),
        cmocka_unit_test(limits_accept_nesting_up_to_the_limit),
    };
    const bl_test_group groups[] = {
        BL_GROUP("limits", limits),
    };
    return bl_run_groups(argc, argv, groups);
}
