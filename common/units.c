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

#define GRID_ACCEPTED \
    "N, AxB or AxBxC with whole numbers from 1 to %ld (e.g. 4096, " \
    "4096x2048, 256x256x256, or 2x1 for lu)"

int bl_parse_grid(const char *text, const char *what, long dims[3],
                  int *ndims, bl_err *err)
{
    const char *p = text;
    int n = 0;
    while (p && n < 3) {
        long v = 0;
        int digits = 0;
        if (*p == '0')
            break; /* no leading zeros: "010" is not a grid */
        while (isdigit((unsigned char)*p) && v <= BL_GRID_DIM_MAX) {
            v = v * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || v > BL_GRID_DIM_MAX)
            break;
        dims[n++] = v;
        if (*p == '\0') {
            *ndims = n;
            return 0;
        }
        if (*p != 'x' && *p != 'X')
            break;
        p++;
    }
    return bl_err_set(err, "%s: '%s' is not " GRID_ACCEPTED, what,
                      text ? text : "", BL_GRID_DIM_MAX);
}

/* The app's whole-number options and their ranges: one table, read by the
 * app's option parser and by the sweep-file reader. */
static const struct {
    const char *option;
    long min, max;
} count_options[] = {
    {"--iters", 1, 1000000L},      {"--warmup", 0, 1000000L},
    {"--radius", 1, 64},           {"--n", 1, 100000000L},
    {"--nb", 1, 1000000L},         {"--seed", 0, 2147483647L},
    {"--writes", 0, 100},          {"--round-trips", 64, 1000000000L},
};

int bl_count_range(const char *option, long *min, long *max)
{
    for (size_t i = 0; i < sizeof count_options / sizeof count_options[0];
         i++)
        if (strcmp(option, count_options[i].option) == 0 ||
            strcmp(option, count_options[i].option + 2) == 0) {
            *min = count_options[i].min;
            *max = count_options[i].max;
            return 0;
        }
    return -1;
}

int bl_parse_count(const char *text, const char *option, const char *what,
                   long *out, bl_err *err)
{
    long min, max;
    if (bl_count_range(option, &min, &max) < 0)
        return bl_err_set(err, "%s: no such whole-number option", option);
    return bl_parse_long(text, what, min, max, out, err);
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
