#include "matrix/png.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "atomic_file.h"

/* PNG limits a dimension to 2^31 - 1; pictures here are far smaller, and
 * this bound keeps (3w + 1) x h well inside size_t and zlib's uLong. */
#define MAX_SIDE 16384u

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends one chunk: length, type, data, CRC-32 of type and data. */
static unsigned char *chunk(unsigned char *p, const char type[4],
                            const unsigned char *data, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    put32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    if (n)
        memcpy(p + 8, data, n);
    crc = crc32(crc, p + 4, (uInt)(n + 4));
    put32(p + 8 + n, (uint32_t)crc);
    return p + 12 + n;
}

static int text_ok(const bl_png_text *t)
{
    size_t k = strlen(t->key);
    return k >= 1 && k <= 79 && strlen(t->value) < (1u << 20);
}

/* The rows with their filter byte (0: none) in front, deflated. */
static unsigned char *deflate_rows(const unsigned char *rgb, unsigned w,
                                   unsigned h, uLongf *zlen)
{
    size_t row = 3 * (size_t)w, raw_len = (row + 1) * h;
    unsigned char *raw = malloc(raw_len), *z;
    if (!raw)
        return NULL;
    for (unsigned y = 0; y < h; y++) {
        raw[y * (row + 1)] = 0;
        memcpy(raw + y * (row + 1) + 1, rgb + y * row, row);
    }
    *zlen = compressBound((uLong)raw_len);
    z = malloc(*zlen);
    if (z && compress2(z, zlen, raw, (uLong)raw_len, 9) != Z_OK) {
        free(z);
        z = NULL;
    }
    free(raw);
    return z;
}

int bl_png_encode(const unsigned char *rgb, unsigned w, unsigned h,
                  const bl_png_text *text, size_t ntext, unsigned char **out,
                  size_t *len, bl_err *err)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
                                         0x1a, '\n'};
    unsigned char ihdr[13], *z, *buf, *p;
    uLongf zlen;
    size_t total = sizeof sig + 12 + sizeof ihdr + 12 + 12;
    if (w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE)
        return bl_err_set(err, "PNG: a picture of %u x %u pixels (each side "
                          "must be 1 to %u)", w, h, MAX_SIDE);
    for (size_t k = 0; k < ntext; k++) {
        if (!text_ok(&text[k]))
            return bl_err_set(err, "PNG: text key '%s' (1 to 79 characters)",
                              text[k].key);
        total += 12 + strlen(text[k].key) + 1 + strlen(text[k].value);
    }
    if (!(z = deflate_rows(rgb, w, h, &zlen)))
        return bl_err_set(err, "PNG: out of memory (or zlib failed) for a "
                          "%u x %u picture", w, h);
    total += zlen;
    if (!(buf = malloc(total))) {
        free(z);
        return bl_err_set(err, "PNG: out of memory");
    }
    memcpy(buf, sig, sizeof sig);
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* not interlaced */
    p = chunk(buf + sizeof sig, "IHDR", ihdr, sizeof ihdr);
    for (size_t k = 0; k < ntext; k++) {
        size_t kl = strlen(text[k].key), vl = strlen(text[k].value);
        unsigned char *t = malloc(kl + 1 + vl);
        if (!t) {
            free(z);
            free(buf);
            return bl_err_set(err, "PNG: out of memory");
        }
        memcpy(t, text[k].key, kl + 1); /* the NUL separates */
        memcpy(t + kl + 1, text[k].value, vl);
        p = chunk(p, "tEXt", t, kl + 1 + vl);
        free(t);
    }
    p = chunk(p, "IDAT", z, zlen);
    p = chunk(p, "IEND", NULL, 0);
    free(z);
    *out = buf;
    *len = (size_t)(p - buf);
    return 0;
}

int bl_png_write(const char *path, const unsigned char *rgb, unsigned w,
                 unsigned h, const bl_png_text *text, size_t ntext,
                 bl_err *err)
{
    unsigned char *png;
    size_t len;
    int rc;
    if (bl_png_encode(rgb, w, h, text, ntext, &png, &len, err) < 0) {
        char why[BL_ERR_MSG_MAX];
        if (!err)
            return -1;
        snprintf(why, sizeof why, "%s", err->msg);
        return bl_err_set(err, "%s: %s", path, why);
    }
    rc = bl_atomic_write(path, png, len, err);
    free(png);
    return rc;
}
