/* Files that are complete or absent: written under a temporary name beside
 * the final one (PATH.tmp.PID), flushed to disk, then renamed over PATH.
 * Nothing here knows HDF5; h5schema builds a file image in memory and hands
 * the bytes over.
 *
 * Only a regular file (or nothing) is ever replaced: a device, directory,
 * FIFO, socket, or a symbolic link to one of them (or to nothing) is
 * refused before anything is written, so `--out /dev/null` as root cannot
 * turn the device into a file. A symbolic link to a regular file is
 * replaced by the new file; the file it pointed to is left alone. */
#ifndef BL_ATOMIC_FILE_H
#define BL_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* 0 when path may be written: absent or a regular file, in a directory that
 * exists and this process may write. Else -1 with one line naming path,
 * what is wrong and the fix. Call it before the work that produces the
 * content, so a bad path is bad input (exit 2), found early. */
int bl_atomic_check_target(const char *path, bl_err *err);

/* The temporary name beside path: "PATH.tmp.PID". -1 when it does not fit. */
int bl_atomic_temp_name(const char *path, char *buf, size_t len);

/* Writes len bytes as path: checks the target, creates the temporary (never
 * following a link there), writes, fsyncs, renames over path and fsyncs the
 * directory. On any failure the temporary is removed, path is left as it
 * was, and err names path and the reason (e.g. "no space left on device").
 * The file gets mode 0666 less the umask, as a new file would. Returns 0 or
 * -1. */
int bl_atomic_write(const char *path, const void *data, size_t len,
                    bl_err *err);
/* The same for a file in a directory held open as dirfd (AT_FDCWD: as
 * bl_atomic_write): path's last component is created, checked and renamed
 * relative to dirfd, so the directory's name being swapped for a symbolic
 * link meanwhile cannot redirect the write; path is what messages name. */
int bl_atomic_write_in(int dirfd, const char *path, const void *data,
                       size_t len, bl_err *err);
/* The same, with exactly `mode` (the umask not applied), e.g. 0755 for a
 * script that users also run by hand. */
int bl_atomic_write_mode(const char *path, const void *data, size_t len,
                         mode_t mode, bl_err *err);

#endif
