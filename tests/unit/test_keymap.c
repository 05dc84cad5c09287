/* The string-keyed index map (common/keymap.c): first value kept, lookups
 * after the table has grown many times, absent keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keymap.h"

static void keymap_keeps_the_first_value_of_a_key(void **state)
{
    bl_keymap m = {0};
    (void)state;
    assert_int_equal(bl_keymap_get(&m, "triad"), BL_KEYMAP_NONE);
    assert_int_equal(bl_keymap_put_new(&m, "triad", 3), 3);
    assert_int_equal(bl_keymap_put_new(&m, "triad", 7), 3);
    assert_int_equal(bl_keymap_put_new(&m, "", 9), 9);
    assert_int_equal(bl_keymap_get(&m, "triad"), 3);
    assert_int_equal(bl_keymap_get(&m, ""), 9);
    assert_int_equal(bl_keymap_get(&m, "tria"), BL_KEYMAP_NONE);
    assert_int_equal(m.n, 2);
    bl_keymap_free(&m);
    assert_int_equal(m.nslots, 0);
}

static void keymap_finds_every_key_after_growing(void **state)
{
    bl_keymap m = {0};
    char key[32];
    (void)state;
    for (size_t i = 0; i < 20000; i++) {
        snprintf(key, sizeof key, "r%05zu", i);
        assert_int_equal(bl_keymap_put_new(&m, key, 2 * i), 2 * i);
    }
    assert_int_equal(m.n, 20000);
    for (size_t i = 0; i < 20000; i++) {
        snprintf(key, sizeof key, "r%05zu", i);
        assert_int_equal(bl_keymap_get(&m, key), 2 * i);
    }
    assert_int_equal(bl_keymap_get(&m, "r20000"), BL_KEYMAP_NONE);
    bl_keymap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keymap_keeps_the_first_value_of_a_key),
        cmocka_unit_test(keymap_finds_every_key_after_growing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
