#include "cpuset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* Reads a decimal PU index at *p; advances *p past it. */
static int read_index(const char **p, long *value)
{
    const char *s = *p;
    long v = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (*s - '0');
        if (v > BL_CPUSET_MAX_INDEX)
            return -2;
        s++;
    }
    *p = s;
    *value = v;
    return 0;
}

static int index_error(const char *text, int rc, bl_err *err)
{
    if (rc == -2)
        return bl_err_set(err, "cpuset '%s': index above %d", text,
                          BL_CPUSET_MAX_INDEX);
    return bl_err_set(err,
                      "cpuset '%s': expected a list like '0-3,8' "
                      "(decimal indexes and ranges, comma separated)",
                      text);
}

int bl_cpuset_parse_list(const char *text, hwloc_bitmap_t out, bl_err *err)
{
    const char *p = skip_space(text);
    hwloc_bitmap_zero(out);
    if (*p == '\0')
        return bl_err_set(err, "cpuset '%s': empty list", text);
    for (;;) {
        long lo, hi;
        int rc = read_index(&p, &lo);
        if (rc)
            return index_error(text, rc, err);
        hi = lo;
        if (*p == '-') {
            p++;
            rc = read_index(&p, &hi);
            if (rc)
                return index_error(text, rc, err);
            if (hi < lo)
                return bl_err_set(err,
                                  "cpuset '%s': range %ld-%ld is reversed "
                                  "(write the lower index first)",
                                  text, lo, hi);
        }
        hwloc_bitmap_set_range(out, (unsigned)lo, (int)hi);
        if (*p != ',')
            break;
        p++;
    }
    if (*skip_space(p) != '\0')
        return index_error(text, -1, err);
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int bl_cpuset_parse_mask(const char *text, hwloc_bitmap_t out, bl_err *err)
{
    const char *start = skip_space(text);
    const char *end;
    unsigned bit = 0;
    int ndigits = 0;

    hwloc_bitmap_zero(out);
    if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))
        start += 2;
    end = start + strlen(start);
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    /* Walk from the least significant digit so that bit numbers follow. */
    for (const char *p = end; p > start; p--) {
        char c = p[-1];
        int v;
        if (c == ',')
            continue;
        v = hex_value(c);
        if (v < 0)
            return bl_err_set(err,
                              "cpuset mask '%s': '%c' is not a hexadecimal "
                              "digit (expected e.g. 0xff or ffffffff,00000003)",
                              text, c);
        for (int b = 0; b < 4; b++, bit++)
            if (v & (1 << b)) {
                if (bit > BL_CPUSET_MAX_INDEX)
                    return bl_err_set(err, "cpuset mask '%s': bit above %d",
                                      text, BL_CPUSET_MAX_INDEX);
                hwloc_bitmap_set(out, bit);
            }
        ndigits++;
    }
    if (ndigits == 0)
        return bl_err_set(err, "cpuset mask '%s': no hexadecimal digits",
                          text);
    if (hwloc_bitmap_iszero(out))
        return bl_err_set(err, "cpuset mask '%s': no CPU set", text);
    return 0;
}

int bl_cpuset_parse(const char *text, hwloc_bitmap_t out, bl_err *err)
{
    const char *p = skip_space(text);
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return bl_cpuset_parse_mask(text, out, err);
    return bl_cpuset_parse_list(text, out, err);
}

int bl_cpuset_parse_brackets(const char *text, hwloc_bitmap_t out,
                             bl_err *err)
{
    const char *p = skip_space(text);
    unsigned pos = 0;
    int packages = 0;

    hwloc_bitmap_zero(out);
    while (*p == '[') {
        int in_core = 0;
        p++;
        for (; *p && *p != ']'; p++) {
            if (*p == '/') {
                if (!in_core)
                    return bl_err_set(err,
                                      "binding map '%s': empty core before "
                                      "'/'", text);
                in_core = 0;
            } else if (*p == 'B' || *p == '.') {
                if (pos > BL_CPUSET_MAX_INDEX)
                    return bl_err_set(err, "binding map '%s': too long",
                                      text);
                if (*p == 'B')
                    hwloc_bitmap_set(out, pos);
                pos++;
                in_core = 1;
            } else {
                return bl_err_set(err,
                                  "binding map '%s': unexpected '%c' "
                                  "(expected 'B', '.', '/' or ']')",
                                  text, *p);
            }
        }
        if (*p != ']')
            return bl_err_set(err, "binding map '%s': missing ']' (truncated?)",
                              text);
        if (!in_core)
            return bl_err_set(err, "binding map '%s': empty package or core",
                              text);
        p++;
        packages++;
    }
    if (packages == 0 || *skip_space(p) != '\0')
        return bl_err_set(err,
                          "binding map '%s': expected brackets like "
                          "'[B./..][../..]'", text);
    return 0;
}

int bl_cpuset_format_list(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    size_t used = 0;
    int first = 1;
    int i;

    if (hwloc_bitmap_weight(set) < 0)
        return -1;
    if (len)
        buf[0] = '\0';
    i = hwloc_bitmap_first(set);
    while (i >= 0) {
        int last = i;
        int next;
        int n;
        while ((next = hwloc_bitmap_next(set, last)) == last + 1)
            last = next;
        if (last == i)
            n = snprintf(used < len ? buf + used : NULL,
                         used < len ? len - used : 0, "%s%d",
                         first ? "" : ",", i);
        else
            n = snprintf(used < len ? buf + used : NULL,
                         used < len ? len - used : 0, "%s%d-%d",
                         first ? "" : ",", i, last);
        used += (size_t)n;
        first = 0;
        i = next;
    }
    return (int)used;
}

char *bl_cpuset_list_strdup(hwloc_const_bitmap_t set)
{
    int n = bl_cpuset_format_list(set, NULL, 0);
    char *s;
    if (n < 0)
        return NULL;
    s = malloc((size_t)n + 1);
    if (s)
        bl_cpuset_format_list(set, s, (size_t)n + 1);
    return s;
}

int bl_cpuset_format_mask(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    int last = hwloc_bitmap_last(set);
    size_t used = 0;
    int n;

    if (hwloc_bitmap_weight(set) < 0)
        return -1;
    if (len)
        buf[0] = '\0';
    n = snprintf(buf, len, "0x");
    used = (size_t)n;
    if (last < 0)
        last = 0;
    for (int nib = last / 4; nib >= 0; nib--) {
        int v = 0;
        for (int b = 0; b < 4; b++)
            if (hwloc_bitmap_isset(set, (unsigned)(nib * 4 + b)))
                v |= 1 << b;
        n = snprintf(used < len ? buf + used : NULL,
                     used < len ? len - used : 0, "%x", v);
        used += (size_t)n;
    }
    return (int)used;
}

uint64_t bl_cpuset_hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

uint64_t bl_cpuset_hash(uint64_t h, hwloc_const_bitmap_t set)
{
    int last = hwloc_bitmap_last(set);
    int words = last < 0 ? 0 : last / (int)(8 * sizeof(unsigned long)) + 1;
    for (int i = 0; i < words; i++)
        h = bl_cpuset_hash_mix(h,
                               hwloc_bitmap_to_ith_ulong(set, (unsigned)i));
    return bl_cpuset_hash_mix(h, (uint64_t)(last + 1));
}
