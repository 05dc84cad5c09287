/* Numbers with units as users type them on command lines and in sweep
 * files: sizes ("1.5GiB", "512MB", "4096") and plain counts. */
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

/* "1.50 GiB", "64.0 MiB", "512 B": for messages and tables. */
void bl_format_size(size_t bytes, char *buf, size_t len);

#endif
