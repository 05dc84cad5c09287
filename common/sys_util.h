/* Small operating-system helpers used in several places:
 * a monotonic clock, "mkdir -p", small /proc and /sys files, and files
 * beside the running bindlab. */
#ifndef BL_SYS_UTIL_H
#define BL_SYS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Seconds on the monotonic clock (for timeouts and elapsed times only). */
double bl_now_s(void);
/* The same clock in whole nanoseconds: differences and their sums are
 * exact, so phases timed lap by lap add up to their span exactly. */
int64_t bl_now_ns(void);

/* Creates path and its missing parents (mode 0777 before the umask), like
 * mkdir -p. Returns 0, or -1 with err (may be NULL) naming the directory
 * that could not be made and why. */
int bl_mkdir_p(const char *path, bl_err *err);

/* The running executable's own path (/proc/self/exe). Returns 0, or -1
 * with err set. */
int bl_self_path(char *buf, size_t len, bl_err *err);

/* The directory holding the running executable (/proc/self/exe), e.g. the
 * build tree or PREFIX/bin. Returns 0, or -1 with err set. */
int bl_self_dir(char *buf, size_t len, bl_err *err);

/* DIR/name for DIR the directory of the running executable; whether it
 * exists is the caller's question. Returns 0, or -1 with err set. */
int bl_beside_self(const char *name, char *buf, size_t len, bl_err *err);

/* The whole of a small file (/proc, /sys), NUL-terminated and cut at len
 * - 1 bytes. Returns 0, or -1 (errno set) when it cannot be opened. */
int bl_read_small_file(const char *path, char *buf, size_t len);

#endif
