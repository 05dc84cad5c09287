/* Whole files of h5schema.h: the root attributes, files built in memory
 * and handed to atomic_file.c (temp, fsync, rename), run files written and
 * read in one call, and opening a file to read after h5guard.c checked
 * its bytes. */
#include "h5/h5schema.h"

#include "atomic_file.h"
#include "h5/h5guard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- files ------------------------------------------------------------- */

int bl_h5_write_root(hid_t file, const char *kind, const char *command,
                     bl_err *err)
{
    char created[64];
    time_t now = time(NULL);
    struct tm tm;
    int rc = 0;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    rc |= bl_h5_attr_put_i64(file, "schema_version", BL_H5_SCHEMA_VERSION);
    rc |= bl_h5_attr_put_str(file, "bindlab_version", BINDLAB_VERSION);
    rc |= bl_h5_attr_put_str(file, "created", created);
    rc |= bl_h5_attr_put_str(file, "command", command);
    rc |= bl_h5_attr_put_str(file, "file_kind", kind);
    return rc ? bl_err_set(err, "HDF5: cannot write root attributes") : 0;
}

/* The core driver keeps the whole file in memory (no backing store), so
 * HDF5 never writes to the disk itself: a full disk or a bad path then shows
 * up in bl_atomic_write with its errno, instead of a failed H5Fclose that
 * left HDF5 1.10 holding a half-closed file and crashing at exit. */
hid_t bl_h5_mem_create(const char *path, bl_err *err)
{
    /* HDF5 first tries to open the name it is given (to see whether that
     * file is open already), and the core driver would read an existing
     * file whole; a name under /dev/null can never exist. */
    static const char never_a_file[] = "/dev/null/bindlab-in-memory.h5";
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = H5I_INVALID_HID;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0)
        file = H5Fcreate(never_a_file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (file < 0)
        bl_err_set(err, "%s: HDF5 cannot create a file in memory", path);
    return file;
}

int bl_h5_mem_commit(hid_t file, const char *path, int rc, bl_err *err)
{
    return bl_h5_mem_commit_in(file, AT_FDCWD, path, rc, err);
}

int bl_h5_mem_commit_in(hid_t file, int dirfd, const char *path, int rc,
                        bl_err *err)
{
    void *image = NULL;
    ssize_t len = -1;
    if (rc == 0 && H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0)
        len = H5Fget_file_image(file, NULL, 0);
    if (len > 0 && (image = malloc((size_t)len)) &&
        H5Fget_file_image(file, image, (size_t)len) != len)
        len = -1;
    if (rc == 0 && (len <= 0 || !image))
        rc = bl_err_set(err, "HDF5 could not build the file image (out of "
                        "memory?)");
    if (H5Fclose(file) < 0 && rc == 0)
        rc = bl_err_set(err, "HDF5 could not close the file in memory");
    if (rc == 0)
        rc = bl_atomic_write_in(dirfd, path, image, (size_t)len, err);
    else
        bl_err_prefix(err, "%s", path);
    free(image);
    return rc < 0 ? -1 : 0;
}

int bl_h5_write_run_file_nodes(const char *path, const char *command,
                               const bl_h5_machine *m, size_t n,
                               const bl_h5_run *r, bl_err *err)
{
    hid_t file;
    int rc;

    if (n == 0)
        return bl_err_set(err, "%s: a run file needs a machine record",
                          path);
    if (bl_atomic_check_target(path, err) < 0 ||
        (file = bl_h5_mem_create(path, err)) < 0)
        return -1;
    rc = bl_h5_write_root(file, "run", command, err);
    if (rc == 0)
        rc = bl_h5_write_nodes(file, m, n, err);
    if (rc == 0)
        rc = bl_h5_write_run(file, "run", r, err);
    return bl_h5_mem_commit(file, path, rc, err);
}

hid_t bl_h5_open_read(const char *path, bl_err *err)
{
    hid_t file;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (access(path, R_OK) < 0) {
        bl_err_set(err, "%s: %s", path, strerror(errno));
        return H5I_INVALID_HID;
    }
    if (bl_h5_guard_quick(path, err) < 0)
        return H5I_INVALID_HID;
    if (H5Fis_hdf5(path) <= 0) {
        bl_err_set(err, "%s: not an HDF5 file (truncated, or still being "
                   "written?)", path);
        return H5I_INVALID_HID;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        bl_err_set(err, "%s: HDF5 cannot open it (truncated or damaged; "
                   "rerun that run)", path);
        return H5I_INVALID_HID;
    }
    return file;
}

hid_t bl_h5_open_read_deep(const char *path, bl_err *err)
{
    if (bl_h5_guard_deep(path, err) < 0)
        return H5I_INVALID_HID;
    return bl_h5_open_read(path, err);
}

int bl_h5_read_run_file(const char *path, bl_h5_machine *m, bl_h5_run *r,
                        bl_err *err)
{
    hid_t file = bl_h5_open_read(path, err);
    int rc;
    if (file < 0)
        return -1;
    rc = bl_h5_read_machine(file, m, err);
    if (rc == 0)
        rc = bl_h5_read_run(file, "run", r, err);
    H5Fclose(file);
    if (rc < 0)
        return bl_err_prefix(err, "%s", path);
    return 0;
}

int bl_h5_read_run_file_nodes(const char *path, bl_h5_machine **m, size_t *n,
                              bl_h5_run *r, bl_err *err)
{
    hid_t file = bl_h5_open_read(path, err);
    int rc;
    *m = NULL;
    *n = 0;
    memset(r, 0, sizeof *r);
    if (file < 0)
        return -1;
    rc = bl_h5_read_nodes(file, m, n, err);
    if (rc == 0 && *n == 0)
        rc = bl_err_set(err, "no /machine group (not a bindlab file?)");
    if (rc == 0)
        rc = bl_h5_read_run(file, "run", r, err);
    H5Fclose(file);
    if (rc < 0) {
        bl_h5_nodes_free(*m, *n);
        *m = NULL;
        *n = 0;
        return bl_err_prefix(err, "%s", path);
    }
    return 0;
}
