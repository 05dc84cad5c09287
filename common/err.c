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
        char old[BL_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof old);
        snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    }
    return -1;
}
