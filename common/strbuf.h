/* A growing string for building text (scripts, reports, JSON): appends
 * never fail loudly; an allocation failure is remembered and reported once
 * by bl_strbuf_take, so builders need no check after every piece. */
#ifndef BL_STRBUF_H
#define BL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct bl_strbuf {
    char *s;        /* NUL-terminated once anything was added */
    size_t len, cap;
    int failed;     /* an allocation failed: the text is incomplete */
} bl_strbuf;

/* Appends n bytes of s. */
void bl_strbuf_add(bl_strbuf *b, const char *s, size_t n);
/* Appends the string s. */
void bl_strbuf_puts(bl_strbuf *b, const char *s);
/* Appends printf-formatted text. */
void bl_strbuf_printf(bl_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bl_strbuf_vprintf(bl_strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* 1 when word (len bytes) is one of the items of list, items separated by
 * any run of the characters in seps ("a, b" with ", "). */
int bl_list_has(const char *list, const char *seps, const char *word,
                size_t len);

/* The text (malloc'ed, "" when nothing was added; the caller frees it), or
 * NULL when an append failed. Either way b is left empty. */
char *bl_strbuf_take(bl_strbuf *b);

#endif
