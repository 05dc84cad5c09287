#include "h5schema.h"

#include "atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define F(type, member, kind) {#member, offsetof(type, member), kind}

static const bl_h5_field placement_fields[] = {
    F(bl_h5_placement, rank, BL_F_I32),
    F(bl_h5_placement, thread, BL_F_I32),
    F(bl_h5_placement, host, BL_F_STR),
    F(bl_h5_placement, rank_cpuset, BL_F_STR),
    F(bl_h5_placement, cpuset, BL_F_STR),
    F(bl_h5_placement, cpu_first, BL_F_I32),
    F(bl_h5_placement, cpu_last, BL_F_I32),
    F(bl_h5_placement, core, BL_F_I32),
    F(bl_h5_placement, l3, BL_F_I32),
    F(bl_h5_placement, numa, BL_F_I32),
    F(bl_h5_placement, package, BL_F_I32),
    F(bl_h5_placement, migrations, BL_F_I64),
    F(bl_h5_placement, pid, BL_F_I64),
};
static const bl_h5_field counter_fields[] = {
    F(bl_h5_counter, rank, BL_F_I32),
    F(bl_h5_counter, thread, BL_F_I32),
    F(bl_h5_counter, name, BL_F_STR),
    F(bl_h5_counter, event, BL_F_STR),
    F(bl_h5_counter, value, BL_F_I64),
    F(bl_h5_counter, available, BL_F_I8),
    F(bl_h5_counter, note, BL_F_STR),
};
static const bl_h5_field memory_fields[] = {
    F(bl_h5_memory, rank, BL_F_I32),
    F(bl_h5_memory, numa_node, BL_F_I32),
    F(bl_h5_memory, pages, BL_F_I64),
};
static const bl_h5_field rank_fields[] = {
    F(bl_h5_rank, rank, BL_F_I32),
    F(bl_h5_rank, host, BL_F_STR),
    F(bl_h5_rank, median_s, BL_F_F64),
    F(bl_h5_rank, min_s, BL_F_F64),
    F(bl_h5_rank, rate, BL_F_F64),
    F(bl_h5_rank, local_page_fraction, BL_F_F64),
    F(bl_h5_rank, pages_local, BL_F_I64),
    F(bl_h5_rank, pages_total, BL_F_I64),
};
static const bl_h5_field metric_fields[] = {
    F(bl_h5_metric, rank, BL_F_I32),
    F(bl_h5_metric, name, BL_F_STR),
    F(bl_h5_metric, value, BL_F_F64),
    F(bl_h5_metric, unit, BL_F_STR),
};
static const bl_h5_field env_fields[] = {
    F(bl_h5_env, name, BL_F_STR),
    F(bl_h5_env, value, BL_F_STR),
};

static const bl_h5_field check_fields[] = {
    F(bl_h5_check, rank, BL_F_I32),
    F(bl_h5_check, host, BL_F_STR),
    F(bl_h5_check, claimed, BL_F_STR),
    F(bl_h5_check, seen, BL_F_STR),
    F(bl_h5_check, source, BL_F_STR),
    F(bl_h5_check, matches, BL_F_I8),
};
static const bl_h5_field summary_fields[] = {
    F(bl_h5_summary, run_id, BL_F_STR),
    F(bl_h5_summary, label, BL_F_STR),
    F(bl_h5_summary, name, BL_F_STR),
    F(bl_h5_summary, kernel, BL_F_STR),
    F(bl_h5_summary, status, BL_F_STR),
    F(bl_h5_summary, repetition, BL_F_I32),
    F(bl_h5_summary, np, BL_F_I32),
    F(bl_h5_summary, threads, BL_F_I32),
    F(bl_h5_summary, map_by, BL_F_STR),
    F(bl_h5_summary, bind_to, BL_F_STR),
    F(bl_h5_summary, rank_by, BL_F_STR),
    F(bl_h5_summary, omp_places, BL_F_STR),
    F(bl_h5_summary, omp_proc_bind, BL_F_STR),
    F(bl_h5_summary, init, BL_F_STR),
    F(bl_h5_summary, median_s, BL_F_F64),
    F(bl_h5_summary, min_s, BL_F_F64),
    F(bl_h5_summary, rate, BL_F_F64),
    F(bl_h5_summary, rate_unit, BL_F_STR),
    F(bl_h5_summary, verified, BL_F_I8),
    F(bl_h5_summary, local_page_fraction, BL_F_F64),
    F(bl_h5_summary, flags, BL_F_STR),
    F(bl_h5_summary, wall_s, BL_F_F64),
    F(bl_h5_summary, exit_status, BL_F_I32),
};

#define DEF(var, dset, type, fields) \
    const bl_h5_table_def var = {dset, sizeof(type), fields, \
                                 sizeof fields / sizeof fields[0]}
DEF(bl_h5_placement_def, "placement", bl_h5_placement, placement_fields);
DEF(bl_h5_counter_def, "counters", bl_h5_counter, counter_fields);
DEF(bl_h5_memory_def, "memory", bl_h5_memory, memory_fields);
DEF(bl_h5_rank_def, "ranks", bl_h5_rank, rank_fields);
DEF(bl_h5_metric_def, "metrics", bl_h5_metric, metric_fields);
DEF(bl_h5_env_def, "env", bl_h5_env, env_fields);
DEF(bl_h5_check_def, "checks", bl_h5_check, check_fields);
DEF(bl_h5_summary_def, "summary", bl_h5_summary, summary_fields);

/* ---- types ------------------------------------------------------------- */

static hid_t string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static hid_t field_type(bl_h5_ftype type)
{
    switch (type) {
    case BL_F_I8: return H5Tcopy(H5T_NATIVE_INT8);
    case BL_F_I32: return H5Tcopy(H5T_NATIVE_INT32);
    case BL_F_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case BL_F_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case BL_F_STR: return string_type();
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
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        void **p = realloc(a->p, cap * sizeof *p);
        if (!p)
            return NULL;
        a->p = p;
        a->cap = cap;
    }
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
            if (def->fields[f].type == BL_F_STR) {
                char **s = (char **)((char *)rows + r * def->row_size +
                                     def->fields[f].offset);
                *s = *s ? strdup(*s) : NULL;
            }
}

int bl_h5_table_read(hid_t loc, const bl_h5_table_def *def, void **rows,
                     size_t *n, bl_err *err)
{
    hid_t dset, space, ftype, mtype, dxpl;
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
    if (count < 0 || mtype < 0) {
        if (mtype >= 0)
            H5Tclose(mtype);
        H5Tclose(ftype);
        H5Sclose(space);
        H5Dclose(dset);
        return bl_err_set(err, "HDF5: table '%s' has none of the expected "
                          "columns", def->name);
    }
    *rows = calloc(count > 0 ? (size_t)count : 1, def->row_size);
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl < 0 || H5Pset_vlen_mem_manager(dxpl, arena_alloc, &arena,
                                            arena_free, &arena) < 0) {
        free(*rows);
        *rows = NULL;
    }
    if (*rows && count > 0 &&
        H5Dread(dset, mtype, H5S_ALL, H5S_ALL, dxpl, *rows) < 0) {
        free(*rows);
        *rows = NULL;
    }
    if (*rows && count > 0)
        own_strings(def, *rows, (size_t)count);
    arena_clear(&arena);
    if (dxpl >= 0)
        H5Pclose(dxpl);
    H5Tclose(mtype);
    H5Tclose(ftype);
    H5Sclose(space);
    H5Dclose(dset);
    if (!*rows)
        return bl_err_set(err, "HDF5: cannot read table '%s'", def->name);
    *n = (size_t)count;
    return 0;
}

void bl_h5_table_free(const bl_h5_table_def *def, void *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t r = 0; r < n; r++)
        for (size_t f = 0; f < def->nfields; f++)
            if (def->fields[f].type == BL_F_STR)
                free(*(char **)((char *)rows + r * def->row_size +
                                def->fields[f].offset));
    free(rows);
}

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
    hid_t t = string_type();
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

char *bl_h5_attr_get_str(hid_t loc, const char *name)
{
    hid_t a, ftype, mtype;
    char *out = NULL;

    if (H5Aexists(loc, name) <= 0)
        return NULL;
    a = H5Aopen(loc, name, H5P_DEFAULT);
    ftype = H5Aget_type(a);
    if (H5Tget_class(ftype) == H5T_STRING) {
        if (H5Tis_variable_str(ftype) > 0) {
            char *v = NULL;
            mtype = string_type();
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

long long bl_h5_attr_get_i64(hid_t loc, const char *name, long long dflt)
{
    int64_t v = dflt;
    hid_t a;
    if (H5Aexists(loc, name) <= 0)
        return dflt;
    a = H5Aopen(loc, name, H5P_DEFAULT);
    if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
        v = dflt;
    H5Aclose(a);
    return v;
}

double bl_h5_attr_get_f64(hid_t loc, const char *name, double dflt)
{
    double v = dflt;
    hid_t a;
    if (H5Aexists(loc, name) <= 0)
        return dflt;
    a = H5Aopen(loc, name, H5P_DEFAULT);
    if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0)
        v = dflt;
    H5Aclose(a);
    return v;
}

/* ---- machine ----------------------------------------------------------- */

static int write_string_dataset(hid_t loc, const char *name, const char *text)
{
    hid_t t = string_type();
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

static char *read_string_dataset(hid_t loc, const char *name)
{
    hid_t d, t;
    char *v = NULL, *out = NULL;
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return NULL;
    d = H5Dopen2(loc, name, H5P_DEFAULT);
    t = string_type();
    if (d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
        out = strdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    return out;
}

int bl_h5_write_machine(hid_t file, const bl_h5_machine *m, bl_err *err)
{
    hid_t g = H5Gcreate2(file, "machine", H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create /machine");
    rc |= bl_h5_attr_put_str(g, "hostname", m->hostname);
    rc |= bl_h5_attr_put_str(g, "cpu_model", m->cpu_model);
    rc |= bl_h5_attr_put_i64(g, "packages", m->packages);
    rc |= bl_h5_attr_put_i64(g, "numa_nodes", m->numa_nodes);
    rc |= bl_h5_attr_put_i64(g, "l3_domains", m->l3_domains);
    rc |= bl_h5_attr_put_i64(g, "cores", m->cores);
    rc |= bl_h5_attr_put_i64(g, "pus", m->pus);
    rc |= bl_h5_attr_put_str(g, "mpi_library_version", m->mpi_library_version);
    rc |= bl_h5_attr_put_str(g, "compiler", m->compiler);
    rc |= bl_h5_attr_put_str(g, "omp_runtime", m->omp_runtime);
    rc |= bl_h5_attr_put_str(g, "kernel_release", m->kernel_release);
    rc |= bl_h5_attr_put_i64(g, "numa_balancing", m->numa_balancing);
    rc |= bl_h5_attr_put_str(g, "virtualization", m->virtualization);
    rc |= write_string_dataset(g, "topology_xml", m->topology_xml);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write /machine") : 0;
}

int bl_h5_read_machine(hid_t file, bl_h5_machine *m, bl_err *err)
{
    hid_t g;
    memset(m, 0, sizeof *m);
    if (H5Lexists(file, "machine", H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no /machine group (not a bindlab file?)");
    g = H5Gopen2(file, "machine", H5P_DEFAULT);
    m->hostname = bl_h5_attr_get_str(g, "hostname");
    m->cpu_model = bl_h5_attr_get_str(g, "cpu_model");
    m->packages = (int)bl_h5_attr_get_i64(g, "packages", -1);
    m->numa_nodes = (int)bl_h5_attr_get_i64(g, "numa_nodes", -1);
    m->l3_domains = (int)bl_h5_attr_get_i64(g, "l3_domains", -1);
    m->cores = (int)bl_h5_attr_get_i64(g, "cores", -1);
    m->pus = (int)bl_h5_attr_get_i64(g, "pus", -1);
    m->mpi_library_version = bl_h5_attr_get_str(g, "mpi_library_version");
    m->compiler = bl_h5_attr_get_str(g, "compiler");
    m->omp_runtime = bl_h5_attr_get_str(g, "omp_runtime");
    m->kernel_release = bl_h5_attr_get_str(g, "kernel_release");
    m->numa_balancing = (int)bl_h5_attr_get_i64(g, "numa_balancing", -1);
    m->virtualization = bl_h5_attr_get_str(g, "virtualization");
    m->topology_xml = read_string_dataset(g, "topology_xml");
    H5Gclose(g);
    return 0;
}

void bl_h5_machine_free(bl_h5_machine *m)
{
    free(m->hostname);
    free(m->cpu_model);
    free(m->mpi_library_version);
    free(m->compiler);
    free(m->omp_runtime);
    free(m->kernel_release);
    free(m->virtualization);
    free(m->topology_xml);
    memset(m, 0, sizeof *m);
}

/* ---- run --------------------------------------------------------------- */

static int write_result(hid_t run, const bl_h5_result *r)
{
    hid_t g = H5Gcreate2(run, "result", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = 0;
    if (g < 0)
        return -1;
    rc |= bl_h5_attr_put_f64(g, "median_s", r->median_s);
    rc |= bl_h5_attr_put_f64(g, "min_s", r->min_s);
    rc |= bl_h5_attr_put_f64(g, "max_s", r->max_s);
    rc |= bl_h5_attr_put_f64(g, "rate", r->rate);
    rc |= bl_h5_attr_put_str(g, "rate_unit", r->rate_unit);
    rc |= bl_h5_attr_put_f64(g, "bytes_per_iteration", r->bytes_per_iteration);
    rc |= bl_h5_attr_put_f64(g, "flops_per_iteration", r->flops_per_iteration);
    rc |= bl_h5_attr_put_str(g, "work_model", r->work_model);
    rc |= bl_h5_attr_put_i64(g, "verified", r->verified);
    rc |= bl_h5_attr_put_f64(g, "error", r->error);
    rc |= bl_h5_attr_put_f64(g, "checksum", r->checksum);
    rc |= bl_h5_attr_put_str(g, "verify_detail", r->verify_detail);
    rc |= bl_h5_attr_put_f64(g, "local_page_fraction", r->local_page_fraction);
    H5Gclose(g);
    return rc;
}

static void read_result(hid_t run, bl_h5_result *r)
{
    hid_t g;
    if (H5Lexists(run, "result", H5P_DEFAULT) <= 0)
        return;
    g = H5Gopen2(run, "result", H5P_DEFAULT);
    r->median_s = bl_h5_attr_get_f64(g, "median_s", 0);
    r->min_s = bl_h5_attr_get_f64(g, "min_s", 0);
    r->max_s = bl_h5_attr_get_f64(g, "max_s", 0);
    r->rate = bl_h5_attr_get_f64(g, "rate", 0);
    r->rate_unit = bl_h5_attr_get_str(g, "rate_unit");
    r->bytes_per_iteration = bl_h5_attr_get_f64(g, "bytes_per_iteration", 0);
    r->flops_per_iteration = bl_h5_attr_get_f64(g, "flops_per_iteration", 0);
    r->work_model = bl_h5_attr_get_str(g, "work_model");
    r->verified = (int)bl_h5_attr_get_i64(g, "verified", 0);
    r->error = bl_h5_attr_get_f64(g, "error", 0);
    r->checksum = bl_h5_attr_get_f64(g, "checksum", 0);
    r->verify_detail = bl_h5_attr_get_str(g, "verify_detail");
    r->local_page_fraction = bl_h5_attr_get_f64(g, "local_page_fraction", -1);
    H5Gclose(g);
}

static int write_timings(hid_t run, const bl_h5_run *r)
{
    hsize_t dims[2] = {(hsize_t)r->iterations, (hsize_t)r->ranks};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(run, "timings", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = d < 0 ? -1 : 0;
    if (rc == 0 && dims[0] * dims[1] > 0 && r->timings)
        rc = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                      r->timings);
    if (d >= 0) {
        bl_h5_attr_put_str(d, "unit", "s");
        bl_h5_attr_put_str(d, "dims", "iteration, rank");
        H5Dclose(d);
    }
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

static void read_timings(hid_t run, bl_h5_run *r)
{
    hid_t d, space;
    hsize_t dims[2] = {0, 0};
    if (H5Lexists(run, "timings", H5P_DEFAULT) <= 0)
        return;
    d = H5Dopen2(run, "timings", H5P_DEFAULT);
    space = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(space) == 2) {
        H5Sget_simple_extent_dims(space, dims, NULL);
        r->timings = calloc(dims[0] * dims[1] + 1, sizeof *r->timings);
        if (r->timings && dims[0] * dims[1] > 0)
            H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    r->timings);
    }
    H5Sclose(space);
    H5Dclose(d);
}

int bl_h5_write_run(hid_t loc, const char *name, const bl_h5_run *r,
                    bl_err *err)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    hid_t g;
    int rc = 0;

    H5Pset_create_intermediate_group(lcpl, 1);
    g = H5Gcreate2(loc, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create group '%s'", name);
    rc |= bl_h5_attr_put_str(g, "kernel", r->kernel);
    rc |= bl_h5_attr_put_str(g, "args", r->args);
    rc |= bl_h5_attr_put_str(g, "init", r->init);
    rc |= bl_h5_attr_put_str(g, "status", r->status);
    rc |= bl_h5_attr_put_i64(g, "size_bytes", r->size_bytes);
    rc |= bl_h5_attr_put_i64(g, "iterations", r->iterations);
    rc |= bl_h5_attr_put_i64(g, "warmup", r->warmup);
    rc |= bl_h5_attr_put_i64(g, "ranks", r->ranks);
    rc |= bl_h5_attr_put_i64(g, "threads", r->threads);
    rc |= write_result(g, &r->result);
    rc |= write_timings(g, r);
    if (rc == 0)
        rc |= bl_h5_table_write(g, &bl_h5_env_def, r->env, r->nenv, err) |
              bl_h5_table_write(g, &bl_h5_placement_def, r->placement,
                                r->nplacement, err) |
              bl_h5_table_write(g, &bl_h5_counter_def, r->counters,
                                r->ncounters, err) |
              bl_h5_table_write(g, &bl_h5_memory_def, r->memory, r->nmemory,
                                err) |
              bl_h5_table_write(g, &bl_h5_rank_def, r->rank_rows,
                                r->nrank_rows, err) |
              bl_h5_table_write(g, &bl_h5_metric_def, r->metrics,
                                r->nmetrics, err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write run '%s'", name) : 0;
}

int bl_h5_read_run(hid_t loc, const char *name, bl_h5_run *r, bl_err *err)
{
    hid_t g;
    int rc = 0;
    memset(r, 0, sizeof *r);
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no run group '%s'", name);
    g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot open run group '%s'", name);
    r->kernel = bl_h5_attr_get_str(g, "kernel");
    r->args = bl_h5_attr_get_str(g, "args");
    r->init = bl_h5_attr_get_str(g, "init");
    r->status = bl_h5_attr_get_str(g, "status");
    r->size_bytes = bl_h5_attr_get_i64(g, "size_bytes", 0);
    r->iterations = (int)bl_h5_attr_get_i64(g, "iterations", 0);
    r->warmup = (int)bl_h5_attr_get_i64(g, "warmup", 0);
    r->ranks = (int)bl_h5_attr_get_i64(g, "ranks", 0);
    r->threads = (int)bl_h5_attr_get_i64(g, "threads", 0);
    read_result(g, &r->result);
    read_timings(g, r);
    rc |= bl_h5_table_read(g, &bl_h5_env_def, (void **)&r->env, &r->nenv, err);
    rc |= bl_h5_table_read(g, &bl_h5_placement_def, (void **)&r->placement,
                           &r->nplacement, err);
    rc |= bl_h5_table_read(g, &bl_h5_counter_def, (void **)&r->counters,
                           &r->ncounters, err);
    rc |= bl_h5_table_read(g, &bl_h5_memory_def, (void **)&r->memory,
                           &r->nmemory, err);
    rc |= bl_h5_table_read(g, &bl_h5_rank_def, (void **)&r->rank_rows,
                           &r->nrank_rows, err);
    rc |= bl_h5_table_read(g, &bl_h5_metric_def, (void **)&r->metrics,
                           &r->nmetrics, err);
    H5Gclose(g);
    return rc ? -1 : 0;
}

void bl_h5_run_free(bl_h5_run *r)
{
    free(r->kernel);
    free(r->args);
    free(r->init);
    free(r->status);
    free(r->result.rate_unit);
    free(r->result.work_model);
    free(r->result.verify_detail);
    free(r->timings);
    bl_h5_table_free(&bl_h5_env_def, r->env, r->nenv);
    bl_h5_table_free(&bl_h5_placement_def, r->placement, r->nplacement);
    bl_h5_table_free(&bl_h5_counter_def, r->counters, r->ncounters);
    bl_h5_table_free(&bl_h5_memory_def, r->memory, r->nmemory);
    bl_h5_table_free(&bl_h5_rank_def, r->rank_rows, r->nrank_rows);
    bl_h5_table_free(&bl_h5_metric_def, r->metrics, r->nmetrics);
    memset(r, 0, sizeof *r);
}

/* ---- harness ----------------------------------------------------------- */

static hid_t open_or_create_group(hid_t file, const char *path)
{
    hid_t lcpl;
    hid_t g;
    /* H5Lexists fails (< 0) when a parent is missing: that is "no". */
    if (H5Lexists(file, path, H5P_DEFAULT) > 0)
        return H5Gopen2(file, path, H5P_DEFAULT);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    g = H5Gcreate2(file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return g;
}

int bl_h5_write_harness(hid_t file, const char *group, const bl_h5_harness *h,
                        bl_err *err)
{
    hid_t g = open_or_create_group(file, group);
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create '%s'", group);
    rc |= bl_h5_attr_put_str(g, "run_id", h->run_id);
    rc |= bl_h5_attr_put_str(g, "label", h->label);
    rc |= bl_h5_attr_put_str(g, "name", h->name);
    rc |= bl_h5_attr_put_str(g, "status", h->status);
    rc |= bl_h5_attr_put_i64(g, "repetition", h->repetition);
    rc |= bl_h5_attr_put_i64(g, "np", h->np);
    rc |= bl_h5_attr_put_i64(g, "threads", h->threads);
    rc |= bl_h5_attr_put_str(g, "kernel", h->kernel);
    rc |= bl_h5_attr_put_str(g, "kernel_args", h->kernel_args);
    rc |= bl_h5_attr_put_str(g, "map_by", h->map_by);
    rc |= bl_h5_attr_put_str(g, "map_by_launcher", h->map_by_launcher);
    rc |= bl_h5_attr_put_str(g, "bind_to", h->bind_to);
    rc |= bl_h5_attr_put_str(g, "bind_to_launcher", h->bind_to_launcher);
    rc |= bl_h5_attr_put_str(g, "rank_by", h->rank_by);
    rc |= bl_h5_attr_put_str(g, "omp_places", h->omp_places);
    rc |= bl_h5_attr_put_str(g, "omp_proc_bind", h->omp_proc_bind);
    rc |= bl_h5_attr_put_str(g, "init", h->init);
    rc |= bl_h5_attr_put_str(g, "launcher", h->launcher);
    rc |= bl_h5_attr_put_str(g, "launcher_argv", h->argv);
    rc |= bl_h5_attr_put_i64(g, "exit_status", h->exit_status);
    rc |= bl_h5_attr_put_i64(g, "term_signal", h->term_signal);
    rc |= bl_h5_attr_put_i64(g, "timed_out", h->timed_out);
    rc |= bl_h5_attr_put_f64(g, "wall_s", h->wall_s);
    rc |= bl_h5_attr_put_f64(g, "app_s", h->app_s);
    rc |= bl_h5_attr_put_str(g, "stderr_tail", h->stderr_tail);
    rc |= bl_h5_attr_put_str(g, "flags", h->flags);
    rc |= bl_h5_attr_put_str(g, "reason", h->reason);
    if (H5Lexists(g, "binding_report", H5P_DEFAULT) <= 0)
        rc |= write_string_dataset(g, "binding_report", h->binding_report);
    if (rc == 0 && H5Lexists(g, "checks", H5P_DEFAULT) <= 0)
        rc |= bl_h5_table_write(g, &bl_h5_check_def, h->checks, h->nchecks,
                                err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write the harness record of "
                           "'%s'", group) : 0;
}

int bl_h5_read_harness(hid_t file, const char *group, bl_h5_harness *h,
                       bl_err *err)
{
    hid_t g;
    int rc;
    memset(h, 0, sizeof *h);
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no run group '%s'", group);
    g = H5Gopen2(file, group, H5P_DEFAULT);
    h->run_id = bl_h5_attr_get_str(g, "run_id");
    h->label = bl_h5_attr_get_str(g, "label");
    h->name = bl_h5_attr_get_str(g, "name");
    h->status = bl_h5_attr_get_str(g, "status");
    h->repetition = (int)bl_h5_attr_get_i64(g, "repetition", 0);
    h->np = (int)bl_h5_attr_get_i64(g, "np", 0);
    h->threads = (int)bl_h5_attr_get_i64(g, "threads", 0);
    h->kernel = bl_h5_attr_get_str(g, "kernel");
    h->kernel_args = bl_h5_attr_get_str(g, "kernel_args");
    h->map_by = bl_h5_attr_get_str(g, "map_by");
    h->map_by_launcher = bl_h5_attr_get_str(g, "map_by_launcher");
    h->bind_to = bl_h5_attr_get_str(g, "bind_to");
    h->bind_to_launcher = bl_h5_attr_get_str(g, "bind_to_launcher");
    h->rank_by = bl_h5_attr_get_str(g, "rank_by");
    h->omp_places = bl_h5_attr_get_str(g, "omp_places");
    h->omp_proc_bind = bl_h5_attr_get_str(g, "omp_proc_bind");
    h->init = bl_h5_attr_get_str(g, "init");
    h->launcher = bl_h5_attr_get_str(g, "launcher");
    h->argv = bl_h5_attr_get_str(g, "launcher_argv");
    h->exit_status = (int)bl_h5_attr_get_i64(g, "exit_status", 0);
    h->term_signal = (int)bl_h5_attr_get_i64(g, "term_signal", 0);
    h->timed_out = (int)bl_h5_attr_get_i64(g, "timed_out", 0);
    h->wall_s = bl_h5_attr_get_f64(g, "wall_s", 0);
    h->app_s = bl_h5_attr_get_f64(g, "app_s", 0);
    h->stderr_tail = bl_h5_attr_get_str(g, "stderr_tail");
    h->flags = bl_h5_attr_get_str(g, "flags");
    h->reason = bl_h5_attr_get_str(g, "reason");
    h->binding_report = read_string_dataset(g, "binding_report");
    rc = bl_h5_table_read(g, &bl_h5_check_def, (void **)&h->checks,
                          &h->nchecks, err);
    H5Gclose(g);
    return rc;
}

void bl_h5_harness_free(bl_h5_harness *h)
{
    char **strs[] = {&h->run_id, &h->label, &h->name, &h->status,
                     &h->kernel, &h->kernel_args, &h->map_by,
                     &h->map_by_launcher, &h->bind_to, &h->bind_to_launcher,
                     &h->rank_by, &h->omp_places, &h->omp_proc_bind, &h->init,
                     &h->launcher, &h->argv, &h->stderr_tail,
                     &h->binding_report, &h->flags, &h->reason};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    bl_h5_table_free(&bl_h5_check_def, h->checks, h->nchecks);
    memset(h, 0, sizeof *h);
}

void bl_h5_summary_row(const bl_h5_run *app, const bl_h5_harness *h,
                       bl_h5_summary *row)
{
    static char empty[] = "";
    memset(row, 0, sizeof *row);
    row->run_id = h->run_id ? h->run_id : empty;
    row->label = h->label ? h->label : empty;
    row->name = h->name ? h->name : empty;
    row->kernel = h->kernel ? h->kernel : empty;
    row->status = h->status ? h->status : empty;
    row->repetition = h->repetition;
    row->np = h->np;
    row->threads = h->threads;
    row->map_by = h->map_by ? h->map_by : empty;
    row->bind_to = h->bind_to ? h->bind_to : empty;
    row->rank_by = h->rank_by ? h->rank_by : empty;
    row->omp_places = h->omp_places ? h->omp_places : empty;
    row->omp_proc_bind = h->omp_proc_bind ? h->omp_proc_bind : empty;
    row->init = h->init ? h->init : empty;
    row->flags = h->flags ? h->flags : empty;
    row->wall_s = h->wall_s;
    row->exit_status = h->exit_status;
    row->rate_unit = empty;
    row->local_page_fraction = -1.0;
    if (app) {
        row->median_s = app->result.median_s;
        row->min_s = app->result.min_s;
        row->rate = app->result.rate;
        row->rate_unit = app->result.rate_unit ? app->result.rate_unit : empty;
        row->verified = (int8_t)app->result.verified;
        row->local_page_fraction = app->result.local_page_fraction;
        if (app->threads > 0)
            row->threads = app->threads;
    }
}

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
        rc = bl_atomic_write(path, image, (size_t)len, err);
    else
        bl_err_prefix(err, "%s", path);
    free(image);
    return rc < 0 ? -1 : 0;
}

int bl_h5_write_run_file(const char *path, const char *command,
                         const bl_h5_machine *m, const bl_h5_run *r,
                         bl_err *err)
{
    hid_t file;
    int rc;

    if (bl_atomic_check_target(path, err) < 0 ||
        (file = bl_h5_mem_create(path, err)) < 0)
        return -1;
    rc = bl_h5_write_root(file, "run", command, err);
    if (rc == 0)
        rc = bl_h5_write_machine(file, m, err);
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
