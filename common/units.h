/* Numbers with units as users type them on command lines and in sweep
 * files: sizes ("1.5GiB", "512MB", "4096"), grids ("256x256x256") and
 * plain counts. The app and the sweep-file reader both call these, so a
 * value is accepted in a sweep exactly when bindlab-app would accept it. */
#ifndef BL_UNITS_H
#define BL_UNITS_H

#include <stddef.h>

#include "err.h"

/* A byte count: a decimal number (fraction allowed) with an optional unit
 * B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers of 1024) or the
 * single letters K/M/G/T (powers of 1024, as numactl and likwid read them).
 * Units are case-insensitive except that "b" alone means bytes. what names
 * the option in messages ("--size"). */
int bl_parse_size(const char *text, const char *what, size_t *out,
                  bl_err *err);

/* A whole number in [min, max]; no sign tricks, no trailing junk. */
int bl_parse_long(const char *text, const char *what, long min, long max,
                  long *out, bl_err *err);

/* The largest value of one grid dimension: keeps products of three of
 * them inside 63 bits. */
#define BL_GRID_DIM_MAX 1000000L

/* "4096", "4096x2048", "256x256x256" (or an LU process grid "2x1"): one to
 * three whole numbers in [1, BL_GRID_DIM_MAX] joined by 'x' or 'X', no
 * signs, spaces or leading zeros. Sets dims[0..*ndims-1]. */
int bl_parse_grid(const char *text, const char *what, long dims[3],
                  int *ndims, bl_err *err);

/* A whole-number kernel option of bindlab-app ("--iters", "--warmup",
 * "--radius", "--n", "--nb", "--seed"; the leading "--" may be left out)
 * in the range the app accepts for it. what names it in messages. */
int bl_parse_count(const char *text, const char *option, const char *what,
                   long *out, bl_err *err);

/* The accepted range of such an option; -1 for an unknown option. */
int bl_count_range(const char *option, long *min, long *max);

/* "1.50 GiB", "64.0 MiB", "512 B": for messages and tables. */
void bl_format_size(size_t bytes, char *buf, size_t len);

#endif
