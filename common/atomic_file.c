#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory part of path ("." when there is none). */
static int dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return bl_textf(buf, len, ".");
    if (slash == path)
        return bl_textf(buf, len, "/");
    return bl_textf(buf, len, "%.*s", (int)(slash - path), path);
}

static const char *kind_of(mode_t mode)
{
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* The name path's last component has inside the directory open as dirfd;
 * path itself when dirfd is AT_FDCWD. */
static const char *name_in(int dirfd, const char *path)
{
    const char *slash = strrchr(path, '/');
    return dirfd == AT_FDCWD || !slash ? path : slash + 1;
}

static int check_dir(int dirfd, const char *path, bl_err *err)
{
    char dir[4096];
    struct stat st;
    if (dir_of(path, dir, sizeof dir) < 0)
        return bl_err_set(err, "%s: path too long", path);
    if (fstatat(dirfd, dirfd == AT_FDCWD ? dir : ".", &st, 0) < 0)
        return bl_err_set(err, "%s: directory '%s' %s; create it first or "
                          "give another path", path, dir,
                          errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return bl_err_set(err, "%s: '%s' is not a directory", path, dir);
    if (faccessat(dirfd, dirfd == AT_FDCWD ? dir : ".", W_OK | X_OK, 0) < 0)
        return bl_err_set(err, "%s: directory '%s' is not writable (%s); give "
                          "a path in a directory you may write", path, dir,
                          strerror(errno));
    return 0;
}

static int check_target(int dirfd, const char *path, bl_err *err);

int bl_atomic_check_target(const char *path, bl_err *err)
{
    return check_target(AT_FDCWD, path, err);
}

static int check_target(int dirfd, const char *path, bl_err *err)
{
    struct stat st;
    size_t n = path ? strlen(path) : 0;
    const char *name = n ? name_in(dirfd, path) : path;
    if (n == 0)
        return bl_err_set(err, "the output file name is empty");
    if (path[n - 1] == '/')
        return bl_err_set(err, "%s: names a directory; give a file name",
                          path);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT)
            return bl_err_set(err, "%s: %s", path, strerror(errno));
        return check_dir(dirfd, path, err);
    }
    if (S_ISLNK(st.st_mode)) {
        if (fstatat(dirfd, name, &st, 0) < 0)
            return bl_err_set(err, "%s: a symbolic link to nothing (%s); "
                              "remove it or give another name", path,
                              strerror(errno));
        if (!S_ISREG(st.st_mode))
            return bl_err_set(err, "%s: a symbolic link to %s; only a "
                              "regular file is replaced: give another name",
                              path, kind_of(st.st_mode));
    } else if (!S_ISREG(st.st_mode)) {
        return bl_err_set(err, "%s: is %s; only a regular file is replaced: "
                          "give another name", path, kind_of(st.st_mode));
    }
    return check_dir(dirfd, path, err);
}

int bl_atomic_temp_name(const char *path, char *buf, size_t len)
{
    return bl_textf(buf, len, "%s.tmp.%ld", path, (long)getpid());
}

/* The temporary, created afresh: O_EXCL so a link planted under its name is
 * never followed. One left by a dead process with our pid is removed. */
static int create_temp(int dirfd, const char *tmp, mode_t mode)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
    int fd = openat(dirfd, tmp, flags, mode);
    if (fd < 0 && errno == EEXIST && unlinkat(dirfd, tmp, 0) == 0)
        fd = openat(dirfd, tmp, flags, mode);
    return fd;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* One line for a failed write; a full disk is said in plain words. */
static int write_failed(const char *path, const char *tmp, const char *what,
                        int e, size_t len, bl_err *err)
{
    if ((e == ENOSPC || e == EDQUOT) && len == 0) /* written in place */
        return bl_err_set(err, "%s: no space left on device (%s): free "
                          "space or write elsewhere; nothing was replaced",
                          path,
                          e == EDQUOT ? "disk quota exceeded" : "disk full");
    if (e == ENOSPC || e == EDQUOT)
        return bl_err_set(err, "%s: no space left on device (%s, %zu bytes "
                          "to write): free space or write elsewhere; nothing "
                          "was replaced", path,
                          e == EDQUOT ? "disk quota exceeded" : "disk full",
                          len);
    return bl_err_set(err, "%s: cannot %s %s: %s; nothing was replaced", path,
                      what, tmp, strerror(e));
}

/* After the rename: the directory entry itself reaches the disk. Some file
 * systems refuse fsync on a directory; the data is safe either way. */
static void sync_dir(int dirfd, const char *path)
{
    char dir[4096];
    int fd;
    if (dirfd != AT_FDCWD) {
        fsync(dirfd);
        return;
    }
    if (dir_of(path, dir, sizeof dir) < 0)
        return;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The written temporary takes the target's name: the target is checked once
 * more right before the rename (it may have been replaced by a device or a
 * directory while we wrote), then the directory entry is synced. The
 * temporary is removed whatever fails. */
static int publish(int dirfd, const char *path, const char *tmp,
                   bl_err *err)
{
    int e;
    if (check_target(dirfd, path, err) < 0) {
        unlinkat(dirfd, tmp, 0);
        return -1;
    }
    if (renameat(dirfd, tmp, dirfd, name_in(dirfd, path)) < 0) {
        e = errno;
        unlinkat(dirfd, tmp, 0);
        return bl_err_set(err, "%s: cannot rename %s over it: %s", path, tmp,
                          strerror(e));
    }
    sync_dir(dirfd, path);
    return 0;
}

/* exact_mode: mode as given (fchmod), else 0666 less the umask. */
static int write_file(int dirfd, const char *path, const void *data,
                      size_t len, int exact_mode, mode_t mode, bl_err *err)
{
    char tmp[4096];
    int fd, e;
    if (check_target(dirfd, path, err) < 0)
        return -1;
    if (bl_atomic_temp_name(name_in(dirfd, path), tmp, sizeof tmp) < 0)
        return bl_err_set(err, "%s: path too long", path);
    fd = create_temp(dirfd, tmp, exact_mode ? mode : 0666);
    if (fd < 0) {
        e = errno;
        if (e == ENOSPC || e == EDQUOT)
            return write_failed(path, tmp, "create", e, len, err);
        return bl_err_set(err, "%s: cannot create %s: %s", path, tmp,
                          strerror(e));
    }
    if (write_all(fd, data, len) < 0 ||
        (exact_mode && fchmod(fd, mode) < 0) || fsync(fd) < 0) {
        e = errno;
        close(fd);
        unlinkat(dirfd, tmp, 0);
        return write_failed(path, tmp, "write", e, len, err);
    }
    if (close(fd) < 0) {
        e = errno;
        unlinkat(dirfd, tmp, 0);
        return write_failed(path, tmp, "write", e, len, err);
    }
    return publish(dirfd, path, tmp, err);
}

int bl_atomic_write(const char *path, const void *data, size_t len,
                    bl_err *err)
{
    return write_file(AT_FDCWD, path, data, len, 0, 0, err);
}

int bl_atomic_write_in(int dirfd, const char *path, const void *data,
                       size_t len, bl_err *err)
{
    return write_file(dirfd, path, data, len, 0, 0, err);
}

int bl_atomic_write_mode(const char *path, const void *data, size_t len,
                         mode_t mode, bl_err *err)
{
    return write_file(AT_FDCWD, path, data, len, 1, mode, err);
}
