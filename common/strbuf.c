/* The growing string of strbuf.h. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; 0, or -1 (and b->failed) when not. */
static int reserve(bl_strbuf *b, size_t n)
{
    size_t cap;
    char *p;
    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1)
        cap *= 2;
    if (!(p = realloc(b->s, cap))) {
        b->failed = 1;
        return -1;
    }
    b->s = p;
    b->cap = cap;
    return 0;
}

void bl_strbuf_add(bl_strbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void bl_strbuf_puts(bl_strbuf *b, const char *s)
{
    bl_strbuf_add(b, s, strlen(s));
}

void bl_strbuf_vprintf(bl_strbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n;
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        b->failed = 1;
    else if (reserve(b, (size_t)n) == 0) {
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void bl_strbuf_printf(bl_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bl_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *bl_strbuf_take(bl_strbuf *b)
{
    char *s = b->s;
    int failed = b->failed;
    memset(b, 0, sizeof *b);
    if (failed) {
        free(s);
        return NULL;
    }
    return s ? s : calloc(1, 1);
}

int bl_list_has(const char *list, const char *seps, const char *word,
                size_t len)
{
    for (const char *p = list + strspn(list, seps); *p;) {
        size_t n = strcspn(p, seps);
        if (n == len && strncmp(p, word, len) == 0)
            return 1;
        p += n;
        p += strspn(p, seps);
    }
    return 0;
}
