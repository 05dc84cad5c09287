/* The syntax of OMP_PROC_BIND and OMP_PLACES (omp_syntax.h), as libgomp
 * reads them (libgomp/env.c), which accepts what the OpenMP 5.x grammar
 * allows (docs/openmp-model.md). No topology here: abstract place names
 * are only recognised; plan/plan_omp_places.c turns them into places. */
#include "omp_syntax.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "grow.h"

#define ACCEPTED_BIND                                                       \
    "false, true, primary, master, close or spread, or a list of the last " \
    "four such as \"spread,close\""

/* ---- OMP_PROC_BIND ----------------------------------------------------- */

int bl_omp_parse_bind(const char *text, bl_omp_bind *out, bl_err *err)
{
    static const struct {
        const char *name;
        bl_omp_bind bind;
        int alone; /* true/false cannot start a nesting list */
    } words[] = {{"false", BL_OMP_BIND_FALSE, 1},     {"true", BL_OMP_BIND_TRUE, 1},
                 {"primary", BL_OMP_BIND_PRIMARY, 0}, {"master", BL_OMP_BIND_PRIMARY, 0},
                 {"close", BL_OMP_BIND_CLOSE, 0},     {"spread", BL_OMP_BIND_SPREAD, 0}};
    const char *p = text ? text : "";
    int first = 1;
    *out = BL_OMP_BIND_UNSET;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return 0;
    for (;;) {
        size_t i, n = 0;
        for (i = 0; i < sizeof words / sizeof words[0]; i++) {
            n = strlen(words[i].name);
            if (strncasecmp(p, words[i].name, n) == 0 &&
                !isalnum((unsigned char)p[n]) && p[n] != '_')
                break;
        }
        if (i == sizeof words / sizeof words[0] || (words[i].alone && !first))
            break;
        if (first)
            *out = words[i].bind;
        p += n;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            return 0;
        if (*p != ',' || words[i].alone)
            break;
        p++;
        while (isspace((unsigned char)*p))
            p++;
        first = 0;
    }
    *out = BL_OMP_BIND_UNSET;
    return bl_err_set(err, "OMP_PROC_BIND '%s': not understood at character %d; accepted: %s",
                      text, (int)(p - text) + 1, ACCEPTED_BIND);
}

#define ACCEPTED_PLACES                                                      \
    "threads, cores, ll_caches, numa_domains or sockets, optionally with a " \
    "count (\"cores(4)\"), or an explicit list such as \"{0:4},{4:4}\", "    \
    "\"{0,1,2,3}\", \"{0:4:2}\" or \"{0:4}:2:8\""
/* libgomp refuses lists of more places than this. */
#define MAX_PLACES 65536

/* ---- a growing list of places ------------------------------------------ */

int bl_omp_place_push(bl_omp_place_list *l, hwloc_bitmap_t b)
{
    if (!b)
        return -1;
    if (bl_grow(&l->v, sizeof *l->v, (size_t)l->n, &l->cap, 16) < 0) {
        hwloc_bitmap_free(b);
        return -1;
    }
    l->v[l->n++] = b;
    return 0;
}

void bl_omp_places_free(hwloc_bitmap_t *places, int nplaces)
{
    for (int i = 0; places && i < nplaces; i++)
        hwloc_bitmap_free(places[i]);
    free(places);
}

/* ---- explicit lists: "{0:4}:2:8,!{4,5},3" ------------------------------ */

typedef struct cursor {
    const char *text, *p;
    bl_err *err;
} cursor;

static void skip_ws(cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static int syntax(const cursor *c, const char *what)
{
    return bl_err_set(c->err, "OMP_PLACES '%s': %s at character %d; accepted: %s",
                      c->text, what, (int)(c->p - c->text) + 1, ACCEPTED_PLACES);
}

/* A decimal number, signed only when allow_sign; |value| <= 2^20 keeps the
 * arithmetic below far from overflow. */
static int number(cursor *c, int allow_sign, long *out, const char *what)
{
    long v = 0, sign = 1;
    skip_ws(c);
    if (allow_sign && (*c->p == '-' || *c->p == '+'))
        sign = *c->p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*c->p))
        return syntax(c, what);
    while (isdigit((unsigned char)*c->p)) {
        v = v * 10 + (*c->p++ - '0');
        if (v > (1L << 20))
            return syntax(c, "number too large");
    }
    *out = sign * v;
    skip_ws(c);
    return 0;
}

/* ":len" and ":len:stride" after a CPU or a place; len >= 1. */
static int interval(cursor *c, long *len, long *stride)
{
    *len = 1;
    *stride = 1;
    if (*c->p != ':')
        return 0;
    c->p++;
    if (number(c, 0, len, "expected a count after ':'") < 0)
        return -1;
    if (*len < 1)
        return syntax(c, "a count must be at least 1");
    if (*c->p == ':') {
        c->p++;
        if (number(c, 1, stride, "expected a stride after ':'") < 0)
            return -1;
    }
    return 0;
}

static int cpu_ok(cursor *c, long cpu)
{
    if (cpu < 0 || cpu > BL_CPUSET_MAX_INDEX) {
        bl_err_set(c->err, "OMP_PLACES '%s': CPU %ld is out of range 0-%d",
                   c->text, cpu, BL_CPUSET_MAX_INDEX);
        return -1;
    }
    return 0;
}

/* "{0:4,!2}" or a bare "3" into place. CPUs after '!' are removed once all
 * others are added, so their position inside the braces does not matter
 * (libgomp's two passes). */
static int one_place(cursor *c, hwloc_bitmap_t place)
{
    long num, len, stride;
    hwloc_bitmap_zero(place);
    if (*c->p != '{') {
        if (number(c, 0, &num, "expected '{' or a CPU number") < 0 || cpu_ok(c, num) < 0)
            return -1;
        hwloc_bitmap_set(place, (unsigned)num);
        return 0;
    }
    c->p++;
    hwloc_bitmap_t removed = hwloc_bitmap_alloc();
    if (!removed)
        return bl_err_set(c->err, "out of memory");
    for (;;) {
        skip_ws(c);
        int negate = *c->p == '!';
        if (negate)
            c->p++;
        if (number(c, 0, &num, "expected a CPU number") < 0)
            goto fail;
        if (negate && *c->p == ':') {
            syntax(c, "an excluded CPU '!N' takes no count");
            goto fail;
        }
        if (interval(c, &len, &stride) < 0)
            goto fail;
        for (long i = 0; i < len; i++) {
            if (cpu_ok(c, num + i * stride) < 0)
                goto fail;
            hwloc_bitmap_set(negate ? removed : place, (unsigned)(num + i * stride));
        }
        if (*c->p == '}')
            break;
        if (*c->p != ',') {
            syntax(c, "expected ',' or '}'");
            goto fail;
        }
        c->p++;
    }
    c->p++;
    skip_ws(c);
    if (!hwloc_bitmap_isincluded(removed, place)) {
        hwloc_bitmap_andnot(removed, removed, place);
        bl_err_set(c->err, "OMP_PLACES '%s': CPU %d is excluded with '!' but is not in its place",
                   c->text, hwloc_bitmap_first(removed));
        goto fail;
    }
    hwloc_bitmap_andnot(place, place, removed);
    hwloc_bitmap_free(removed);
    return 0;
fail:
    hwloc_bitmap_free(removed);
    return -1;
}

/* place shifted by stride CPUs, or NULL (message in c->err). */
static hwloc_bitmap_t shifted(cursor *c, hwloc_const_bitmap_t place, long stride)
{
    hwloc_bitmap_t out = hwloc_bitmap_alloc();
    int i;
    if (!out) {
        bl_err_set(c->err, "out of memory");
        return NULL;
    }
    hwloc_bitmap_foreach_begin(i, place) {
        if (cpu_ok(c, i + stride) < 0) {
            hwloc_bitmap_free(out);
            return NULL;
        }
        hwloc_bitmap_set(out, (unsigned)(i + stride));
    } hwloc_bitmap_foreach_end();
    return out;
}

/* "!{4,5}" removes the first equal place listed before it. */
static int exclude_place(cursor *c, bl_omp_place_list *l, hwloc_const_bitmap_t place)
{
    for (int i = 0; i < l->n; i++)
        if (hwloc_bitmap_isequal(l->v[i], place)) {
            hwloc_bitmap_free(l->v[i]);
            memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i - 1) * sizeof l->v[0]);
            l->n--;
            return 0;
        }
    char buf[128];
    bl_cpuset_format_list(place, buf, sizeof buf);
    return bl_err_set(c->err, "OMP_PLACES '%s': the excluded place {%s} is not in the list before it",
                      c->text, buf);
}

static int explicit_list(cursor *c, bl_omp_place_list *l)
{
    for (;;) {
        long len, stride;
        skip_ws(c);
        int negate = *c->p == '!';
        if (negate)
            c->p++;
        skip_ws(c);
        hwloc_bitmap_t place = hwloc_bitmap_alloc();
        if (!place)
            return bl_err_set(c->err, "out of memory");
        if (one_place(c, place) < 0) {
            hwloc_bitmap_free(place);
            return -1;
        }
        if (negate) {
            int rc = *c->p == ':' ? syntax(c, "an excluded place '!{..}' takes no count")
                                  : exclude_place(c, l, place);
            hwloc_bitmap_free(place);
            if (rc < 0)
                return -1;
        } else {
            if (interval(c, &len, &stride) < 0) {
                hwloc_bitmap_free(place);
                return -1;
            }
            if (l->n + len > MAX_PLACES) {
                hwloc_bitmap_free(place);
                return bl_err_set(c->err, "OMP_PLACES '%s': more than %d places",
                                  c->text, MAX_PLACES);
            }
            if (bl_omp_place_push(l, place) < 0)
                return bl_err_set(c->err, "out of memory");
            for (long i = 1; i < len; i++) {
                hwloc_bitmap_t next = shifted(c, l->v[l->n - 1], stride);
                if (!next)
                    return -1;
                if (bl_omp_place_push(l, next) < 0)
                    return bl_err_set(c->err, "out of memory");
            }
        }
        if (*c->p == '\0')
            return 0;
        if (*c->p != ',')
            return syntax(c, "expected ',' between places");
        c->p++;
    }
}

/* ---- abstract names ---------------------------------------------------- */

static const char *const level_names[] = {"threads", "cores", "ll_caches",
                                          "numa_domains", "sockets"};

/* "cores", "CORES ( 4 )": the level and count, 0 when text is no name. */
static int abstract_name(cursor *c, bl_omp_level *lv, long *count)
{
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(level_names[i]);
        if (strncasecmp(c->p, level_names[i], n) != 0)
            continue;
        c->p += n;
        *lv = (bl_omp_level)i;
        *count = LONG_MAX;
        skip_ws(c);
        if (*c->p == '(') {
            c->p++;
            if (number(c, 0, count, "expected a place count") < 0)
                return -1;
            if (*count < 1)
                return syntax(c, "the place count must be at least 1");
            if (*c->p != ')')
                return syntax(c, "expected ')'");
            c->p++;
            skip_ws(c);
        }
        if (*c->p != '\0')
            return syntax(c, "unexpected text after the name");
        return 1;
    }
    if (isalpha((unsigned char)*c->p))
        return bl_err_set(c->err, "OMP_PLACES '%s': unknown name; accepted: %s",
                          c->text, ACCEPTED_PLACES);
    return 0;
}

int bl_omp_places_name(const char *text, bl_omp_level *level, long *count,
                       bl_err *err)
{
    cursor c = {text ? text : "", text ? text : "", err};
    *level = BL_OMP_LEVEL_THREADS;
    *count = LONG_MAX;
    skip_ws(&c);
    if (*c.p == '\0')
        return 1; /* unset: one place per hardware thread */
    return abstract_name(&c, level, count);
}

int bl_omp_places_explicit(const char *text, hwloc_bitmap_t **places,
                           int *nplaces, bl_err *err)
{
    bl_omp_place_list l = {0};
    cursor c = {text, text, err};
    *places = NULL;
    *nplaces = 0;
    if (explicit_list(&c, &l) < 0) {
        bl_omp_places_free(l.v, l.n);
        return -1;
    }
    *places = l.v;
    *nplaces = l.n;
    return 0;
}
