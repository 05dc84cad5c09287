/* The shipped-data lookup of datadir.h. */
#include "cli/datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys_util.h"

/* The source tree's configs/, baked in at build time: used only when no
 * installed share/bindlab sits beside the running bindlab. */
#ifndef BL_SOURCE_DATADIR
#define BL_SOURCE_DATADIR ""
#endif

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int bl_data_dir(char *buf, size_t len, bl_err *err)
{
    char self[PATH_MAX];
    char probe[PATH_MAX + 16];

    if (bl_self_dir(self, sizeof self, err) < 0)
        return -1;
    if (bl_textf(probe, sizeof probe, "%s/../share/bindlab", self) == 0 &&
        is_dir(probe)) {
        /* Shown by --version and written into Slurm scripts: resolve the ".." */
        if (!realpath(probe, buf) || strlen(buf) >= len)
            return bl_err_set(err, "%s: cannot resolve", probe);
        return 0;
    }
    if (*BL_SOURCE_DATADIR && is_dir(BL_SOURCE_DATADIR)) {
        if (bl_textf(buf, len, "%s", BL_SOURCE_DATADIR) < 0)
            return bl_err_set(err, "%s: path too long", BL_SOURCE_DATADIR);
        return 0;
    }
    return bl_err_set(err, "no shipped sweeps or topologies: neither "
                      "%s/../share/bindlab (an install) nor the source tree "
                      "%s exists; reinstall bindlab (cmake --install) or give "
                      "file paths", self,
                      *BL_SOURCE_DATADIR ? BL_SOURCE_DATADIR : "(unknown)");
}

const char *bl_data_resolve(const char *sub, const char *ext,
                            const char *name, char *buf, size_t len)
{
    char dir[PATH_MAX];

    /* A local file wins; a local directory of that name (say a build
     * tree's tests/workshop) is no sweep or topology and does not. */
    if (!name || !*name || (access(name, F_OK) == 0 && !is_dir(name)) ||
        strchr(name, '/'))
        return name;
    if (bl_data_dir(dir, sizeof dir, NULL) < 0)
        return name;
    if (bl_textf(buf, len, "%s/%s/%s", dir, sub, name) == 0 && is_file(buf))
        return buf;
    if (bl_textf(buf, len, "%s/%s/%s%s", dir, sub, name, ext) == 0 &&
        is_file(buf))
        return buf;
    return name;
}

const char *bl_data_sweep(const char *name, char *buf, size_t len)
{
    if (name && strcmp(name, BL_DEFAULT_SWEEP) == 0 &&
        access(name, F_OK) != 0)
        return bl_data_resolve("sweeps", ".yaml", "default", buf, len);
    return bl_data_resolve("sweeps", ".yaml", name, buf, len);
}
