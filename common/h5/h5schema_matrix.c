/* The matrices of h5schema.h: /matrices/<kind> (bindlab matrix) or
 * <run>/matrices/c2c, their description and the square datasets. */
#include "h5/h5schema.h"

#include "atomic_file.h"
#include "h5/h5guard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define F(type, member, kind) BL_H5_COLUMN(type, member, kind)
#define DEF(var, dset, type, fields) \
    const bl_h5_table_def var = BL_H5_TABLE(dset, type, fields)
#define A(type, member, kind, dflt) BL_H5_ATTR(type, #member, member, kind, dflt)

/* ---- matrices: /matrices/<kind> (bindlab matrix) or <run>/matrices/c2c --- */

static const bl_h5_field matrix_index_fields[] = {
    F(bl_h5_matrix_index, index, BL_H5_I32),
    F(bl_h5_matrix_index, os_index, BL_H5_I32),
    F(bl_h5_matrix_index, logical, BL_H5_I32),
    F(bl_h5_matrix_index, cpu, BL_H5_I32),
    F(bl_h5_matrix_index, core, BL_H5_I32),
    F(bl_h5_matrix_index, l3, BL_H5_I32),
    F(bl_h5_matrix_index, numa, BL_H5_I32),
    F(bl_h5_matrix_index, package, BL_H5_I32),
    F(bl_h5_matrix_index, label, BL_H5_STR),
};
DEF(bl_h5_matrix_index_def, "order", bl_h5_matrix_index, matrix_index_fields);

static const bl_h5_attr matrix_attrs[] = {
    A(bl_h5_matrix, kind, BL_A_STR, 0),
    A(bl_h5_matrix, unit, BL_A_STR, 0),
    A(bl_h5_matrix, axis, BL_A_STR, 0),
    A(bl_h5_matrix, rows, BL_A_STR, 0),
    A(bl_h5_matrix, cols, BL_A_STR, 0),
    A(bl_h5_matrix, method, BL_A_STR, 0),
    A(bl_h5_matrix, spread, BL_A_STR, 0),
    A(bl_h5_matrix, note, BL_A_STR, 0),
    A(bl_h5_matrix, n, BL_A_INT, 0),
    A(bl_h5_matrix, sampled, BL_A_INT, 0),
    A(bl_h5_matrix, size_bytes, BL_A_LLONG, 0),
    A(bl_h5_matrix, threads, BL_A_INT, 0),
};
const bl_h5_attrs_def bl_h5_matrix_attrs = BL_H5_ATTRS(matrix_attrs);

/* The n x n datasets, in the file's order. */
#define MATRIX_CELLS(X)                                                      \
    X(values) X(spread_lo) X(spread_hi) X(samples) X(pages_on_target)

int bl_h5_matrix_alloc(bl_h5_matrix *m, int n, int with_pages)
{
    size_t cells = (size_t)n * (size_t)n;
    memset(m, 0, sizeof *m);
    if (n <= 0)
        return -1;
    m->n = n;
    m->values = malloc(cells * sizeof(double));
    m->spread_lo = malloc(cells * sizeof(double));
    m->spread_hi = malloc(cells * sizeof(double));
    m->samples = calloc(cells, sizeof(double));
    if (with_pages)
        m->pages_on_target = malloc(cells * sizeof(double));
    m->order = calloc((size_t)n, sizeof *m->order);
    m->norder = (size_t)n;
    if (!m->values || !m->spread_lo || !m->spread_hi || !m->samples ||
        !m->order || (with_pages && !m->pages_on_target))
        return -1;
    for (size_t c = 0; c < cells; c++) {
        m->values[c] = m->spread_lo[c] = m->spread_hi[c] = NAN;
        if (m->pages_on_target)
            m->pages_on_target[c] = NAN;
    }
    for (int i = 0; i < n; i++) {
        bl_h5_matrix_index *o = &m->order[i];
        o->index = i;
        o->os_index = o->logical = o->cpu = -1;
        o->core = o->l3 = o->numa = o->package = -1;
    }
    return 0;
}

static int write_square(hid_t g, const char *name, const double *v, int n)
{
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)n};
    hid_t space, d;
    herr_t rc = -1;
    if (!v)
        return 0;
    space = H5Screate_simple(2, dims, NULL);
    d = H5Dcreate2(g, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                   H5P_DEFAULT, H5P_DEFAULT);
    if (d >= 0) {
        rc = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        bl_h5_attr_put_str(d, "dims", "row, column (see order)");
        H5Dclose(d);
    }
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

/* NULL when the dataset is missing; -1 in *bad when it is not n x n. */
static double *read_square(hid_t g, const char *name, int n, int *bad)
{
    hid_t d, space;
    hsize_t dims[2] = {0, 0};
    double *v = NULL;
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
        return NULL;
    d = H5Dopen2(g, name, H5P_DEFAULT);
    space = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(space) == 2 &&
        H5Sget_simple_extent_dims(space, dims, NULL) == 2 &&
        dims[0] == (hsize_t)n && dims[1] == (hsize_t)n &&
        (v = malloc((size_t)n * (size_t)n * sizeof *v)) &&
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    if (!v)
        *bad = -1;
    H5Sclose(space);
    H5Dclose(d);
    return v;
}

int bl_h5_matrix_write(hid_t loc, const bl_h5_matrix *m, bl_err *err)
{
    hid_t parent = bl_h5_group_open_or_create(loc, "matrices"), g = -1;
    int rc = 0;
    if (parent < 0 || !m->kind || !*m->kind || m->n <= 0) {
        if (parent >= 0)
            H5Gclose(parent);
        return bl_err_set(err, "HDF5: cannot write a matrix without a kind "
                          "and a size");
    }
    if (H5Lexists(parent, m->kind, H5P_DEFAULT) > 0)
        H5Ldelete(parent, m->kind, H5P_DEFAULT);
    g = H5Gcreate2(parent, m->kind, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(parent);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create matrices/%s", m->kind);
    rc |= bl_h5_attrs_write(g, &bl_h5_matrix_attrs, m);
#define WRITE_CELLS(x) rc |= write_square(g, #x, m->x, m->n);
    MATRIX_CELLS(WRITE_CELLS)
#undef WRITE_CELLS
    if (rc == 0)
        rc = bl_h5_table_write(g, &bl_h5_matrix_index_def, m->order,
                               m->norder, err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write matrices/%s", m->kind)
              : 0;
}

int bl_h5_matrix_read(hid_t loc, const char *kind, bl_h5_matrix *m,
                      bl_err *err)
{
    char path[128];
    hid_t g;
    int bad = 0;
    void *rows = NULL;
    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "matrices/%s", kind);
    if (H5Lexists(loc, "matrices", H5P_DEFAULT) <= 0 ||
        H5Lexists(loc, path, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no matrix '%s' (no group %s)", kind, path);
    if ((g = H5Gopen2(loc, path, H5P_DEFAULT)) < 0)
        return bl_err_set(err, "HDF5: cannot open %s", path);
    bl_h5_attrs_read(g, &bl_h5_matrix_attrs, m);
    if (m->n > 0) {
#define READ_CELLS(x) m->x = read_square(g, #x, m->n, &bad);
        MATRIX_CELLS(READ_CELLS)
#undef READ_CELLS
    }
    if (bl_h5_table_read(g, &bl_h5_matrix_index_def, &rows, &m->norder,
                         err) < 0)
        bad = -1;
    m->order = rows;
    H5Gclose(g);
    if (m->n <= 0 || bad || !m->values || m->norder != (size_t)m->n) {
        bl_h5_matrix_free(m);
        return bl_err_set(err, "%s: malformed (n, values or order missing "
                          "or of the wrong size)", path);
    }
    return 0;
}

void bl_h5_matrix_kinds(hid_t loc, char *buf, size_t len)
{
    H5G_info_t info;
    hid_t g;
    if (len == 0)
        return;
    buf[0] = '\0';
    if (H5Lexists(loc, "matrices", H5P_DEFAULT) <= 0 ||
        (g = H5Gopen2(loc, "matrices", H5P_DEFAULT)) < 0)
        return;
    /* by index rather than H5Literate, whose callback type differs between
     * HDF5 1.10 and 1.12 */
    if (H5Gget_info(g, &info) >= 0)
        for (hsize_t i = 0; i < info.nlinks; i++) {
            char name[64];
            size_t used = strlen(buf);
            if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i,
                                   name, sizeof name, H5P_DEFAULT) > 0)
                snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                         name);
        }
    H5Gclose(g);
}

void bl_h5_matrix_free(bl_h5_matrix *m)
{
    bl_h5_attrs_free(&bl_h5_matrix_attrs, m);
#define FREE_CELLS(x) free(m->x);
    MATRIX_CELLS(FREE_CELLS)
#undef FREE_CELLS
    bl_h5_table_free(&bl_h5_matrix_index_def, m->order, m->norder);
    memset(m, 0, sizeof *m);
}
