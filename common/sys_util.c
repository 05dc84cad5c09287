/* The operating-system helpers of sys_util.h. */
#include "sys_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bl_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t bl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int make_one(const char *dir, bl_err *err)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return bl_err_set(err, "%s: cannot create: %s", dir, strerror(errno));
    return 0;
}

int bl_mkdir_p(const char *path, bl_err *err)
{
    char buf[PATH_MAX];
    if (bl_textf(buf, sizeof buf, "%s", path) < 0)
        return bl_err_set(err, "%s: path too long", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (make_one(buf, err) < 0)
                return -1;
            *p = '/';
        }
    return make_one(buf, err);
}

int bl_self_path(char *buf, size_t len, bl_err *err)
{
    ssize_t n = len > 1 ? readlink("/proc/self/exe", buf, len - 1) : -1;
    if (n <= 0 || (size_t)n >= len - 1)
        return bl_err_set(err, "cannot find this program's path "
                          "(/proc/self/exe): %s",
                          n < 0 ? strerror(errno) : "too long");
    buf[n] = '\0';
    return 0;
}

int bl_self_dir(char *buf, size_t len, bl_err *err)
{
    char self[PATH_MAX];
    char *slash;
    if (bl_self_path(self, sizeof self, err) < 0)
        return -1;
    slash = strrchr(self, '/');
    if (slash == self)
        slash++;                /* a program in / */
    if (slash)
        *slash = '\0';
    if (bl_textf(buf, len, "%s", self) < 0)
        return bl_err_set(err, "%s: path too long", self);
    return 0;
}

int bl_beside_self(const char *name, char *buf, size_t len, bl_err *err)
{
    char dir[PATH_MAX];
    if (bl_self_dir(dir, sizeof dir, err) < 0)
        return -1;
    if (bl_textf(buf, len, "%s/%s", dir, name) < 0)
        return bl_err_set(err, "%s/%s: path too long", dir, name);
    return 0;
}

int bl_read_small_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < len) {
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return 0;
}
