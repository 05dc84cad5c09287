#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters of a long quoted value kept in a message that would not fit. */
#define ECHO_KEPT 60

/* The longest span between a quote (' or ") and the next same quote:
 * its first character's offset and length; 0 when there is none. */
static size_t longest_quoted(const char *s, size_t *start)
{
    size_t best = 0;
    for (const char *p = s; *p; p++) {
        const char *q;
        if ((*p != '\'' && *p != '"') || !(q = strchr(p + 1, *p)))
            continue;
        if ((size_t)(q - p - 1) > best) {
            best = (size_t)(q - p - 1);
            *start = (size_t)(p + 1 - s);
        }
        p = q;
    }
    return best;
}

/* text (malloc'ed, NUL-terminated) into msg. A message too long for it
 * has an offending value echoed in it (a 3,000-character map_by): its
 * longest quoted value is cut to its first characters and its length,
 * until it fits, so that the reason after it stays; failing that, its
 * head and its end. */
static void fit(char *msg, size_t cap, char *text)
{
    size_t n = strlen(text), start = 0, span;
    while (n >= cap && (span = longest_quoted(text, &start)) > ECHO_KEPT + 32) {
        char cut[64];
        int c = snprintf(cut, sizeof cut, "... (%zu characters)", span);
        memcpy(text + start + ECHO_KEPT, cut, (size_t)c);
        memmove(text + start + ECHO_KEPT + (size_t)c, text + start + span,
                n - start - span + 1);
        n = strlen(text);
    }
    if (n >= cap) {
        size_t head = cap / 2, tail = cap - head - 6;
        memcpy(msg, text, head);
        memcpy(msg + head, " ... ", 5);
        memcpy(msg + head + 5, text + n - tail, tail + 1);
        return;
    }
    memcpy(msg, text, n + 1);
}

static void set_v(bl_err *err, const char *prefix, const char *fmt,
                  va_list ap)
{
    va_list again;
    size_t plen = prefix ? strlen(prefix) : 0;
    int n;
    char *text;
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    if (n < 0 || !(text = malloc(plen + (size_t)n + 1))) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap); /* cut, but said */
        return;
    }
    memcpy(text, prefix ? prefix : "", plen);
    vsnprintf(text + plen, (size_t)n + 1, fmt, ap);
    fit(err->msg, sizeof err->msg, text);
    free(text);
}

static void set_f(bl_err *err, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_f(bl_err *err, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_v(err, prefix, fmt, ap);
    va_end(ap);
}

int bl_err_set(bl_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        set_v(err, NULL, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int bl_err_prefix(bl_err *err, const char *fmt, ...)
{
    if (err) {
        /* whole, however long: set_v cuts a long value in it, keeping its
         * closing quote and the reason after it */
        char small[256], old[BL_ERR_MSG_MAX], *prefix;
        va_list ap;
        int n;
        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        prefix = n >= 0 ? malloc((size_t)n + 3) : NULL;
        if (!prefix) {
            prefix = small;
            n = (int)sizeof small - 3;
        }
        va_start(ap, fmt);
        vsnprintf(prefix, (size_t)n + 1, fmt, ap);
        va_end(ap);
        memcpy(prefix + strlen(prefix), ": ", 3);
        memcpy(old, err->msg, sizeof old);
        set_f(err, prefix, "%s", old);
        if (prefix != small)
            free(prefix);
    }
    return -1;
}

int bl_textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}
