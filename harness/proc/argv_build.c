/* The argv builder of argv_build.h. */
#include "proc/argv_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

void bl_argv_add(bl_argv_build *b, const char *s)
{
    char *copy;
    if (b->failed)
        return;
    /* room for the word and the terminating NULL */
    if (bl_grow(&b->v, sizeof *b->v, b->n + 1, &b->cap, 32) < 0 ||
        !(copy = strdup(s))) {
        b->failed = 1;
        return;
    }
    b->v[b->n++] = copy;
    b->v[b->n] = NULL;
}

void bl_argv_addv(bl_argv_build *b, const char *fmt, va_list ap)
{
    char buf[BL_ARGV_WORD_MAX + 1];
    int len = vsnprintf(buf, sizeof buf, fmt, ap);
    if (len < 0 || (size_t)len >= sizeof buf)
        b->failed = 1;
    else
        bl_argv_add(b, buf);
}

void bl_argv_addf(bl_argv_build *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bl_argv_addv(b, fmt, ap);
    va_end(ap);
}

char **bl_argv_take(bl_argv_build *b, bl_err *err)
{
    char **v = b->v;
    if (b->failed || !v) {
        for (size_t i = 0; v && i < b->n; i++)
            free(v[i]);
        free(v);
        v = NULL;
        bl_err_set(err, "out of memory (or an argument over %d characters) "
                        "building the command line", BL_ARGV_WORD_MAX);
    }
    memset(b, 0, sizeof *b);
    return v;
}

void bl_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}
