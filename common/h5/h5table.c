/* The table/attribute engine (h5table.h): compound tables, attribute sets
 * and string datasets from a description of the C members. */
#include "h5/h5table.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Rows a table may have when read: sweeps hold at most 10000 layouts, run
 * tables a row per rank, thread or counter; ten million is far above. */
#define BL_H5_TABLE_MAX_ROWS 10000000

/* ---- types ------------------------------------------------------------- */

hid_t bl_h5_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static hid_t field_type(bl_h5_ftype type)
{
    switch (type) {
    case BL_H5_I8: return H5Tcopy(H5T_NATIVE_INT8);
    case BL_H5_I32: return H5Tcopy(H5T_NATIVE_INT32);
    case BL_H5_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case BL_H5_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case BL_H5_STR: return bl_h5_string_type();
    }
    return H5I_INVALID_HID;
}

static hid_t compound_type(const bl_h5_table_def *def)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, def->row_size);
    for (size_t i = 0; i < def->nfields; i++) {
        hid_t ft = field_type(def->fields[i].type);
        H5Tinsert(t, def->fields[i].name, def->fields[i].offset, ft);
        H5Tclose(ft);
    }
    return t;
}

/* Only the members that the file also has, so that reading a file of
 * another schema version fills what it can. */
static hid_t compound_type_matching(const bl_h5_table_def *def, hid_t ftype)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, def->row_size);
    int inserted = 0;
    for (size_t i = 0; i < def->nfields; i++) {
        if (H5Tget_member_index(ftype, def->fields[i].name) < 0)
            continue;
        hid_t ft = field_type(def->fields[i].type);
        H5Tinsert(t, def->fields[i].name, def->fields[i].offset, ft);
        H5Tclose(ft);
        inserted++;
    }
    if (!inserted) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

int bl_h5_table_write(hid_t loc, const bl_h5_table_def *def, const void *rows,
                      size_t n, bl_err *err)
{
    hsize_t dims[1] = {n};
    hid_t type = compound_type(def);
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t dset = H5Dcreate2(loc, def->name, type, space, H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = dset < 0 ? -1 : 0;
    if (rc == 0 && n > 0)
        rc = H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
    if (dset >= 0)
        H5Dclose(dset);
    H5Sclose(space);
    H5Tclose(type);
    if (rc < 0)
        return bl_err_set(err, "HDF5: cannot write table '%s'", def->name);
    return 0;
}

/* Every string HDF5 allocates while reading a table, so that all of them
 * are freed even when the read fails part way: HDF5 1.10 loses the ones it
 * had already converted (found by fuzz/fuzz_h5_readers). */
typedef struct vlen_arena {
    void **p;
    size_t n, cap;
} vlen_arena;

static void *arena_alloc(size_t size, void *info)
{
    vlen_arena *a = info;
    void *m;
    if (bl_grow(&a->p, sizeof *a->p, a->n, &a->cap, 64) < 0)
        return NULL;
    if (!(m = malloc(size ? size : 1)))
        return NULL;
    a->p[a->n++] = m;
    return m;
}

static void arena_free(void *mem, void *info)
{
    vlen_arena *a = info;
    for (size_t i = a->n; mem && i-- > 0;)
        if (a->p[i] == mem) {
            a->p[i] = NULL;
            break;
        }
    free(mem);
}

static void arena_clear(vlen_arena *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->p[i]);
    free(a->p);
    memset(a, 0, sizeof *a);
}

/* Replaces the strings HDF5 allocated (in the arena) by our own copies, so
 * callers free everything with free(). */
static void own_strings(const bl_h5_table_def *def, void *rows, size_t n)
{
    for (size_t r = 0; r < n; r++)
        for (size_t f = 0; f < def->nfields; f++)
            if (def->fields[f].type == BL_H5_STR) {
                char **s = (char **)((char *)rows + r * def->row_size +
                                     def->fields[f].offset);
                *s = *s ? strdup(*s) : NULL;
            }
}

/* HDF5 zeroes a type-conversion buffer of 1 MiB (its default) for every
 * read of a table with strings, fresh pages each time; a merge reads
 * thousands of one-row tables (merges of 10,000 runs). The buffer is sized to the rows
 * read instead: four times their memory size (the file's form of a
 * string is larger than the pointer; HDF5 refuses a buffer that cannot
 * hold one row), at least 16 KiB, at most the default. */
static int set_conversion_buffer(hid_t dxpl, hid_t ftype, hid_t mtype,
                                 hssize_t count)
{
    size_t fs = H5Tget_size(ftype), ms = H5Tget_size(mtype);
    size_t row = 4 * (fs > ms ? fs : ms), size = 1 << 20, least = 16384;
    if (row == 0)
        return -1;
    if (count > 0 && (size_t)count < size / row)
        size = row * (size_t)count;
    if (least < row)
        least = row;
    if (size < least)
        size = least;
    return H5Pset_buffer(dxpl, size, NULL, NULL) < 0 ? -1 : 0;
}

/* Rows [first, first + want) of the table, or to its end when want is
 * SIZE_MAX. */
static int table_read_range(hid_t loc, const bl_h5_table_def *def,
                            size_t first, size_t want, void **rows,
                            size_t *n, bl_err *err)
{
    hid_t dset, space, ftype, mtype, dxpl, mspace = H5S_ALL;
    hssize_t count;
    vlen_arena arena = {0};

    *rows = NULL;
    *n = 0;
    if (H5Lexists(loc, def->name, H5P_DEFAULT) <= 0)
        return 0;
    dset = H5Dopen2(loc, def->name, H5P_DEFAULT);
    if (dset < 0)
        return bl_err_set(err, "HDF5: cannot open table '%s'", def->name);
    space = H5Dget_space(dset);
    ftype = H5Dget_type(dset);
    count = H5Sget_simple_extent_npoints(space);
    mtype = compound_type_matching(def, ftype);
    /* A damaged file can claim any row count (fuzz_h5_readers found 2^61):
     * refuse one far beyond what bindlab writes instead of asking for it. */
    if (count < 0 || mtype < 0 || count > BL_H5_TABLE_MAX_ROWS) {
        if (mtype >= 0)
            H5Tclose(mtype);
        H5Tclose(ftype);
        H5Sclose(space);
        H5Dclose(dset);
        if (count > BL_H5_TABLE_MAX_ROWS)
            return bl_err_set(err, "HDF5: table '%s' claims %lld rows, more "
                              "than %d (a damaged file?)", def->name,
                              (long long)count, BL_H5_TABLE_MAX_ROWS);
        return bl_err_set(err, "HDF5: table '%s' has none of the expected "
                          "columns", def->name);
    }
    /* the part asked for */
    if (first >= (size_t)count)
        count = 0;
    else if (first > 0 || want < (size_t)count - first) {
        hsize_t start[1] = {first}, cnt[1];
        count = (hssize_t)((size_t)count - first < want ? (size_t)count - first
                                                         : want);
        cnt[0] = (hsize_t)count;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, cnt, NULL);
        mspace = H5Screate_simple(1, cnt, NULL);
    }
    *rows = calloc(count > 0 ? (size_t)count : 1, def->row_size);
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl < 0 || H5Pset_vlen_mem_manager(dxpl, arena_alloc, &arena,
                                            arena_free, &arena) < 0 ||
        set_conversion_buffer(dxpl, ftype, mtype, count) < 0) {
        free(*rows);
        *rows = NULL;
    }
    if (*rows && count > 0 &&
        H5Dread(dset, mtype, mspace, mspace == H5S_ALL ? H5S_ALL : space,
                dxpl, *rows) < 0) {
        free(*rows);
        *rows = NULL;
    }
    if (*rows && count > 0)
        own_strings(def, *rows, (size_t)count);
    arena_clear(&arena);
    if (dxpl >= 0)
        H5Pclose(dxpl);
    if (mspace != H5S_ALL)
        H5Sclose(mspace);
    H5Tclose(mtype);
    H5Tclose(ftype);
    H5Sclose(space);
    H5Dclose(dset);
    if (!*rows)
        return bl_err_set(err, "HDF5: cannot read table '%s'", def->name);
    *n = (size_t)count;
    return 0;
}

int bl_h5_table_read(hid_t loc, const bl_h5_table_def *def, void **rows,
                     size_t *n, bl_err *err)
{
    return table_read_range(loc, def, 0, SIZE_MAX, rows, n, err);
}

int bl_h5_table_read_range(hid_t loc, const bl_h5_table_def *def,
                           size_t first, size_t count, void **rows,
                           size_t *n, bl_err *err)
{
    return table_read_range(loc, def, first, count, rows, n, err);
}

long long bl_h5_table_rows(hid_t loc, const char *name)
{
    hid_t dset, space;
    hssize_t n;
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return 0;
    if ((dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0)
        return -1;
    space = H5Dget_space(dset);
    n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    H5Dclose(dset);
    return n < 0 ? -1 : (long long)n;
}

/* ---- tables that grow ---------------------------------------------------- */

/* Rows per chunk of a growable table: a /summary row holds some 450
 * bytes (a 16-byte reference per string column), so a chunk is 7 KB and a
 * one-run file stays small; an append rewrites at most one chunk. */
#define GROW_CHUNK 16

int bl_h5_table_create_growable(hid_t loc, const bl_h5_table_def *def,
                                bl_err *err)
{
    hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED},
            chunk[1] = {GROW_CHUNK};
    hid_t type = compound_type(def);
    hid_t space = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t dset = H5I_INVALID_HID;
    if (dcpl >= 0 && H5Pset_chunk(dcpl, 1, chunk) >= 0)
        dset = H5Dcreate2(loc, def->name, type, space, H5P_DEFAULT, dcpl,
                          H5P_DEFAULT);
    if (dset >= 0)
        H5Dclose(dset);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    return dset < 0 ? bl_err_set(err, "HDF5: cannot create table '%s'",
                                 def->name) : 0;
}

/* A table that can take rows at its end: chunked, and with every column
 * of def (a file of an older schema gains the new ones, empty). */
static int growable(hid_t dset, const bl_h5_table_def *def)
{
    hid_t dcpl = H5Dget_create_plist(dset), ftype = H5Dget_type(dset);
    int ok = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
             ftype >= 0 && H5Tget_nmembers(ftype) == (int)def->nfields;
    for (size_t i = 0; ok && i < def->nfields; i++)
        ok = H5Tget_member_index(ftype, def->fields[i].name) >= 0;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ftype >= 0)
        H5Tclose(ftype);
    return ok;
}

/* Rewrites a fixed-size (or older) table as a growable one, once. */
static int make_growable(hid_t loc, const bl_h5_table_def *def, bl_err *err)
{
    void *rows;
    size_t n;
    int rc;
    if (bl_h5_table_read(loc, def, &rows, &n, err) < 0)
        return -1;
    rc = H5Ldelete(loc, def->name, H5P_DEFAULT) < 0
             ? bl_err_set(err, "HDF5: cannot replace table '%s'", def->name)
             : bl_h5_table_create_growable(loc, def, err);
    if (rc == 0 && n > 0)
        rc = bl_h5_table_append(loc, def, rows, n, err);
    bl_h5_table_free(def, rows, n);
    return rc;
}

int bl_h5_table_append(hid_t loc, const bl_h5_table_def *def,
                       const void *rows, size_t n, bl_err *err)
{
    hid_t dset, space, mspace, type;
    hsize_t old[1], size[1], cnt[1] = {n};
    herr_t rc;
    if (H5Lexists(loc, def->name, H5P_DEFAULT) <= 0 &&
        bl_h5_table_create_growable(loc, def, err) < 0)
        return -1;
    if ((dset = H5Dopen2(loc, def->name, H5P_DEFAULT)) < 0)
        return bl_err_set(err, "HDF5: cannot open table '%s'", def->name);
    if (!growable(dset, def)) {
        H5Dclose(dset);
        if (make_growable(loc, def, err) < 0)
            return -1;
        if ((dset = H5Dopen2(loc, def->name, H5P_DEFAULT)) < 0)
            return bl_err_set(err, "HDF5: cannot open table '%s'", def->name);
    }
    if (n == 0) {
        H5Dclose(dset);
        return 0;
    }
    space = H5Dget_space(dset);
    H5Sget_simple_extent_dims(space, old, NULL);
    H5Sclose(space);
    size[0] = old[0] + n;
    type = compound_type(def);
    rc = H5Dset_extent(dset, size);
    space = H5Dget_space(dset);
    mspace = H5Screate_simple(1, cnt, NULL);
    if (rc >= 0)
        rc = H5Sselect_hyperslab(space, H5S_SELECT_SET, old, NULL, cnt, NULL);
    if (rc >= 0)
        rc = H5Dwrite(dset, type, mspace, space, H5P_DEFAULT, rows);
    H5Sclose(mspace);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(dset);
    return rc < 0 ? bl_err_set(err, "HDF5: cannot append to table '%s'",
                               def->name) : 0;
}

void bl_h5_table_free(const bl_h5_table_def *def, void *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t r = 0; r < n; r++)
        for (size_t f = 0; f < def->nfields; f++)
            if (def->fields[f].type == BL_H5_STR)
                free(*(char **)((char *)rows + r * def->row_size +
                                def->fields[f].offset));
    free(rows);
}
