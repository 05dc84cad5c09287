#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    double factor;
} size_units[] = {
    {"", 1.0},
    {"B", 1.0},
    {"K", 1024.0},
    {"KiB", 1024.0},
    {"KB", 1e3},
    {"M", 1048576.0},
    {"MiB", 1048576.0},
    {"MB", 1e6},
    {"G", 1073741824.0},
    {"GiB", 1073741824.0},
    {"GB", 1e9},
    {"T", 1099511627776.0},
    {"TiB", 1099511627776.0},
    {"TB", 1e12},
};

#define SIZE_ACCEPTED \
    "a size like 1.5GiB, 512MiB, 800MB or 4096 (units B, KiB/MiB/GiB/TiB, " \
    "KB/MB/GB/TB, K/M/G/T)"

int bl_parse_size(const char *text, const char *what, size_t *out,
                  bl_err *err)
{
    const char *p = text;
    char *end;
    double value, bytes;

    while (isspace((unsigned char)*p))
        p++;
    /* strtod would accept "inf", "nan", hex floats and a sign: refuse them. */
    if (!isdigit((unsigned char)*p) && *p != '.')
        return bl_err_set(err, "%s: '%s' is not %s", what, text,
                          SIZE_ACCEPTED);
    errno = 0;
    value = strtod(p, &end);
    if (errno || end == p || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
        return bl_err_set(err, "%s: '%s' is not %s", what, text,
                          SIZE_ACCEPTED);
    while (isspace((unsigned char)*end))
        end++;
    for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++) {
        size_t ulen = strlen(size_units[i].name);
        const char *rest = end + ulen;
        if (strncasecmp(end, size_units[i].name, ulen) != 0)
            continue;
        while (isspace((unsigned char)*rest))
            rest++;
        if (*rest != '\0')
            continue;
        bytes = value * size_units[i].factor;
        if (!isfinite(bytes) || bytes >= 18e18)
            return bl_err_set(err, "%s: '%s' is too large", what, text);
        if (bytes < 1.0)
            return bl_err_set(err, "%s: '%s' is less than one byte", what,
                              text);
        *out = (size_t)llround(bytes);
        return 0;
    }
    return bl_err_set(err, "%s: '%s' has an unknown unit; expected %s", what,
                      text, SIZE_ACCEPTED);
}

int bl_parse_long(const char *text, const char *what, long min, long max,
                  long *out, bl_err *err)
{
    char *end;
    long v;

    if (!text || !(isdigit((unsigned char)text[0]) ||
                   (text[0] == '-' && isdigit((unsigned char)text[1]))))
        return bl_err_set(err, "%s: '%s' is not a whole number (%ld to %ld)",
                          what, text ? text : "", min, max);
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end != '\0')
        return bl_err_set(err, "%s: '%s' is not a whole number (%ld to %ld)",
                          what, text, min, max);
    if (v < min || v > max)
        return bl_err_set(err, "%s: %ld is out of range (%ld to %ld)", what,
                          v, min, max);
    *out = v;
    return 0;
}

void bl_format_size(size_t bytes, char *buf, size_t len)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%zu B", bytes);
    else
        snprintf(buf, len, "%.2f %s", v, names[u]);
}
