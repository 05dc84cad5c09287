/* Error values for library code: functions return 0 or a negative value and
 * fill a caller-provided bl_err with one line that names the input and what is
 * accepted. Only the CLI layers print it. */
#ifndef BL_ERR_H
#define BL_ERR_H

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

#endif
