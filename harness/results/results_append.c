/* The sweep's merged file grown in place, one run at a time (bl_h5_append
 * in results_file.h; docs/sweep-runs.md): the additions made through the
 * sink (results_merge_priv.h) in a twin file, which then takes the merged
 * file's name, so that every moment leaves a complete file. */
#include "results/results_merge_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* fsync of a file by name (HDF5's sec2 driver never syncs). */
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc;
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

static void sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int fd;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + 1, path);
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* An empty merged file: root attributes, /runs, an empty /summary. */
static int create_empty(const char *path, const char *command, bl_err *err)
{
    hid_t file = bl_h5_mem_create(path, err);
    int rc;
    if (file < 0)
        return -1;
    rc = bl_h5_write_root(file, "sweep", command, err);
    if (rc == 0)
        rc = bl_merge_create_runs(file, err);
    if (rc == 0)
        rc = bl_h5_table_create_growable(file, &bl_h5_summary_def, err);
    return bl_h5_mem_commit(file, path, rc, err);
}

/* The twin as a byte copy of path (a new file, renamed into place). */
static int copy_file(const char *from, const char *to, bl_err *err)
{
    FILE *in = fopen(from, "rb");
    char *buf = NULL;
    long len;
    int rc;
    if (!in)
        return bl_err_set(err, "%s: %s", from, strerror(errno));
    if (fseek(in, 0, SEEK_END) < 0 || (len = ftell(in)) < 0 ||
        fseek(in, 0, SEEK_SET) < 0 || !(buf = malloc((size_t)len + 1)) ||
        fread(buf, 1, (size_t)len, in) != (size_t)len) {
        fclose(in);
        free(buf);
        return bl_err_set(err, "%s: cannot read it", from);
    }
    fclose(in);
    rc = bl_atomic_write(to, buf, (size_t)len, err);
    free(buf);
    return rc;
}

static const char STATE[] = "append_state";

/* Opens the twin for writing when it holds a prefix of the runs of main
 * (rows and machines in the same order, and was left complete); else
 * makes it anew as a copy of main. *rows, *nodes: what the twin holds. */
static hid_t open_twin(const char *main_path, hid_t main, const char *twin,
                       size_t *rows, size_t *nodes, bl_err *err)
{
    long long m_rows = bl_h5_table_rows(main, "summary");
    size_t m_nodes = bl_h5_count_nodes(main);
    hid_t t = H5I_INVALID_HID;

    if (access(twin, F_OK) == 0)
        t = H5Fopen(twin, H5F_ACC_RDWR, H5P_DEFAULT);
    if (t >= 0) {
        char *state = bl_h5_attr_get_str(t, STATE);
        long long t_rows = bl_h5_table_rows(t, "summary");
        size_t t_nodes = bl_h5_count_nodes(t);
        int ok = (!state || strcmp(state, "writing") != 0) && t_rows >= 0 &&
                 m_rows >= 0 && t_rows <= m_rows && t_nodes <= m_nodes;
        free(state);
        if (ok && t_rows > 0) {
            /* the last run they share is the same run */
            bl_h5_summary *a = NULL, *b = NULL;
            size_t na = 0, nb = 0;
            bl_err e;
            ok = bl_h5_table_read_range(t, &bl_h5_summary_def,
                                        (size_t)t_rows - 1, 1, (void **)&a,
                                        &na, &e) == 0 &&
                 bl_h5_table_read_range(main, &bl_h5_summary_def,
                                        (size_t)t_rows - 1, 1, (void **)&b,
                                        &nb, &e) == 0 &&
                 na == 1 && nb == 1 &&
                 strcmp(nz(a[0].run_id), nz(b[0].run_id)) == 0;
            bl_h5_table_free(&bl_h5_summary_def, a, na);
            bl_h5_table_free(&bl_h5_summary_def, b, nb);
        }
        if (ok) {
            *rows = (size_t)t_rows;
            *nodes = t_nodes;
            return t;
        }
        H5Fclose(t);
    }
    /* missing, damaged by a kill in the middle of an append, held open
     * by a reader (HDF5 locks files), or of another history: copied */
    if (copy_file(main_path, twin, err) < 0)
        return H5I_INVALID_HID;
    if ((t = H5Fopen(twin, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
        bl_err_set(err, "%s: HDF5 cannot open it for writing", twin);
        return H5I_INVALID_HID;
    }
    *rows = m_rows > 0 ? (size_t)m_rows : 0;
    *nodes = m_nodes;
    return t;
}

/* Brings the twin up to main: the machines and runs main has after the
 * twin's last ones, copied from main in main's order. */
static int catch_up(hid_t main, hid_t twin, size_t rows, size_t nodes,
                    bl_err *err)
{
    size_t m_nodes = bl_h5_count_nodes(main), n = 0;
    bl_h5_summary *tail = NULL;
    int rc = 0;
    for (size_t k = nodes; rc == 0 && k < m_nodes; k++) {
        char path[64];
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        bl_h5_node_path(k, path, sizeof path);
        H5Pset_create_intermediate_group(lcpl, 1);
        if (H5Ocopy(main, path, twin, path, H5P_DEFAULT, lcpl) < 0 ||
            (k == 0 && H5Lexists(twin, "machine", H5P_DEFAULT) <= 0 &&
             H5Lcreate_hard(twin, path, twin, "machine", H5P_DEFAULT,
                            H5P_DEFAULT) < 0))
            rc = bl_err_set(err, "HDF5: cannot copy /%s", path);
        H5Pclose(lcpl);
    }
    if (rc == 0 &&
        bl_h5_table_read_range(main, &bl_h5_summary_def, rows, SIZE_MAX,
                               (void **)&tail, &n, err) < 0)
        return -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char group[512];
        bl_h5_run_path(nz(tail[i].run_id), group, sizeof group);
        if (H5Lexists(main, group, H5P_DEFAULT) > 0 &&
            H5Ocopy(main, group, twin, group, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = bl_err_set(err, "HDF5: cannot copy %s", group);
    }
    if (rc == 0 && n > 0)
        rc = bl_h5_table_append(twin, &bl_h5_summary_def, tail, n, err);
    bl_h5_table_free(&bl_h5_summary_def, tail, n);
    return rc;
}

/* The twin becomes the merged file and the merged file the twin, each
 * step leaving a complete file under the merged file's name: link the
 * old one as PREV, rename the twin over it, rename PREV to the twin. */
static int swap_in(const char *path, const char *twin, bl_err *err)
{
    char prev[4200];
    snprintf(prev, sizeof prev, "%s.prev", twin);
    unlink(prev);
    if (link(path, prev) < 0)
        return bl_err_set(err, "%s: cannot link it as %s: %s", path, prev,
                          strerror(errno));
    if (rename(twin, path) < 0) {
        int e = errno;
        unlink(prev);
        return bl_err_set(err, "%s: cannot rename it to %s: %s", twin, path,
                          strerror(e));
    }
    if (rename(prev, twin) < 0)
        unlink(prev); /* the next append copies a new twin */
    sync_dir_of(path);
    return 0;
}

int bl_h5_append(const char *path, const char *twin, const char *command,
                 const char *const *records, size_t nrecords,
                 int *duplicates, int *unreadable, bl_err *err)
{
    bl_merge_sink st;
    hid_t main_f, twin_f;
    size_t rows = 0, nodes = 0;
    int rc = 0;
    bl_err first = {""};

    *duplicates = 0;
    *unreadable = 0;
    if (access(path, F_OK) != 0 && create_empty(path, command, err) < 0)
        return -1;
    if ((main_f = bl_h5_open_read(path, err)) < 0)
        return -1;
    twin_f = open_twin(path, main_f, twin, &rows, &nodes, err);
    if (twin_f < 0) {
        H5Fclose(main_f);
        return -1;
    }
    /* a kill from here to the end leaves the twin marked: it is copied
     * anew by the next append; the merged file is not touched */
    rc = bl_h5_attr_put_str(twin_f, STATE, "writing") < 0 ||
                 H5Fflush(twin_f, H5F_SCOPE_GLOBAL) < 0
             ? bl_err_set(err, "%s: cannot write", twin)
             : 0;
    if (rc == 0)
        rc = catch_up(main_f, twin_f, rows, nodes, err);
    H5Fclose(main_f);
    if (rc == 0)
        rc = bl_merge_sink_init(&st, twin_f, 0, err);
    else
        memset(&st, 0, sizeof st);
    st.names = records;
    st.out_name = path;
    if (rc == 0)
        bl_merge_sink_add_files(&st, nrecords, NULL, NULL, unreadable,
                                &first);
    *duplicates = st.duplicates;
    bl_merge_sink_free(&st);
    if (rc == 0 && bl_h5_attr_put_str(twin_f, STATE, "complete") < 0)
        rc = bl_err_set(err, "%s: cannot write", twin);
    if (H5Fclose(twin_f) < 0 && rc == 0)
        rc = bl_err_set(err, "%s: HDF5 could not write it (no space left on "
                        "device?)", twin);
    if (rc == 0 && sync_path(twin) < 0)
        rc = bl_err_set(err, "%s: %s", twin, strerror(errno));
    if (rc == 0)
        rc = swap_in(path, twin, err);
    if (rc == 0 && *unreadable)
        *err = first;
    return rc;
}
