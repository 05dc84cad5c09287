/* KMP_HW_SUBSET into a bl_kmp_hw_subset (plan_kmp.h). The grammar is the
 * one LLVM's openmp documentation gives (Runtimes.rst): items separated by
 * commas, each [COUNT|*]UNIT[@OFFSET][:ATTRIBUTE], units case-insensitive;
 * what both runtimes accepted on the development VM decided the corners
 * (0c is refused, a unit without a count means all of them). */
#include "plan/plan_kmp.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define EXAMPLE "e.g. 1s,2c,1t or 2c@1"

static const struct {
    const char *name;
    bl_kmp_unit unit;
} units[] = {
    {"s", BL_KMP_UNIT_SOCKET},   {"socket", BL_KMP_UNIT_SOCKET},
    {"package", BL_KMP_UNIT_SOCKET}, {"d", BL_KMP_UNIT_DIE},
    {"die", BL_KMP_UNIT_DIE},    {"tile", BL_KMP_UNIT_TILE},
    {"n", BL_KMP_UNIT_NUMA},     {"numa", BL_KMP_UNIT_NUMA},
    {"l3", BL_KMP_UNIT_L3},      {"l2", BL_KMP_UNIT_L2},
    {"l1", BL_KMP_UNIT_L1},      {"c", BL_KMP_UNIT_CORE},
    {"core", BL_KMP_UNIT_CORE},  {"t", BL_KMP_UNIT_THREAD},
    {"thread", BL_KMP_UNIT_THREAD}};

#define NUNITS (sizeof units / sizeof units[0])

const char *bl_kmp_unit_name(bl_kmp_unit u)
{
    static const char *const names[] = {"socket", "die", "tile", "NUMA domain",
                                        "L3 cache", "L2 cache", "L1 cache",
                                        "core", "thread"};
    return (unsigned)u < sizeof names / sizeof names[0] ? names[u] : "?";
}

static int bad(bl_err *err, const char *text, const char *what, int at)
{
    return bl_err_set(err, "KMP_HW_SUBSET '%s': %s at character %d; accepted: "
                      "[COUNT|*]UNIT[@OFFSET][:ATTRIBUTE],... with UNIT s "
                      "(socket), d (die), tile, n (numa), l1, l2, l3, c "
                      "(core), t (thread), " EXAMPLE, text, what, at + 1);
}

/* A decimal number of at most 9 digits at *p; -1 when there is none. */
static long number(const char **p)
{
    long v = 0;
    int digits = 0;
    while (isdigit((unsigned char)**p) && digits < 10) {
        v = v * 10 + (**p - '0');
        (*p)++;
        digits++;
    }
    return digits == 0 || digits > 9 ? -1 : v;
}

static int unit_at(const char **p, bl_kmp_unit *out)
{
    size_t len = 0;
    while (isalnum((unsigned char)(*p)[len]) || (*p)[len] == '_')
        len++;
    /* plurals: "cores", "sockets", "threads" */
    for (int plural = 0; plural < 2; plural++)
        for (size_t i = 0; i < NUNITS; i++) {
            size_t n = strlen(units[i].name);
            if (n > 1 && n + (size_t)plural == len &&
                strncasecmp(units[i].name, *p, n) == 0 &&
                (!plural || tolower((unsigned char)(*p)[n]) == 's')) {
                *out = units[i].unit;
                *p += len;
                return 0;
            }
        }
    /* one-letter units may be followed by nothing of a word */
    for (size_t i = 0; i < NUNITS; i++)
        if (strlen(units[i].name) == 1 && len == 1 &&
            tolower((unsigned char)**p) == units[i].name[0]) {
            *out = units[i].unit;
            (*p)++;
            return 0;
        }
    return -1;
}

/* One item at *p; 0 or -1 with err. */
static int item(const char *text, const char **p, bl_kmp_subset_item *it,
                bl_err *err)
{
    const char *s = *p;
    long v;
    it->count = 0;
    if (*s == '*') {
        s++;
    } else if (isdigit((unsigned char)*s)) {
        if ((v = number(&s)) < 1)
            return bad(err, text, "a count of 1 or more expected", (int)(*p - text));
        it->count = (int)v;
    }
    if (unit_at(&s, &it->unit) < 0)
        return bad(err, text, "unknown unit", (int)(s - text));
    if (*s == '@') {
        s++;
        if ((v = number(&s)) < 0)
            return bad(err, text, "an offset (0 or more) expected after '@'",
                       (int)(s - text));
        it->offset = (int)v;
    }
    if (*s == ':') {
        size_t n = 0;
        s++;
        while (isalnum((unsigned char)s[n]) || s[n] == '_')
            n++;
        int eff = n > 3 && strncasecmp(s, "eff", 3) == 0 &&
                  strspn(s + 3, "0123456789") == n - 3;
        if (!eff && !(n == 10 && strncasecmp(s, "intel_atom", n) == 0) &&
            !(n == 10 && strncasecmp(s, "intel_core", n) == 0))
            return bad(err, text, "attribute intel_atom, intel_core or effN "
                       "expected after ':'", (int)(s - text));
        snprintf(it->attr, sizeof it->attr, "%.*s", (int)n, s);
        s += n;
    }
    *p = s;
    return 0;
}

int bl_kmp_hw_subset_parse(const char *text, bl_kmp_hw_subset *out, bl_err *err)
{
    bl_kmp_hw_subset h;
    const char *p = text ? text : "";
    memset(&h, 0, sizeof h);
    while (isspace((unsigned char)*p))
        p++;
    while (*p) {
        if (h.n == BL_KMP_SUBSET_MAX)
            return bad(err, text, "too many items", (int)(p - text));
        if (item(text, &p, &h.item[h.n], err) < 0)
            return -1;
        h.n++;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',') {
            p++;
            while (isspace((unsigned char)*p))
                p++;
            if (!*p)
                return bad(err, text, "an item expected after ','", (int)(p - text));
        } else if (*p) {
            return bad(err, text, "',' expected", (int)(p - text));
        }
    }
    *out = h;
    return 0;
}
