#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int bl_err_set(bl_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int bl_err_prefix(bl_err *err, const char *fmt, ...)
{
    if (err) {
        char prefix[256];
        size_t plen, olen;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        plen = strlen(prefix) + 2; /* "prefix: " */
        olen = strlen(err->msg);
        if (plen + olen >= sizeof err->msg)
            olen = sizeof err->msg - plen - 1;
        memmove(err->msg + plen, err->msg, olen);
        memcpy(err->msg, prefix, plen - 2);
        err->msg[plen - 2] = ':';
        err->msg[plen - 1] = ' ';
        err->msg[plen + olen] = '\0';
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
