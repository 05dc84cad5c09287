/* The PNG writer: the file's structure read back by hand (signature, IHDR
 * fields, chunk order, each chunk's CRC-32 over type and data), the image
 * data inflated by zlib into filter-0 rows holding the pixels given, the
 * tEXt chunks as key NUL value; bad sizes and keys refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "matrix/png.h"

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

static void png_chunks_crc_and_pixels_read_back(void **state)
{
    /* 3 x 2 pixels: red green blue / white black grey */
    static const unsigned char rgb[18] = {255, 0, 0, 0, 255, 0, 0, 0, 255,
                                          255, 255, 255, 0, 0, 0, 128, 128,
                                          128};
    static const bl_png_text text[] = {{"Title", "a b"}, {"k", ""}};
    static const char *const order[] = {"IHDR", "tEXt", "tEXt", "IDAT",
                                        "IEND"};
    unsigned char *png, raw[2 * (1 + 9)];
    size_t len, pos = 8;
    uLongf raw_len = sizeof raw;
    bl_err err;
    (void)state;
    assert_int_equal(bl_png_encode(rgb, 3, 2, text, 2, &png, &len, &err), 0);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    for (size_t k = 0; k < 5; k++) {
        uint32_t n = get32(png + pos);
        const unsigned char *type = png + pos + 4, *data = png + pos + 8;
        assert_true(pos + 12 + n <= len);
        assert_memory_equal(type, order[k], 4);
        assert_int_equal(get32(data + n), crc32(crc32(0, Z_NULL, 0), type,
                                                n + 4));
        if (k == 0) {
            assert_int_equal(n, 13);
            assert_int_equal(get32(data), 3);      /* width */
            assert_int_equal(get32(data + 4), 2);  /* height */
            assert_int_equal(data[8], 8);          /* bit depth */
            assert_int_equal(data[9], 2);          /* RGB */
            assert_int_equal(data[10] | data[11] | data[12], 0);
        } else if (k == 1) {
            assert_int_equal(n, 9);
            assert_memory_equal(data, "Title\0a b", 9);
        } else if (k == 2) {
            assert_int_equal(n, 2);
            assert_memory_equal(data, "k\0", 2);
        } else if (k == 3) {
            assert_int_equal(uncompress(raw, &raw_len, data, n), Z_OK);
            assert_int_equal(raw_len, sizeof raw);
            assert_int_equal(raw[0], 0);
            assert_memory_equal(raw + 1, rgb, 9);
            assert_int_equal(raw[10], 0);
            assert_memory_equal(raw + 11, rgb + 9, 9);
        } else {
            assert_int_equal(n, 0);
        }
        pos += 12 + n;
    }
    assert_int_equal(pos, len);
    free(png);
}

static void png_refuses_empty_pictures_and_bad_keys(void **state)
{
    static const unsigned char rgb[3] = {1, 2, 3};
    static const bl_png_text empty_key[] = {{"", "x"}};
    unsigned char *png = NULL;
    size_t len;
    bl_err err;
    (void)state;
    assert_int_equal(bl_png_encode(rgb, 0, 1, NULL, 0, &png, &len, &err), -1);
    assert_non_null(strstr(err.msg, "0 x 1 pixels"));
    assert_int_equal(bl_png_encode(rgb, 1, 1, empty_key, 1, &png, &len, &err),
                     -1);
    assert_non_null(strstr(err.msg, "1 to 79 characters"));
    assert_null(png);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(png_chunks_crc_and_pixels_read_back),
        cmocka_unit_test(png_refuses_empty_pictures_and_bad_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
