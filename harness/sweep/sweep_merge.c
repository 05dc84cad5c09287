/* Merging a sweep's runs into RESULTS/NAME.h5 as they end: one run
 * appended in place (bl_h5_append, through a twin file), or every record
 * of DIR the merged file lacks. Shared by sweep.c. */
#include "sweep/sweep_merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "grow.h"
#include "results/results_file.h"
#include "sweep/sweep_dir.h"
#include "sweep/sweep_identity.h"
#include "sys_util.h"

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_record(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 3 && strcmp(name + n - 3, ".h5") == 0 &&
           strstr(name, ".tmp.") == NULL;
}

/* One appender at a time on the merged file: the shards of a sweep share
 * the directory (and its lock, shared); this one is taken exclusive for
 * the length of an append. -1 when it cannot be had. */
static int append_lock(const bl_sweep_ctx *c)
{
    int fd = openat(c->dirfd, ".append.lock",
                    O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The twin as HDF5 and the append's renames reach it: through the held
 * directory (HDF5 opens by name only), so the directory's name swapped
 * for a link cannot redirect it even between the check and the open. */
static void twin_path(const bl_sweep_ctx *c, char *buf, size_t len)
{
    bl_textf(buf, len, "/proc/self/fd/%d/.merged.twin", c->dirfd);
}

static int append(bl_sweep_ctx *c, const char *const *records, size_t n,
                  bl_err *err)
{
    char twin[PATH_MAX];
    int dups, unreadable, rc, fd;
    /* the name swapped for a link since: refused, naming it */
    if (bl_sweep_dir_still(c->dir, c->dirfd, err) < 0)
        return -1;
    if ((fd = append_lock(c)) < 0)
        return bl_err_set(err, "%s/.append.lock: cannot lock it", c->dir);
    twin_path(c, twin, sizeof twin);
    rc = bl_h5_append(c->out, twin, c->sweep.file, records, n, &dups,
                      &unreadable, err);
    close(fd);
    if (rc == 0 && unreadable && c->o->progress)
        fprintf(c->o->progress, "warning: %d record%s could not be read and "
                "%s left out of %s: %s\n", unreadable,
                unreadable == 1 ? "" : "s", unreadable == 1 ? "is" : "are",
                c->out, err->msg);
    return rc;
}

int bl_sweep_append(bl_sweep_ctx *c, const bl_sweep_item *it, bl_err *err)
{
    char record[PATH_MAX];
    const char *one[1] = {record};
    bl_sweep_item_path(c, it, record, sizeof record);
    return append(c, one, 1, err);
}

/* The records of the directory that the merged file lacks (a run whose
 * record was written just before a kill, or a merged file removed):
 * looked up by run id, not opened. */
int bl_sweep_merge(bl_sweep_ctx *c, bl_err *err)
{
    /* its own open file (not a dup: that shares the reading position, and
     * the next listing would start at the end) */
    int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    char **paths = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    hid_t out = H5I_INVALID_HID;
    bl_err ignored;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return bl_err_set(err, "%s: %s", c->dir, strerror(errno));
    }
    if (access(c->out, F_OK) == 0)
        out = bl_h5_open_read(c->out, &ignored);
    while ((e = readdir(d)) != NULL) {
        char group[PATH_MAX];
        if (!is_record(e->d_name))
            continue;
        bl_textf(group, sizeof group, "runs/%.*s",
                 (int)strlen(e->d_name) - 3, e->d_name);
        if (out >= 0 && H5Lexists(out, group, H5P_DEFAULT) > 0)
            continue;
        if (bl_grow(&paths, sizeof *paths, n, &cap, 64) < 0 ||
            !(paths[n] = malloc(strlen(c->dir) + strlen(e->d_name) + 2))) {
            rc = bl_err_set(err, "out of memory listing %s", c->dir);
            break;
        }
        sprintf(paths[n], "%s/%s", c->dir, e->d_name);
        n++;
    }
    closedir(d);
    if (out >= 0)
        H5Fclose(out);
    if (rc == 0 && n > 1)
        qsort(paths, n, sizeof *paths, cmp_path);
    if (rc == 0 && (n > 0 || access(c->out, F_OK) != 0))
        rc = append(c, (const char *const *)paths, n, err);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

void bl_sweep_merge_done(bl_sweep_ctx *c)
{
    int fd = append_lock(c);
    unlinkat(c->dirfd, ".merged.twin", 0);
    if (fd >= 0)
        close(fd);
}
