/* Shared by the sweep-file unit tests: a text the reader must refuse with
 * exactly one message, leaving the sweep empty. */
#ifndef BL_SWEEP_FILE_EXPECT_H
#define BL_SWEEP_FILE_EXPECT_H

#include "bl_test.h"
#include "sweep/sweep_file.h"

/* Loads text as "t.yaml" and expects exactly the message msg. */
static inline void expect_error(const char *text, const char *msg)
{
    bl_sweep s;
    bl_err err;
    if (bl_sweep_file_load_string(text, "t.yaml", &s, &err) == 0) {
        bl_sweep_free(&s);
        fail_msg("accepted: %s", text);
    }
    assert_string_equal(err.msg, msg);
    assert_int_equal(s.nlayouts, 0);
    assert_null(s.layouts);
    assert_null(s.app);
}

#endif
