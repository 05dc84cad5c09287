/* The size of a POSIX extended regex once regcomp has written out its
 * repeats (sweep/ere_size.h). Each open group keeps what it holds so far;
 * a repeat multiplies the part just before it (an atom, a bracket
 * expression or a closed group). */
#include "sweep/ere_size.h"

#include <ctype.h>
#include <stddef.h>

#define SATURATED 1e15 /* far above any limit; keeps the sums finite */

static double sat(double x)
{
    return x > SATURATED ? SATURATED : x;
}

static void add(bl_ere_size *to, bl_ere_size s)
{
    to->parts = sat(to->parts + s.parts);
    to->optional = sat(to->optional + s.optional);
}

/* p just after '[': the character after the closing ']', or NULL when it
 * does not close (regcomp then says so). "[]a]" and "[^]a]" hold ']';
 * "[[:alpha:]]", "[[.x.]]" and "[[=e=]]" hold their own brackets. */
static const char *bracket_end(const char *p)
{
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']') {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char kind = p[1];
            const char *q = p + 2;
            while (*q && !(q[0] == kind && q[1] == ']'))
                q++;
            if (!*q)
                return NULL;
            p = q + 2;
        } else {
            p++;
        }
    }
    return *p ? p + 1 : NULL;
}

static const char *digits(const char *p, double *n, int *any)
{
    *n = 0;
    *any = 0;
    for (; isdigit((unsigned char)*p); p++) {
        *n = sat(*n * 10 + (*p - '0'));
        *any = 1;
    }
    return p;
}

/* p at '{': for "{m}", "{m,}", "{m,n}" or "{,n}", the copies regcomp
 * writes of the part before it and how many of those may be skipped (the
 * n - m after the first m; "{m,}" is m copies and a starred one), and
 * the character after '}'; NULL when it is not a bound. */
static const char *bound(const char *p, double *copies, double *skippable)
{
    double m, n;
    int has_m, has_n = 0;
    p = digits(p + 1, &m, &has_m);
    n = m;
    if (*p == ',') {
        p = digits(p + 1, &n, &has_n);
        if (!has_n)
            n = m + 1;
    }
    if (*p != '}' || (!has_m && !has_n))
        return NULL;
    *copies = n > m ? n : m;
    *skippable = n > m ? n - m : 0;
    return p + 1;
}

/* The part before a repeat, written out "copies" times, "skippable" of
 * them optional; the group holding it grows by the difference. */
static void repeat(bl_ere_size *group, bl_ere_size *last, double copies,
                   double skippable)
{
    bl_ere_size grown = {
        sat(last->parts * copies + 1),
        sat(last->optional * copies + skippable),
    };
    group->parts = sat(group->parts - last->parts + grown.parts);
    group->optional = sat(group->optional - last->optional + grown.optional);
    *last = grown;
}

int bl_ere_measure(const char *p, bl_ere_size *size)
{
    bl_ere_size open[BL_ERE_MAX_DEPTH + 1]; /* each open group so far */
    bl_ere_size last = {0, 0};              /* what a repeat would copy */
    int depth = 0;
    open[0] = last;
    while (*p) {
        const char *next = p + 1;
        double copies, skippable;
        switch (*p) {
        case '(':
            if (depth == BL_ERE_MAX_DEPTH)
                return -1;
            open[++depth] = (bl_ere_size){0, 0};
            last = open[depth];
            p = next;
            continue;
        case ')':
            if (depth > 0) {
                last = open[depth--];
                last.parts = sat(last.parts + 1);
                add(&open[depth], last);
                p = next;
                continue;
            }
            break;
        case '|':
            add(&open[depth], (bl_ere_size){1, 1});
            last = (bl_ere_size){0, 0};
            p = next;
            continue;
        case '+': /* "a+" is "aa*" */
            repeat(&open[depth], &last, 2, 1);
            p = next;
            continue;
        case '*':
        case '?':
            repeat(&open[depth], &last, 1, 1);
            p = next;
            continue;
        case '{':
            if ((next = bound(p, &copies, &skippable))) {
                repeat(&open[depth], &last, copies, skippable);
                p = next;
                continue;
            }
            next = p + 1;
            break;
        case '[':
            if (!(next = bracket_end(p + 1)))
                next = p + 1;
            break;
        case '\\':
            if (p[1])
                next = p + 2;
            break;
        default:
            break;
        }
        /* a character, '.', '^', '$', an escape or a bracket */
        last = (bl_ere_size){1, 0};
        add(&open[depth], last);
        p = next;
    }
    while (depth > 0) { /* unclosed: regcomp reports it */
        add(&open[depth - 1], open[depth]);
        depth--;
    }
    *size = open[0];
    return 0;
}
