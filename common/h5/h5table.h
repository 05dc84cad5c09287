/* A small engine that moves C structs in and out of HDF5, driven by a
 * description of their members ({name, offsetof, type}) instead of one
 * hand-written call per member:
 *   - compound tables: an array of structs as a 1-D dataset of compound
 *     rows (bl_h5_table_*);
 *   - attribute sets: one struct as the scalar attributes of a group
 *     (bl_h5_attrs_*);
 *   - single attributes and scalar string datasets.
 * Strings are variable-length UTF-8 (char * members). A NULL attribute is
 * written as ""; a NULL in a table is HDF5's null string and reads back as
 * NULL.
 * Readers match columns and attributes by name, so a file with more or
 * fewer of them than the description still reads: what is missing reads as
 * 0 / NULL (tables) or the member's default (attributes).
 * It knows nothing of bindlab's layout; common/h5/h5schema.c holds that. */
#ifndef BL_H5TABLE_H
#define BL_H5TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "err.h"

/* ---- compound tables ----------------------------------------------------- */

/* Member types of a table row, and the HDF5 column type each is stored as. */
typedef enum {
    BL_H5_I8,    /* int8_t, H5T_NATIVE_INT8 */
    BL_H5_I32,   /* int32_t, H5T_NATIVE_INT32 */
    BL_H5_I64,   /* int64_t, H5T_NATIVE_INT64 */
    BL_H5_F64,   /* double, H5T_NATIVE_DOUBLE */
    BL_H5_STR    /* char *, variable-length UTF-8 string */
} bl_h5_ftype;

typedef struct bl_h5_field {
    const char *name;       /* column name */
    size_t offset;          /* offsetof the member in the row struct */
    bl_h5_ftype type;
} bl_h5_field;

typedef struct bl_h5_table_def {
    const char *name;       /* dataset name */
    size_t row_size;
    const bl_h5_field *fields;
    size_t nfields;
} bl_h5_table_def;

/* One field of a table def: BL_H5_COLUMN(bl_h5_rank, rank, BL_H5_I32). */
/* The variable-length UTF-8 string type of every string the schema
 * writes (a new type: the caller closes it with H5Tclose). */
hid_t bl_h5_string_type(void);

#define BL_H5_COLUMN(type, member, kind) {#member, offsetof(type, member), kind}
#define BL_H5_TABLE(dset, type, fields) \
    {dset, sizeof(type), fields, sizeof fields / sizeof fields[0]}

/* Writes n rows as dataset def->name under loc (n may be 0: an empty table
 * still has its columns). */
int bl_h5_table_write(hid_t loc, const bl_h5_table_def *def, const void *rows,
                      size_t n, bl_err *err);
/* Reads by column name. *rows is malloc'ed, strings strdup'ed; free with
 * bl_h5_table_free. A missing dataset reads as 0 rows; a table with none of
 * the expected columns is an error. */
int bl_h5_table_read(hid_t loc, const bl_h5_table_def *def, void **rows,
                     size_t *n, bl_err *err);
/* Rows [first, first + count) only (fewer at the end of the table). */
int bl_h5_table_read_range(hid_t loc, const bl_h5_table_def *def,
                           size_t first, size_t count, void **rows,
                           size_t *n, bl_err *err);
/* The row count of table `name` under loc: 0 when missing, -1 unreadable. */
long long bl_h5_table_rows(hid_t loc, const char *name);

/* Tables that grow at their end (chunked, unlimited rows): an empty one,
 * and n rows appended (the table is created when missing; a fixed-size
 * table, or one that lacks some of def's columns, is first rewritten as a
 * growable one with every column, once). Appending costs the rows
 * appended, not the rows already there. */
int bl_h5_table_create_growable(hid_t loc, const bl_h5_table_def *def,
                                bl_err *err);
int bl_h5_table_append(hid_t loc, const bl_h5_table_def *def,
                       const void *rows, size_t n, bl_err *err);

/* Frees the strings of n rows, then rows. */
void bl_h5_table_free(const bl_h5_table_def *def, void *rows, size_t n);

/* ---- attribute sets --------------------------------------------------------- */

/* Member types of a struct stored as attributes; every integer is stored
 * as a 64-bit attribute (H5T_NATIVE_INT64). */
typedef enum {
    BL_A_INT,   /* int */
    BL_A_LLONG, /* long long */
    BL_A_F64,   /* double */
    BL_A_STR    /* char * */
} bl_h5_atype;

typedef struct bl_h5_attr {
    const char *name;       /* attribute name */
    size_t offset;          /* offsetof the member */
    bl_h5_atype type;
    double dflt;            /* numbers: the value when the attribute is
                             * missing (strings read as NULL) */
} bl_h5_attr;

typedef struct bl_h5_attrs_def {
    const bl_h5_attr *attrs;
    size_t nattrs;
} bl_h5_attrs_def;

/* BL_H5_ATTR(bl_h5_machine, "pus", pus, BL_A_INT, -1) */
#define BL_H5_ATTR(type, name, member, kind, dflt) \
    {name, offsetof(type, member), kind, dflt}
#define BL_H5_ATTRS(attrs) {attrs, sizeof attrs / sizeof attrs[0]}

/* Writes every attribute of def from the struct at rec onto loc, in order
 * (an existing attribute of the same name is replaced). Returns 0 or -1. */
int bl_h5_attrs_write(hid_t loc, const bl_h5_attrs_def *def, const void *rec);
/* Reads them into rec (strings malloc'ed; missing ones get their default). */
void bl_h5_attrs_read(hid_t loc, const bl_h5_attrs_def *def, void *rec);
/* Frees the string members of rec and sets them to NULL. */
void bl_h5_attrs_free(const bl_h5_attrs_def *def, void *rec);
/* The attribute of def called name, or NULL. */
const bl_h5_attr *bl_h5_attrs_find(const bl_h5_attrs_def *def,
                                   const char *name);

/* ---- single attributes and string datasets ---------------------------------- */

int bl_h5_attr_put_str(hid_t loc, const char *name, const char *value);
int bl_h5_attr_put_i64(hid_t loc, const char *name, long long value);
int bl_h5_attr_put_f64(hid_t loc, const char *name, double value);
/* Getters return the default when the attribute is missing. */
char *bl_h5_attr_get_str(hid_t loc, const char *name); /* malloc'ed or NULL */
long long bl_h5_attr_get_i64(hid_t loc, const char *name, long long dflt);
double bl_h5_attr_get_f64(hid_t loc, const char *name, double dflt);

/* A scalar variable-length string dataset (NULL written as ""). */
int bl_h5_string_write(hid_t loc, const char *name, const char *text);
char *bl_h5_string_read(hid_t loc, const char *name); /* malloc'ed or NULL */

/* The group at path under loc, opened, or created with its parents. */
hid_t bl_h5_group_open_or_create(hid_t loc, const char *path);

#endif
