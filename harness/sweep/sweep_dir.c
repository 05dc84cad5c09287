#include "sweep/sweep_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* shown names the link in the message; name is it inside dirfd. */
static int refuse_link(int dirfd, const char *name, const char *shown,
                       const char *when, bl_err *err)
{
    char to[PATH_MAX];
    ssize_t n = readlinkat(dirfd, name, to, sizeof to - 1);
    to[n > 0 ? n : 0] = '\0';
    return bl_err_set(err, "%s is a symbolic link (to %s)%s: a sweep writes "
                      "only into its own results directory, never through "
                      "a link; remove the link (or give --results the real "
                      "directory)", shown, n > 0 ? to : "?", when);
}

static const char *leaf(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The directory name (relative to at) opened without following a link:
 * the descriptor, or -1 with err (a link is named as such). */
static int open_dir(int at, const char *name, const char *shown, bl_err *err)
{
    int fd = openat(at, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0)
        return fd;
    if ((errno == ELOOP || errno == ENOTDIR) &&
        fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        return refuse_link(at, name, shown, "", err);
    if (errno == ENOTDIR)
        return bl_err_set(err, "%s is not a directory", shown);
    return bl_err_set(err, "%s: %s", shown, strerror(errno));
}

/* Every entry of the directory open as fd that is a link. */
static int scan(int fd, const char *shown, bl_err *err)
{
    /* its own open file: a dup would share (and leave at the end) the
     * held descriptor's reading position */
    int list_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    DIR *d = list_fd >= 0 ? fdopendir(list_fd) : NULL;
    struct dirent *e;
    if (!d) {
        if (list_fd >= 0)
            close(list_fd);
        return bl_err_set(err, "%s: %s", shown, strerror(errno));
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        char path[PATH_MAX];
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISLNK(st.st_mode))
            continue;
        bl_textf(path, sizeof path, "%s/%s", shown, e->d_name);
        rc = refuse_link(fd, e->d_name, path, "", err);
    }
    closedir(d);
    return rc;
}

int bl_sweep_dir_hold(const char *dir, int *dirfd, int *appfd, bl_err *err)
{
    char app[PATH_MAX];
    *dirfd = *appfd = -1;
    if (bl_textf(app, sizeof app, "%s/app", dir) < 0)
        return bl_err_set(err, "%s: path too long", dir);
    if ((*dirfd = open_dir(AT_FDCWD, dir, dir, err)) < 0)
        return -1;
    if (scan(*dirfd, dir, err) < 0)
        goto fail;
    if (mkdirat(*dirfd, "app", 0777) < 0 && errno != EEXIST) {
        bl_err_set(err, "%s: cannot create it: %s", app, strerror(errno));
        goto fail;
    }
    if ((*appfd = open_dir(*dirfd, "app", app, err)) < 0 ||
        scan(*appfd, app, err) < 0)
        goto fail;
    return 0;
fail:
    bl_sweep_dir_release(dirfd, appfd);
    return -1;
}

void bl_sweep_dir_release(int *dirfd, int *appfd)
{
    if (*appfd >= 0)
        close(*appfd);
    if (*dirfd >= 0)
        close(*dirfd);
    *dirfd = *appfd = -1;
}

int bl_sweep_dir_still(const char *dir, int dirfd, bl_err *err)
{
    struct stat held, now;
    if (fstat(dirfd, &held) != 0)
        return bl_err_set(err, "%s: %s", dir, strerror(errno));
    if (lstat(dir, &now) != 0)
        return bl_err_set(err, "%s was removed while the sweep ran (%s); "
                          "its records are kept only where it was: "
                          "restore it, then --resume", dir, strerror(errno));
    if (S_ISLNK(now.st_mode))
        return refuse_link(AT_FDCWD, dir, dir,
                           " (put there while the sweep ran)", err);
    if (now.st_dev != held.st_dev || now.st_ino != held.st_ino)
        return bl_err_set(err, "%s was replaced by another directory while "
                          "the sweep ran: a sweep writes only into the "
                          "directory it started in; put the original back, "
                          "then --resume", dir);
    return 0;
}

int bl_sweep_dir_open(int dirfd, const char *path, int flags,
                      const char *what, bl_err *err)
{
    int fd = openat(dirfd, leaf(path),
                    flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd >= 0)
        return fd;
    if (errno == ELOOP)
        return refuse_link(dirfd, leaf(path), path, "", err);
    return bl_err_set(err, "%s: cannot open the %s: %s", path, what,
                      strerror(errno));
}
