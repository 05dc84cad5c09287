/* The table/attribute engine (common/h5/h5table.c) on its own, with a made-up
 * row type holding every member type. Expected values are written out by
 * hand, and what lands in the file is looked at with plain HDF5 calls (not
 * the engine); the "other schema" table is built with plain HDF5 calls too,
 * so the engine's reader is checked against a file it did not write. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "h5/h5table.h"

typedef struct row {
    int8_t flag;
    int32_t count;
    int64_t big;
    double x;
    char *label;
} row;

static const bl_h5_field row_fields[] = {
    BL_H5_COLUMN(row, flag, BL_H5_I8),
    BL_H5_COLUMN(row, count, BL_H5_I32),
    BL_H5_COLUMN(row, big, BL_H5_I64),
    BL_H5_COLUMN(row, x, BL_H5_F64),
    BL_H5_COLUMN(row, label, BL_H5_STR),
};
static const bl_h5_table_def row_def = BL_H5_TABLE("rows", row, row_fields);

typedef struct rec {
    int n;
    long long size;
    double ratio;
    char *text;
    int unset_int;
    double unset_f64;
    char *unset_text;
} rec;

static const bl_h5_attr rec_attrs[] = {
    BL_H5_ATTR(rec, "n", n, BL_A_INT, 0),
    BL_H5_ATTR(rec, "size_bytes", size, BL_A_LLONG, 0),
    BL_H5_ATTR(rec, "ratio", ratio, BL_A_F64, 0),
    BL_H5_ATTR(rec, "text", text, BL_A_STR, 0),
};
/* The same record read by a newer description with three more members. */
static const bl_h5_attr rec_attrs_newer[] = {
    BL_H5_ATTR(rec, "n", n, BL_A_INT, 0),
    BL_H5_ATTR(rec, "size_bytes", size, BL_A_LLONG, 0),
    BL_H5_ATTR(rec, "ratio", ratio, BL_A_F64, 0),
    BL_H5_ATTR(rec, "text", text, BL_A_STR, 0),
    BL_H5_ATTR(rec, "unset_int", unset_int, BL_A_INT, -1),
    BL_H5_ATTR(rec, "unset_f64", unset_f64, BL_A_F64, 0.5),
    BL_H5_ATTR(rec, "unset_text", unset_text, BL_A_STR, 0),
};

/* A file held in memory only (core driver, no backing store). */
static hid_t mem_file(void)
{
    char name[64];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f;
    static int seq;
    snprintf(name, sizeof name, "bl-h5table-test-%ld-%d.h5", (long)getpid(),
             seq++);
    assert_true(H5Pset_fapl_core(fapl, 1 << 16, 0) >= 0);
    f = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    assert_true(f >= 0);
    return f;
}

/* Class, size in bytes (0: variable-length string) of column `name`. */
static void column_kind(hid_t dtype, const char *name, H5T_class_t *cls,
                        size_t *size)
{
    int i = H5Tget_member_index(dtype, name);
    hid_t m;
    assert_true(i >= 0);
    m = H5Tget_member_type(dtype, (unsigned)i);
    *cls = H5Tget_class(m);
    *size = H5Tis_variable_str(m) > 0 ? 0 : H5Tget_size(m);
    H5Tclose(m);
}

static void table_round_trips_every_column_type(void **state)
{
    row in[4] = {
        {-128, -2147483647 - 1, INT64_C(-9007199254740993), -0.125, "a"},
        {127, 2147483647, INT64_MAX, 6.02214076e23, ""},
        {0, 7, 1, 0.1, "ünïcödé, with \"quotes\""},
        {1, 0, 0, 0, NULL},
    };
    row *out = NULL;
    size_t n = 99;
    bl_err err;
    hid_t f = mem_file(), d, t;
    H5T_class_t cls;
    size_t size;
    (void)state;

    assert_int_equal(bl_h5_table_write(f, &row_def, in, 4, &err), 0);
    /* The file's own description of the columns. */
    d = H5Dopen2(f, "rows", H5P_DEFAULT);
    assert_true(d >= 0);
    t = H5Dget_type(d);
    assert_int_equal(H5Tget_nmembers(t), 5);
    column_kind(t, "flag", &cls, &size);
    assert_int_equal(cls, H5T_INTEGER);
    assert_int_equal(size, 1);
    column_kind(t, "count", &cls, &size);
    assert_int_equal(cls, H5T_INTEGER);
    assert_int_equal(size, 4);
    column_kind(t, "big", &cls, &size);
    assert_int_equal(cls, H5T_INTEGER);
    assert_int_equal(size, 8);
    column_kind(t, "x", &cls, &size);
    assert_int_equal(cls, H5T_FLOAT);
    assert_int_equal(size, 8);
    column_kind(t, "label", &cls, &size);
    assert_int_equal(cls, H5T_STRING);
    assert_int_equal(size, 0);
    H5Tclose(t);
    H5Dclose(d);

    assert_int_equal(bl_h5_table_read(f, &row_def, (void **)&out, &n, &err),
                     0);
    assert_int_equal(n, 4);
    assert_int_equal(out[0].flag, -128);
    assert_int_equal(out[0].count, INT32_MIN);
    assert_true(out[0].big == INT64_C(-9007199254740993));
    assert_true(out[0].x == -0.125);
    assert_string_equal(out[0].label, "a");
    assert_int_equal(out[1].flag, 127);
    assert_int_equal(out[1].count, 2147483647);
    assert_true(out[1].big == INT64_MAX);
    assert_true(out[1].x == 6.02214076e23);
    assert_string_equal(out[1].label, "");
    assert_int_equal(out[2].count, 7);
    assert_true(out[2].x == 0.1);
    assert_string_equal(out[2].label, "ünïcödé, with \"quotes\"");
    assert_null(out[3].label); /* a NULL member stays NULL in a table */
    bl_h5_table_free(&row_def, out, n);
    H5Fclose(f);
}

static void empty_and_missing_tables(void **state)
{
    row *out = NULL;
    size_t n = 99;
    bl_err err;
    hid_t f = mem_file();
    (void)state;
    /* A table with no rows still has its columns; it reads as 0 rows. */
    assert_int_equal(bl_h5_table_write(f, &row_def, NULL, 0, &err), 0);
    assert_true(H5Lexists(f, "rows", H5P_DEFAULT) > 0);
    assert_int_equal(bl_h5_table_read(f, &row_def, (void **)&out, &n, &err),
                     0);
    assert_int_equal(n, 0);
    bl_h5_table_free(&row_def, out, n);
    H5Ldelete(f, "rows", H5P_DEFAULT);
    /* No dataset at all: 0 rows, no error. */
    n = 99;
    assert_int_equal(bl_h5_table_read(f, &row_def, (void **)&out, &n, &err),
                     0);
    assert_int_equal(n, 0);
    assert_null(out);
    H5Fclose(f);
}

/* A table of another schema version, written with plain HDF5: columns in
 * another order, "flag" and "x" missing, an extra "extra" column, and
 * "count" stored as 64-bit. Readers match by name: what is there is read,
 * what is missing is 0 / NULL, what is extra is ignored. */
typedef struct other_row {
    double extra;
    char *label;
    int64_t count;
    int64_t big;
} other_row;

static void table_of_other_schema_reads_by_name(void **state)
{
    other_row in[2] = {{1.5, "first", 10, 100}, {2.5, "second", -20, -200}};
    hsize_t dims[1] = {2};
    hid_t f = mem_file(), t, s, d, str;
    row *out = NULL;
    size_t n = 0;
    bl_err err;
    (void)state;
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    H5Tset_cset(str, H5T_CSET_UTF8); /* as h5py writes a str */
    t = H5Tcreate(H5T_COMPOUND, sizeof(other_row));
    H5Tinsert(t, "extra", offsetof(other_row, extra), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "label", offsetof(other_row, label), str);
    H5Tinsert(t, "count", offsetof(other_row, count), H5T_NATIVE_INT64);
    H5Tinsert(t, "big", offsetof(other_row, big), H5T_NATIVE_INT64);
    s = H5Screate_simple(1, dims, NULL);
    d = H5Dcreate2(f, "rows", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Tclose(t);
    H5Tclose(str);

    assert_int_equal(bl_h5_table_read(f, &row_def, (void **)&out, &n, &err),
                     0);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].flag, 0);
    assert_true(out[0].x == 0.0);
    assert_int_equal(out[0].count, 10);
    assert_true(out[0].big == 100);
    assert_string_equal(out[0].label, "first");
    assert_int_equal(out[1].count, -20);
    assert_true(out[1].big == -200);
    assert_string_equal(out[1].label, "second");
    bl_h5_table_free(&row_def, out, n);
    H5Fclose(f);
}

static void table_with_none_of_the_columns_is_an_error(void **state)
{
    static const bl_h5_field only_flag[] = {
        BL_H5_COLUMN(row, flag, BL_H5_I8)};
    static const bl_h5_table_def flag_def = BL_H5_TABLE("rows", row,
                                                        only_flag);
    static const bl_h5_field only_x[] = {BL_H5_COLUMN(row, x, BL_H5_F64)};
    static const bl_h5_table_def x_def = BL_H5_TABLE("rows", row, only_x);
    row in[1] = {{1, 0, 0, 0, NULL}};
    row *out = NULL;
    size_t n = 99;
    bl_err err;
    hid_t f = mem_file();
    (void)state;
    assert_int_equal(bl_h5_table_write(f, &flag_def, in, 1, &err), 0);
    assert_int_equal(bl_h5_table_read(f, &x_def, (void **)&out, &n, &err),
                     -1);
    assert_non_null(strstr(err.msg, "'rows'"));
    assert_null(out);
    assert_int_equal(n, 0);
    H5Fclose(f);
}

static void attributes_round_trip_with_defaults(void **state)
{
    static const bl_h5_attrs_def def = BL_H5_ATTRS(rec_attrs);
    static const bl_h5_attrs_def newer = BL_H5_ATTRS(rec_attrs_newer);
    rec in = {-3, 5LL << 40, 0.75, "GB/s", 0, 0, NULL}, out;
    hid_t f = mem_file(), a, t;
    int64_t raw = 0;
    (void)state;
    assert_int_equal(bl_h5_attrs_write(f, &def, &in), 0);
    /* Every integer is a 64-bit attribute, whatever the member's type. */
    a = H5Aopen(f, "n", H5P_DEFAULT);
    t = H5Aget_type(a);
    assert_int_equal(H5Tget_class(t), H5T_INTEGER);
    assert_int_equal(H5Tget_size(t), 8);
    assert_true(H5Aread(a, H5T_NATIVE_INT64, &raw) >= 0);
    assert_true(raw == -3);
    H5Tclose(t);
    H5Aclose(a);
    assert_true(H5Aexists(f, "size_bytes") > 0);
    assert_true(H5Aexists(f, "unset_int") == 0);

    memset(&out, 0x5a, sizeof out);
    bl_h5_attrs_read(f, &newer, &out);
    assert_int_equal(out.n, -3);
    assert_true(out.size == 5LL << 40);
    assert_true(out.ratio == 0.75);
    assert_string_equal(out.text, "GB/s");
    assert_int_equal(out.unset_int, -1);
    assert_true(out.unset_f64 == 0.5);
    assert_null(out.unset_text);
    assert_ptr_equal(bl_h5_attrs_find(&newer, "size_bytes"),
                     &rec_attrs_newer[1]);
    assert_null(bl_h5_attrs_find(&newer, "size"));
    bl_h5_attrs_free(&newer, &out);
    assert_null(out.text);
    H5Fclose(f);
}

/* A damaged or foreign file with an array where one value is read: the
 * value's default (reading the array into one value would overrun it). */
static void array_attribute_reads_as_missing(void **state)
{
    int64_t four[4] = {1, 2, 3, 4};
    hsize_t dims[1] = {4};
    hid_t f = mem_file(), s = H5Screate_simple(1, dims, NULL), a, t;
    (void)state;
    a = H5Acreate2(f, "n", H5T_NATIVE_INT64, s, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Awrite(a, H5T_NATIVE_INT64, four) >= 0);
    H5Aclose(a);
    t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 2);
    a = H5Acreate2(f, "text", t, s, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Awrite(a, t, "aabbccdd") >= 0);
    H5Aclose(a);
    H5Tclose(t);
    H5Sclose(s);
    assert_int_equal(bl_h5_attr_get_i64(f, "n", -7), -7);
    assert_true(bl_h5_attr_get_f64(f, "n", 2.5) == 2.5);
    assert_null(bl_h5_attr_get_str(f, "text"));
    H5Fclose(f);
}

static void string_dataset_and_groups(void **state)
{
    hid_t f = mem_file(), g, g2;
    char *s;
    (void)state;
    g = bl_h5_group_open_or_create(f, "runs/r0001");
    assert_true(g >= 0);
    assert_int_equal(bl_h5_string_write(g, "note", "line 1\nline 2"), 0);
    assert_int_equal(bl_h5_string_write(g, "empty", NULL), 0);
    H5Gclose(g);
    g2 = bl_h5_group_open_or_create(f, "runs/r0001"); /* opened, not made */
    assert_true(g2 >= 0);
    s = bl_h5_string_read(g2, "note");
    assert_string_equal(s, "line 1\nline 2");
    free(s);
    s = bl_h5_string_read(g2, "empty");
    assert_string_equal(s, "");
    free(s);
    assert_null(bl_h5_string_read(g2, "missing"));
    H5Gclose(g2);
    H5Fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_round_trips_every_column_type),
        cmocka_unit_test(empty_and_missing_tables),
        cmocka_unit_test(table_of_other_schema_reads_by_name),
        cmocka_unit_test(table_with_none_of_the_columns_is_an_error),
        cmocka_unit_test(attributes_round_trip_with_defaults),
        cmocka_unit_test(array_attribute_reads_as_missing),
        cmocka_unit_test(string_dataset_and_groups),
    };
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
