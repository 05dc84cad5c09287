/* Error values for library code: functions return 0 or a negative value and
 * fill a caller-provided bl_err with one line that names the input and what is
 * accepted. Only the CLI layers print it. */
#ifndef BL_ERR_H
#define BL_ERR_H

#include <stddef.h>

#define BL_ERR_MSG_MAX 1024

typedef struct bl_err {
    char msg[BL_ERR_MSG_MAX];
} bl_err;

/* Formats the message into err (when err is not NULL) and returns -1, so that
 * callers can write `return bl_err_set(err, "...");`. */
int bl_err_set(bl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes an existing message: "context: old message". Returns -1. */
int bl_err_prefix(bl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* snprintf for paths and names: returns -1 when the text did not fit (buf
 * then holds a cut copy). A function, so callers that checked the lengths
 * up front are not warned about truncation that cannot happen. */
int bl_textf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
