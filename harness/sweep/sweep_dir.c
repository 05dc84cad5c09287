#include "sweep/sweep_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int refuse_link(const char *path, bl_err *err)
{
    char to[PATH_MAX];
    ssize_t n = readlink(path, to, sizeof to - 1);
    to[n > 0 ? n : 0] = '\0';
    return bl_err_set(err, "%s is a symbolic link (to %s): a sweep writes "
                      "only into its own results directory, never through "
                      "a link; remove the link (or give --results the real "
                      "directory)", path, n > 0 ? to : "?");
}

/* Every entry of dir (opened without following a link) that is a link. */
static int scan(const char *dir, bl_err *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;
    struct dirent *e;
    int rc = 0;
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) {
            struct stat st;
            if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
                return refuse_link(dir, err);
            return bl_err_set(err, "%s is not a directory", dir);
        }
        return errno == ENOENT ? 0
                               : bl_err_set(err, "%s: %s", dir, strerror(errno));
    }
    if (!(d = fdopendir(fd))) {
        close(fd);
        return bl_err_set(err, "%s: %s", dir, strerror(errno));
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        char path[PATH_MAX];
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISLNK(st.st_mode))
            continue;
        bl_textf(path, sizeof path, "%s/%s", dir, e->d_name);
        rc = refuse_link(path, err);
    }
    closedir(d);
    return rc;
}

int bl_sweep_dir_check(const char *dir, bl_err *err)
{
    char app[PATH_MAX];
    if (scan(dir, err) < 0)
        return -1;
    if (bl_textf(app, sizeof app, "%s/app", dir) < 0)
        return bl_err_set(err, "%s: path too long", dir);
    return scan(app, err);
}

int bl_sweep_dir_open(const char *path, int flags, const char *what,
                      bl_err *err)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd >= 0)
        return fd;
    if (errno == ELOOP)
        return refuse_link(path, err);
    return bl_err_set(err, "%s: cannot open the %s: %s", path, what,
                      strerror(errno));
}
