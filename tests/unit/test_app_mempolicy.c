/* --mem-policy's values: what each spelling means and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "app_mempolicy.h"

static void mempol_parse_accepts_each_policy(void **state)
{
    (void)state;
    bl_mempol p;
    bl_err err;
    assert_int_equal(bl_mempol_parse("firsttouch", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_FIRSTTOUCH);
    assert_int_equal(bl_mempol_parse("interleave", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_INTERLEAVE);
    assert_string_equal(p.nodes, "");
    assert_int_equal(bl_mempol_parse("interleave:0-1,3", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_INTERLEAVE);
    assert_string_equal(p.nodes, "0-1,3");
    assert_int_equal(bl_mempol_parse("bind:2", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_BIND);
    assert_string_equal(p.asked, "bind:2");
    assert_int_equal(bl_mempol_parse("bind:local-to-rank", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_BIND_LOCAL);
    assert_int_equal(bl_mempol_parse("preferred:1", "--mem-policy", &p, &err), 0);
    assert_int_equal(p.kind, BL_MEMPOL_PREFERRED);
    assert_string_equal(p.nodes, "1");
}

static void mempol_parse_rejects_what_is_not_a_policy(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "first-touch", "bind", "bind:", "bind:x", "bind:1-0",
        "preferred", "preferred:0-1", "interleave:", "firsttouch:0",
        "bind:1024", "local"};
    bl_mempol p;
    bl_err err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        if (bl_mempol_parse(bad[i], "--mem-policy", &p, &err) != -1)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(err.msg, "--mem-policy"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mempol_parse_accepts_each_policy),
        cmocka_unit_test(mempol_parse_rejects_what_is_not_a_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
