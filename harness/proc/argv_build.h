/* Building a NULL-terminated argv word by word, for launcher command
 * lines and every other program bindlab starts: no shell reads them. Adds
 * never fail loudly; a failure is remembered and reported once by
 * bl_argv_take. */
#ifndef BL_ARGV_BUILD_H
#define BL_ARGV_BUILD_H

#include <stdarg.h>
#include <stddef.h>

#include "err.h"

typedef struct bl_argv_build {
    char **v;           /* NULL-terminated once anything was added */
    size_t n, cap;
    int failed;         /* out of memory, or a formatted word too long */
} bl_argv_build;

/* Longest word bl_argv_addf makes, without its NUL. */
#define BL_ARGV_WORD_MAX 511

/* Appends a copy of s. */
void bl_argv_add(bl_argv_build *b, const char *s);
/* Appends a printf-formatted word of at most BL_ARGV_WORD_MAX characters. */
void bl_argv_addf(bl_argv_build *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bl_argv_addv(bl_argv_build *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* The argv (malloc'ed with its words; free with bl_argv_free), or NULL
 * with err set when an add failed or nothing was added. */
char **bl_argv_take(bl_argv_build *b, bl_err *err);

/* Frees an argv of bl_argv_take (each word, then the array); NULL is a
 * no-op. */
void bl_argv_free(char **argv);

#endif
