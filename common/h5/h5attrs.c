/* The attribute half of h5table.h: single attributes, attribute sets from
 * their description, string datasets and groups. */
#include "h5/h5table.h"

#include <stdlib.h>
#include <string.h>

/* ---- attributes -------------------------------------------------------- */

static int put_attr(hid_t loc, const char *name, hid_t type, const void *v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a;
    herr_t rc;
    if (H5Aexists(loc, name) > 0)
        H5Adelete(loc, name);
    a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    rc = a < 0 ? -1 : H5Awrite(a, type, v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

int bl_h5_attr_put_str(hid_t loc, const char *name, const char *value)
{
    hid_t t = bl_h5_string_type();
    const char *v = value ? value : "";
    int rc = put_attr(loc, name, t, &v);
    H5Tclose(t);
    return rc;
}

int bl_h5_attr_put_i64(hid_t loc, const char *name, long long value)
{
    int64_t v = value;
    return put_attr(loc, name, H5T_NATIVE_INT64, &v);
}

int bl_h5_attr_put_f64(hid_t loc, const char *name, double value)
{
    return put_attr(loc, name, H5T_NATIVE_DOUBLE, &value);
}

/* The attribute `name` of loc when it exists and holds one value (a
 * damaged or foreign file may hold an array under a name we read as one
 * value: reading it would overrun the buffer), else H5I_INVALID_HID. */
static hid_t open_scalar_attr(hid_t loc, const char *name)
{
    hid_t a, space;
    hssize_t n;
    if (H5Aexists(loc, name) <= 0 ||
        (a = H5Aopen(loc, name, H5P_DEFAULT)) < 0)
        return H5I_INVALID_HID;
    space = H5Aget_space(a);
    n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    if (space >= 0)
        H5Sclose(space);
    if (n != 1) {
        H5Aclose(a);
        return H5I_INVALID_HID;
    }
    return a;
}

char *bl_h5_attr_get_str(hid_t loc, const char *name)
{
    hid_t a, ftype, mtype;
    char *out = NULL;

    if ((a = open_scalar_attr(loc, name)) < 0)
        return NULL;
    ftype = H5Aget_type(a);
    if (H5Tget_class(ftype) == H5T_STRING) {
        if (H5Tis_variable_str(ftype) > 0) {
            char *v = NULL;
            mtype = bl_h5_string_type();
            if (H5Aread(a, mtype, &v) >= 0 && v) {
                out = strdup(v);
                H5free_memory(v);
            }
            H5Tclose(mtype);
        } else {
            size_t size = H5Tget_size(ftype);
            out = calloc(size + 1, 1);
            mtype = H5Tcopy(ftype);
            if (out && H5Aread(a, mtype, out) < 0) {
                free(out);
                out = NULL;
            }
            H5Tclose(mtype);
        }
    }
    H5Tclose(ftype);
    H5Aclose(a);
    return out;
}

/* Reads the attribute `name` as mtype into v (size bytes); v is left as it
 * was when there is no such attribute or it cannot be read. */
static void get_number(hid_t loc, const char *name, hid_t mtype, void *v,
                       size_t size)
{
    unsigned char buf[sizeof(double) > sizeof(int64_t) ? sizeof(double)
                                                       : sizeof(int64_t)];
    hid_t a = open_scalar_attr(loc, name);
    if (a < 0)
        return;
    if (H5Aread(a, mtype, buf) >= 0)
        memcpy(v, buf, size);
    H5Aclose(a);
}

long long bl_h5_attr_get_i64(hid_t loc, const char *name, long long dflt)
{
    int64_t v = dflt;
    get_number(loc, name, H5T_NATIVE_INT64, &v, sizeof v);
    return v;
}

double bl_h5_attr_get_f64(hid_t loc, const char *name, double dflt)
{
    double v = dflt;
    get_number(loc, name, H5T_NATIVE_DOUBLE, &v, sizeof v);
    return v;
}

/* ---- attribute sets ---------------------------------------------------- */

int bl_h5_attrs_write(hid_t loc, const bl_h5_attrs_def *def, const void *rec)
{
    int rc = 0;
    for (size_t i = 0; i < def->nattrs; i++) {
        const bl_h5_attr *a = &def->attrs[i];
        const char *p = (const char *)rec + a->offset;
        switch (a->type) {
        case BL_A_INT:
            rc |= bl_h5_attr_put_i64(loc, a->name, *(const int *)p);
            break;
        case BL_A_LLONG:
            rc |= bl_h5_attr_put_i64(loc, a->name, *(const long long *)p);
            break;
        case BL_A_F64:
            rc |= bl_h5_attr_put_f64(loc, a->name, *(const double *)p);
            break;
        case BL_A_STR:
            rc |= bl_h5_attr_put_str(loc, a->name, *(char *const *)p);
            break;
        }
    }
    return rc ? -1 : 0;
}

void bl_h5_attrs_read(hid_t loc, const bl_h5_attrs_def *def, void *rec)
{
    for (size_t i = 0; i < def->nattrs; i++) {
        const bl_h5_attr *a = &def->attrs[i];
        char *p = (char *)rec + a->offset;
        switch (a->type) {
        case BL_A_INT:
            *(int *)p = (int)bl_h5_attr_get_i64(loc, a->name,
                                                (long long)a->dflt);
            break;
        case BL_A_LLONG:
            *(long long *)p = bl_h5_attr_get_i64(loc, a->name,
                                                 (long long)a->dflt);
            break;
        case BL_A_F64:
            *(double *)p = bl_h5_attr_get_f64(loc, a->name, a->dflt);
            break;
        case BL_A_STR:
            *(char **)p = bl_h5_attr_get_str(loc, a->name);
            break;
        }
    }
}

void bl_h5_attrs_free(const bl_h5_attrs_def *def, void *rec)
{
    for (size_t i = 0; i < def->nattrs; i++)
        if (def->attrs[i].type == BL_A_STR) {
            char **s = (char **)((char *)rec + def->attrs[i].offset);
            free(*s);
            *s = NULL;
        }
}

const bl_h5_attr *bl_h5_attrs_find(const bl_h5_attrs_def *def,
                                   const char *name)
{
    for (size_t i = 0; i < def->nattrs; i++)
        if (strcmp(def->attrs[i].name, name) == 0)
            return &def->attrs[i];
    return NULL;
}

/* ---- string datasets and groups ---------------------------------------- */

int bl_h5_string_write(hid_t loc, const char *name, const char *text)
{
    hid_t t = bl_h5_string_type();
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    const char *v = text ? text : "";
    herr_t rc = d < 0 ? -1 : H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    H5Tclose(t);
    return rc < 0 ? -1 : 0;
}

char *bl_h5_string_read(hid_t loc, const char *name)
{
    hid_t d, t;
    char *v = NULL, *out = NULL;
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return NULL;
    d = H5Dopen2(loc, name, H5P_DEFAULT);
    t = bl_h5_string_type();
    if (d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
        out = strdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    return out;
}

hid_t bl_h5_group_open_or_create(hid_t loc, const char *path)
{
    hid_t lcpl;
    hid_t g;
    /* H5Lexists fails (< 0) when a parent is missing: that is "no". */
    if (H5Lexists(loc, path, H5P_DEFAULT) > 0)
        return H5Gopen2(loc, path, H5P_DEFAULT);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    g = H5Gcreate2(loc, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return g;
}
