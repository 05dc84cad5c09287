/* Matrix files: writing /matrices/<kind> beside the kinds a file already
 * holds, reading one back from a matrix file or an app run file, and the
 * text table. */
#include "matrix/matrix.h"

#include "atomic_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KINDS 8

/* The matrices of a matrix file at path other than `except`; *n of them.
 * A missing file, or one that is not a matrix file, holds none. */
static int keep_others(const char *path, const char *except,
                       bl_h5_matrix *kept, int *n, bl_err *err)
{
    char kinds[256], *save = NULL, *k;
    char *kind_attr;
    hid_t f;
    *n = 0;
    if (access(path, F_OK) != 0)
        return 0;
    if ((f = bl_h5_open_read(path, err)) < 0)
        return -1;
    kind_attr = bl_h5_attr_get_str(f, "file_kind");
    if (!kind_attr || strcmp(kind_attr, "matrix") != 0) {
        free(kind_attr);
        H5Fclose(f);
        return bl_err_set(err, "%s exists and is not a matrix file (file_kind "
                          "'matrix'); choose another -o", path);
    }
    free(kind_attr);
    bl_h5_matrix_kinds(f, kinds, sizeof kinds);
    for (k = strtok_r(kinds, ", ", &save); k && *n < MAX_KINDS;
         k = strtok_r(NULL, ", ", &save)) {
        if (strcmp(k, except) == 0)
            continue;
        if (bl_h5_matrix_read(f, k, &kept[*n], err) < 0) {
            H5Fclose(f);
            return bl_err_prefix(err, "%s", path);
        }
        (*n)++;
    }
    H5Fclose(f);
    return 0;
}

int bl_matrix_check_target(const char *path, bl_err *err)
{
    bl_h5_matrix kept[MAX_KINDS];
    int n = 0;
    if (bl_atomic_check_target(path, err) < 0 ||
        keep_others(path, "", kept, &n, err) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        bl_h5_matrix_free(&kept[i]);
    return 0;
}

int bl_matrix_write_file(const char *path, const char *command,
                         const bl_h5_machine *machine, const bl_h5_matrix *m,
                         bl_err *err)
{
    bl_h5_matrix kept[MAX_KINDS];
    int nkept = 0, rc;
    hid_t file;
    if (bl_atomic_check_target(path, err) < 0 ||
        keep_others(path, m->kind, kept, &nkept, err) < 0)
        return -1;
    if ((file = bl_h5_mem_create(path, err)) < 0) {
        rc = -1;
    } else {
        rc = bl_h5_write_root(file, "matrix", command, err);
        if (rc == 0 && machine && machine->hostname)
            rc = bl_h5_write_machine(file, machine, err);
        for (int i = 0; rc == 0 && i < nkept; i++)
            rc = bl_h5_matrix_write(file, &kept[i], err);
        if (rc == 0)
            rc = bl_h5_matrix_write(file, m, err);
        rc = bl_h5_mem_commit(file, path, rc, err);
    }
    for (int i = 0; i < nkept; i++)
        bl_h5_matrix_free(&kept[i]);
    return rc;
}

/* kind is one of the comma-separated names in list. */
static int has_kind(const char *list, const char *kind)
{
    size_t len = strlen(kind);
    for (const char *p = list; (p = strstr(p, kind)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ',' || !p[len]))
            return 1;
    return 0;
}

int bl_matrix_read_file(const char *path, const char *kind, bl_h5_matrix *m,
                        bl_err *err)
{
    char kinds[256];
    const char *where = "/";
    hid_t f = bl_h5_open_read(path, err), loc;
    int rc;
    memset(m, 0, sizeof *m);
    if (f < 0)
        return -1;
    loc = f;
    bl_h5_matrix_kinds(f, kinds, sizeof kinds);
    if (!kinds[0] && H5Lexists(f, "run", H5P_DEFAULT) > 0) {
        /* an app run file: the kernel's matrix lives in its run group */
        loc = H5Gopen2(f, "run", H5P_DEFAULT);
        where = "/run/";
        bl_h5_matrix_kinds(loc, kinds, sizeof kinds);
    }
    if (!kinds[0])
        rc = bl_err_set(err, "%s: no matrix in it (no %smatrices group)",
                        path, where);
    else if (!kind && strchr(kinds, ','))
        rc = bl_err_set(err, "%s: holds several matrices (%s); name one",
                        path, kinds);
    else if (kind && !has_kind(kinds, kind))
        rc = bl_err_set(err, "%s: no matrix '%s' (it holds: %s)", path, kind,
                        kinds);
    else if (bl_h5_matrix_read(loc, kind ? kind : kinds, m, err) < 0)
        rc = bl_err_prefix(err, "%s", path);
    else
        rc = 0;
    if (loc != f)
        H5Gclose(loc);
    H5Fclose(f);
    return rc;
}

static void print_cell(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " %9s", "-");
    else
        fprintf(f, " %9.4g", v);
}

void bl_matrix_print(FILE *f, const bl_h5_matrix *m)
{
    int n = m->n;
    fprintf(f, "%s (%s); rows: %s; columns: %s\n", m->kind, m->unit,
            m->rows ? m->rows : "", m->cols ? m->cols : "");
    fprintf(f, "%-10s", "");
    for (int j = 0; j < n; j++)
        fprintf(f, " %9.9s", m->order[j].label ? m->order[j].label : "?");
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%-10.10s", m->order[i].label ? m->order[i].label : "?");
        for (int j = 0; j < n; j++)
            print_cell(f, m->values[(size_t)i * (size_t)n + (size_t)j]);
        fputc('\n', f);
    }
    fprintf(f, "spread (%s):\n", m->spread ? m->spread : "");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%-10.10s", m->order[i].label ? m->order[i].label : "?");
        for (int j = 0; j < n; j++) {
            size_t c = (size_t)i * (size_t)n + (size_t)j;
            if (isnan(m->values[c]))
                fprintf(f, " %19s", "-");
            else
                fprintf(f, " %9.4g-%-9.4g", m->spread_lo[c], m->spread_hi[c]);
        }
        fputc('\n', f);
    }
    if (m->pages_on_target) {
        double worst = 1.0;
        for (size_t c = 0; c < (size_t)n * (size_t)n; c++)
            if (!isnan(m->pages_on_target[c]) && m->pages_on_target[c] < worst)
                worst = m->pages_on_target[c];
        fprintf(f, "pages on the memory node: at least %.1f%% in every "
                "measured cell\n", 100.0 * worst);
    }
    if (m->note && *m->note)
        fprintf(f, "note: %s\n", m->note);
}
