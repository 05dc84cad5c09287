/* The shared growing string and growable array (common/strbuf.c,
 * common/grow.c) against hand-written expectations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grow.h"
#include "strbuf.h"

static void strbuf_joins_pieces_in_order(void **state)
{
    bl_strbuf b = {0};
    char *s;
    (void)state;
    bl_strbuf_puts(&b, "mpirun");
    bl_strbuf_add(&b, " -np 4 and more", 6);
    bl_strbuf_printf(&b, " --map-by %s:PE=%d", "core", 2);
    s = bl_strbuf_take(&b);
    assert_string_equal(s, "mpirun -np 4 --map-by core:PE=2");
    assert_null(b.s);
    free(s);
}

static void strbuf_grows_past_its_first_block(void **state)
{
    bl_strbuf b = {0};
    char *s;
    (void)state;
    /* 10000 lines of "line NNNNN\n": 11 bytes each, past 4096 twice */
    for (int i = 0; i < 10000; i++)
        bl_strbuf_printf(&b, "line %05d\n", i);
    s = bl_strbuf_take(&b);
    assert_int_equal(strlen(s), 110000);
    assert_memory_equal(s + 11 * 9999, "line 09999\n", 11);
    free(s);
}

static void strbuf_empty_take_is_empty_string(void **state)
{
    bl_strbuf b = {0};
    char *s = bl_strbuf_take(&b);
    (void)state;
    assert_string_equal(s, "");
    free(s);
}

static void strbuf_failure_is_reported_once_at_take(void **state)
{
    bl_strbuf b = {0};
    (void)state;
    bl_strbuf_puts(&b, "kept");
    b.failed = 1; /* as after a refused realloc */
    bl_strbuf_puts(&b, "lost");
    assert_null(bl_strbuf_take(&b));
}

static void list_has_whole_items_only(void **state)
{
    (void)state;
    assert_true(bl_list_has("--np, -n", ", ", "-n", 2));
    assert_true(bl_list_has("--np, -n", ", ", "--np", 4));
    assert_false(bl_list_has("--np, -n", ", ", "--n", 3));
    assert_true(bl_list_has(" bind=core  np2", " ", "np2", 3));
    assert_false(bl_list_has("bind=core", " ", "bind", 4));
    assert_false(bl_list_has("", " ", "", 0));
}

static void grow_doubles_from_first_and_keeps_items(void **state)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    (void)state;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(bl_grow(&v, sizeof *v, n, &cap, 8), 0);
        v[n++] = i * i;
    }
    assert_int_equal(cap, 128); /* 8, 16, 32, 64, 128 */
    for (int i = 0; i < 100; i++)
        assert_int_equal(v[i], i * i);
    free(v);
}

static void grow_refuses_impossible_size(void **state)
{
    char *v = NULL;
    size_t cap = SIZE_MAX / 2 + 1;
    (void)state;
    assert_int_equal(bl_grow(&v, 1, cap, &cap, 8), -1);
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    assert_null(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strbuf_joins_pieces_in_order),
        cmocka_unit_test(list_has_whole_items_only),
        cmocka_unit_test(strbuf_grows_past_its_first_block),
        cmocka_unit_test(strbuf_empty_take_is_empty_string),
        cmocka_unit_test(strbuf_failure_is_reported_once_at_take),
        cmocka_unit_test(grow_doubles_from_first_and_keeps_items),
        cmocka_unit_test(grow_refuses_impossible_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
