/* A PNG writer for pictures drawn in memory: 8-bit RGB, not interlaced,
 * every row unfiltered (filter type 0), the image data deflated by zlib;
 * chunks IHDR, tEXt (optional key/value pairs), IDAT, IEND, each with its
 * CRC-32 (PNG specification, ISO/IEC 15948). Enough for heatmaps: flat
 * colours compress well without per-row filters. */
#ifndef BL_PNG_H
#define BL_PNG_H

#include <stddef.h>

#include "err.h"

typedef struct bl_png_text {
    const char *key;   /* 1 to 79 Latin-1 characters, no NUL */
    const char *value;
} bl_png_text;

/* The PNG file of a w x h picture whose pixels are rgb (3 bytes each, row
 * after row from the top left), with ntext tEXt chunks, in *out (malloc'd,
 * the caller frees it) of *len bytes. 0, or -1 with err. */
int bl_png_encode(const unsigned char *rgb, unsigned w, unsigned h,
                  const bl_png_text *text, size_t ntext, unsigned char **out,
                  size_t *len, bl_err *err);

/* bl_png_encode written to path atomically (common/atomic_file.h). */
int bl_png_write(const char *path, const unsigned char *rgb, unsigned w,
                 unsigned h, const bl_png_text *text, size_t ntext,
                 bl_err *err);

#endif
