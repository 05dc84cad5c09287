/* bindlab's HDF5 layout as data (see h5schema.h): the description of every
 * table and attribute set, the run file's records (/machine, /run) written,
 * read and freed from those descriptions by the engine in h5table.c, and
 * the file-level steps (root attributes, files built in memory and handed
 * to atomic_file.c, opening a file to read). The harness's own records and
 * sweep files are in harness/results_file.c. */
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

/* ---- tables: one column per line, in the file's column order ------------ */

#define F(type, member, kind) BL_H5_COLUMN(type, member, kind)

static const bl_h5_field placement_fields[] = {
    F(bl_h5_placement, rank, BL_H5_I32),
    F(bl_h5_placement, thread, BL_H5_I32),
    F(bl_h5_placement, host, BL_H5_STR),
    F(bl_h5_placement, rank_cpuset, BL_H5_STR),
    F(bl_h5_placement, cpuset, BL_H5_STR),
    F(bl_h5_placement, cpu_first, BL_H5_I32),
    F(bl_h5_placement, cpu_last, BL_H5_I32),
    F(bl_h5_placement, core, BL_H5_I32),
    F(bl_h5_placement, l3, BL_H5_I32),
    F(bl_h5_placement, numa, BL_H5_I32),
    F(bl_h5_placement, package, BL_H5_I32),
    F(bl_h5_placement, migrations, BL_H5_I64),
    F(bl_h5_placement, pid, BL_H5_I64),
    /* A/B comparisons: context switches in the timed region */
    F(bl_h5_placement, ctx_voluntary, BL_H5_I64),
    F(bl_h5_placement, ctx_involuntary, BL_H5_I64),
};
static const bl_h5_field counter_fields[] = {
    F(bl_h5_counter, rank, BL_H5_I32),
    F(bl_h5_counter, thread, BL_H5_I32),
    F(bl_h5_counter, name, BL_H5_STR),
    F(bl_h5_counter, event, BL_H5_STR),
    F(bl_h5_counter, value, BL_H5_I64),
    F(bl_h5_counter, available, BL_H5_I8),
    F(bl_h5_counter, note, BL_H5_STR),
};
static const bl_h5_field memory_fields[] = {
    F(bl_h5_memory, rank, BL_H5_I32),
    F(bl_h5_memory, numa_node, BL_H5_I32),
    F(bl_h5_memory, pages, BL_H5_I64),
};
static const bl_h5_field rank_fields[] = {
    F(bl_h5_rank, rank, BL_H5_I32),
    F(bl_h5_rank, host, BL_H5_STR),
    F(bl_h5_rank, node, BL_H5_I32),
    F(bl_h5_rank, median_s, BL_H5_F64),
    F(bl_h5_rank, min_s, BL_H5_F64),
    F(bl_h5_rank, rate, BL_H5_F64),
    F(bl_h5_rank, local_page_fraction, BL_H5_F64),
    F(bl_h5_rank, pages_local, BL_H5_I64),
    F(bl_h5_rank, pages_total, BL_H5_I64),
    F(bl_h5_rank, mem_policy, BL_H5_STR),
};
static const bl_h5_field metric_fields[] = {
    F(bl_h5_metric, rank, BL_H5_I32),
    F(bl_h5_metric, name, BL_H5_STR),
    F(bl_h5_metric, value, BL_H5_F64),
    F(bl_h5_metric, unit, BL_H5_STR),
};
static const bl_h5_field env_fields[] = {
    F(bl_h5_env, name, BL_H5_STR),
    F(bl_h5_env, value, BL_H5_STR),
};

static const bl_h5_field finding_fields[] = {
    F(bl_h5_finding, rank, BL_H5_I32),
    F(bl_h5_finding, host, BL_H5_STR),
    F(bl_h5_finding, id, BL_H5_STR),
    F(bl_h5_finding, severity, BL_H5_STR),
    F(bl_h5_finding, text, BL_H5_STR),
};

static const bl_h5_field check_fields[] = {
    F(bl_h5_check, rank, BL_H5_I32),
    F(bl_h5_check, host, BL_H5_STR),
    F(bl_h5_check, claimed, BL_H5_STR),
    F(bl_h5_check, seen, BL_H5_STR),
    F(bl_h5_check, source, BL_H5_STR),
    F(bl_h5_check, matches, BL_H5_I8),
    /* multi-node runs: the node whose topology read the claim */
    F(bl_h5_check, node, BL_H5_I32),
};
static const bl_h5_field summary_fields[] = {
    F(bl_h5_summary, run_id, BL_H5_STR),
    F(bl_h5_summary, label, BL_H5_STR),
    F(bl_h5_summary, name, BL_H5_STR),
    F(bl_h5_summary, kernel, BL_H5_STR),
    F(bl_h5_summary, status, BL_H5_STR),
    F(bl_h5_summary, repetition, BL_H5_I32),
    F(bl_h5_summary, np, BL_H5_I32),
    F(bl_h5_summary, threads, BL_H5_I32),
    F(bl_h5_summary, map_by, BL_H5_STR),
    F(bl_h5_summary, bind_to, BL_H5_STR),
    F(bl_h5_summary, rank_by, BL_H5_STR),
    F(bl_h5_summary, omp_places, BL_H5_STR),
    F(bl_h5_summary, omp_proc_bind, BL_H5_STR),
    F(bl_h5_summary, init, BL_H5_STR),
    F(bl_h5_summary, mem_policy, BL_H5_STR),
    F(bl_h5_summary, median_s, BL_H5_F64),
    F(bl_h5_summary, min_s, BL_H5_F64),
    F(bl_h5_summary, rate, BL_H5_F64),
    F(bl_h5_summary, rate_unit, BL_H5_STR),
    F(bl_h5_summary, verified, BL_H5_I8),
    F(bl_h5_summary, local_page_fraction, BL_H5_F64),
    F(bl_h5_summary, flags, BL_H5_STR),
    F(bl_h5_summary, wall_s, BL_H5_F64),
    F(bl_h5_summary, exit_status, BL_H5_I32),
    F(bl_h5_summary, nodes, BL_H5_STR),
    /* retry: launches the run took (0 in files written before it) */
    F(bl_h5_summary, attempts, BL_H5_I32),
};

/* ---- the kernels' time split (its own block: written only when a kernel
 * gives one, so runs of the other kernels have no such dataset) --------- */
static const bl_h5_field time_split_fields[] = {
    F(bl_h5_time_split, rank, BL_H5_I32),
    F(bl_h5_time_split, phase, BL_H5_STR),
    F(bl_h5_time_split, seconds, BL_H5_F64),
    F(bl_h5_time_split, total_s, BL_H5_F64),
};

/* multi-node runs: what each rank sent per step inside and between nodes (its own
 * block: written only by kernels that count it) */
static const bl_h5_field traffic_fields[] = {
    F(bl_h5_traffic, rank, BL_H5_I32),
    F(bl_h5_traffic, node, BL_H5_I32),
    F(bl_h5_traffic, bytes_same_node, BL_H5_F64),
    F(bl_h5_traffic, bytes_other_nodes, BL_H5_F64),
    F(bl_h5_traffic, messages_same_node, BL_H5_F64),
    F(bl_h5_traffic, messages_other_nodes, BL_H5_F64),
    F(bl_h5_traffic, peers_same_node, BL_H5_I32),
    F(bl_h5_traffic, peers_other_nodes, BL_H5_I32),
};

/* A/B comparisons: the noisy neighbours of a run */
static const bl_h5_field neighbour_fields[] = {
    F(bl_h5_neighbour, kind, BL_H5_STR),
    F(bl_h5_neighbour, pid, BL_H5_I64),
    F(bl_h5_neighbour, argv, BL_H5_STR),
    F(bl_h5_neighbour, cpus, BL_H5_STR),
    F(bl_h5_neighbour, last_cpu, BL_H5_I32),
    F(bl_h5_neighbour, cpu_s, BL_H5_F64),
    F(bl_h5_neighbour, wall_s, BL_H5_F64),
};

/* retry: the launches of a run that died before the app started (its own
 * block: written only for a run launched again) */
static const bl_h5_field retry_fields[] = {
    F(bl_h5_retry, attempt, BL_H5_I32),
    F(bl_h5_retry, start_time, BL_H5_F64),
    F(bl_h5_retry, wall_s, BL_H5_F64),
    F(bl_h5_retry, exit_status, BL_H5_I32),
    F(bl_h5_retry, term_signal, BL_H5_I32),
    F(bl_h5_retry, reason, BL_H5_STR),
    F(bl_h5_retry, log, BL_H5_STR),
};

#define DEF(var, dset, type, fields) \
    const bl_h5_table_def var = BL_H5_TABLE(dset, type, fields)
DEF(bl_h5_placement_def, "placement", bl_h5_placement, placement_fields);
DEF(bl_h5_counter_def, "counters", bl_h5_counter, counter_fields);
DEF(bl_h5_memory_def, "memory", bl_h5_memory, memory_fields);
DEF(bl_h5_rank_def, "ranks", bl_h5_rank, rank_fields);
DEF(bl_h5_metric_def, "metrics", bl_h5_metric, metric_fields);
DEF(bl_h5_env_def, "env", bl_h5_env, env_fields);
DEF(bl_h5_finding_def, "findings", bl_h5_finding, finding_fields);
DEF(bl_h5_check_def, "checks", bl_h5_check, check_fields);
DEF(bl_h5_summary_def, "summary", bl_h5_summary, summary_fields);
DEF(bl_h5_time_split_def, "time_split", bl_h5_time_split,
    time_split_fields);
DEF(bl_h5_neighbour_def, "neighbours", bl_h5_neighbour, neighbour_fields);
DEF(bl_h5_traffic_def, "traffic", bl_h5_traffic, traffic_fields);
DEF(bl_h5_retry_def, "retries", bl_h5_retry, retry_fields);


/* ---- attribute sets: one attribute per line, in the file's order -------- */

#define A(type, member, kind, dflt) BL_H5_ATTR(type, #member, member, kind, dflt)

static const bl_h5_attr machine_attrs[] = {
    A(bl_h5_machine, hostname, BL_A_STR, 0),
    A(bl_h5_machine, cpu_model, BL_A_STR, 0),
    A(bl_h5_machine, packages, BL_A_INT, -1),
    A(bl_h5_machine, numa_nodes, BL_A_INT, -1),
    A(bl_h5_machine, l3_domains, BL_A_INT, -1),
    A(bl_h5_machine, cores, BL_A_INT, -1),
    A(bl_h5_machine, pus, BL_A_INT, -1),
    A(bl_h5_machine, mpi_library_version, BL_A_STR, 0),
    A(bl_h5_machine, compiler, BL_A_STR, 0),
    A(bl_h5_machine, omp_runtime, BL_A_STR, 0),
    A(bl_h5_machine, kernel_release, BL_A_STR, 0),
    A(bl_h5_machine, numa_balancing, BL_A_INT, -1),
    A(bl_h5_machine, virtualization, BL_A_STR, 0),
};
static const bl_h5_attr run_attrs[] = {
    A(bl_h5_run, kernel, BL_A_STR, 0),
    A(bl_h5_run, args, BL_A_STR, 0),
    A(bl_h5_run, init, BL_A_STR, 0),
    A(bl_h5_run, status, BL_A_STR, 0),
    A(bl_h5_run, size_bytes, BL_A_LLONG, 0),
    A(bl_h5_run, iterations, BL_A_INT, 0),
    A(bl_h5_run, warmup, BL_A_INT, 0),
    A(bl_h5_run, ranks, BL_A_INT, 0),
    A(bl_h5_run, threads, BL_A_INT, 0),
    A(bl_h5_run, mem_policy, BL_A_STR, 0),
};
static const bl_h5_attr result_attrs[] = {
    A(bl_h5_result, median_s, BL_A_F64, 0),
    A(bl_h5_result, min_s, BL_A_F64, 0),
    A(bl_h5_result, max_s, BL_A_F64, 0),
    A(bl_h5_result, rate, BL_A_F64, 0),
    A(bl_h5_result, rate_unit, BL_A_STR, 0),
    A(bl_h5_result, bytes_per_iteration, BL_A_F64, 0),
    A(bl_h5_result, flops_per_iteration, BL_A_F64, 0),
    A(bl_h5_result, work_model, BL_A_STR, 0),
    A(bl_h5_result, verified, BL_A_INT, 0),
    A(bl_h5_result, error, BL_A_F64, 0),
    A(bl_h5_result, checksum, BL_A_F64, 0),
    A(bl_h5_result, verify_detail, BL_A_STR, 0),
    A(bl_h5_result, local_page_fraction, BL_A_F64, -1),
};
static const bl_h5_attr harness_attrs[] = {
    A(bl_h5_harness, run_id, BL_A_STR, 0),
    A(bl_h5_harness, label, BL_A_STR, 0),
    A(bl_h5_harness, name, BL_A_STR, 0),
    A(bl_h5_harness, status, BL_A_STR, 0),
    A(bl_h5_harness, repetition, BL_A_INT, 0),
    A(bl_h5_harness, np, BL_A_INT, 0),
    A(bl_h5_harness, threads, BL_A_INT, 0),
    A(bl_h5_harness, layout_nodes, BL_A_INT, 0),
    A(bl_h5_harness, kernel, BL_A_STR, 0),
    A(bl_h5_harness, kernel_args, BL_A_STR, 0),
    A(bl_h5_harness, map_by, BL_A_STR, 0),
    A(bl_h5_harness, map_by_launcher, BL_A_STR, 0),
    A(bl_h5_harness, bind_to, BL_A_STR, 0),
    A(bl_h5_harness, bind_to_launcher, BL_A_STR, 0),
    A(bl_h5_harness, rank_by, BL_A_STR, 0),
    A(bl_h5_harness, omp_places, BL_A_STR, 0),
    A(bl_h5_harness, omp_proc_bind, BL_A_STR, 0),
    A(bl_h5_harness, init, BL_A_STR, 0),
    A(bl_h5_harness, mem_policy, BL_A_STR, 0),
    A(bl_h5_harness, launcher, BL_A_STR, 0),
    A(bl_h5_harness, launcher_version, BL_A_STR, 0),
    BL_H5_ATTR(bl_h5_harness, "launcher_argv", argv, BL_A_STR, 0),
    A(bl_h5_harness, exit_status, BL_A_INT, 0),
    A(bl_h5_harness, term_signal, BL_A_INT, 0),
    A(bl_h5_harness, timed_out, BL_A_INT, 0),
    A(bl_h5_harness, wall_s, BL_A_F64, 0),
    A(bl_h5_harness, app_s, BL_A_F64, 0),
    A(bl_h5_harness, stderr_tail, BL_A_STR, 0),
    A(bl_h5_harness, flags, BL_A_STR, 0),
    A(bl_h5_harness, reason, BL_A_STR, 0),
    A(bl_h5_harness, nodes, BL_A_STR, 0),
    /* A/B comparisons */
    A(bl_h5_harness, start_time, BL_A_F64, 0),
    A(bl_h5_harness, repetition_order, BL_A_STR, 0),
    A(bl_h5_harness, noisy, BL_A_STR, 0),
    /* retry: launches made (0: never launched, or written before it) */
    A(bl_h5_harness, attempts, BL_A_INT, 0),
};

const bl_h5_attrs_def bl_h5_machine_attrs = BL_H5_ATTRS(machine_attrs);
const bl_h5_attrs_def bl_h5_run_attrs = BL_H5_ATTRS(run_attrs);
const bl_h5_attrs_def bl_h5_result_attrs = BL_H5_ATTRS(result_attrs);
const bl_h5_attrs_def bl_h5_harness_attrs = BL_H5_ATTRS(harness_attrs);

/* The tables of a run: where each one's rows and row count live in
 * bl_h5_run, in the order they are written. */
typedef struct run_table {
    const bl_h5_table_def *def;
    size_t rows, count;        /* offsetof(bl_h5_run, ...) */
} run_table;

#define RT(def, rows, count) \
    {&def, offsetof(bl_h5_run, rows), offsetof(bl_h5_run, count)}
static const run_table run_tables[] = {
    RT(bl_h5_env_def, env, nenv),
    RT(bl_h5_placement_def, placement, nplacement),
    RT(bl_h5_counter_def, counters, ncounters),
    RT(bl_h5_memory_def, memory, nmemory),
    RT(bl_h5_rank_def, rank_rows, nrank_rows),
    RT(bl_h5_metric_def, metrics, nmetrics),
    RT(bl_h5_finding_def, findings, nfindings),
};
#define NRUN_TABLES (sizeof run_tables / sizeof run_tables[0])

static void **rt_rows(const run_table *t, bl_h5_run *r)
{
    return (void **)((char *)r + t->rows);
}

static size_t *rt_count(const run_table *t, bl_h5_run *r)
{
    return (size_t *)((char *)r + t->count);
}

/* ---- machine and nodes ------------------------------------------------- */

void bl_h5_node_path(size_t k, char *buf, size_t len)
{
    snprintf(buf, len, "nodes/%zu", k);
}

int bl_h5_write_node(hid_t file, size_t k, const bl_h5_machine *m,
                     bl_err *err)
{
    char path[64];
    hid_t g;
    int rc = 0;
    bl_h5_node_path(k, path, sizeof path);
    g = bl_h5_group_open_or_create(file, path);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create /%s", path);
    rc |= bl_h5_attrs_write(g, &bl_h5_machine_attrs, m);
    if (H5Lexists(g, "topology_xml", H5P_DEFAULT) <= 0)
        rc |= bl_h5_string_write(g, "topology_xml", m->topology_xml);
    H5Gclose(g);
    /* old readers (and h5py users) read /machine: the first node */
    if (rc == 0 && k == 0 && H5Lexists(file, "machine", H5P_DEFAULT) <= 0 &&
        H5Lcreate_hard(file, path, file, "machine", H5P_DEFAULT,
                       H5P_DEFAULT) < 0)
        rc = -1;
    return rc ? bl_err_set(err, "HDF5: cannot write /%s", path) : 0;
}

int bl_h5_write_nodes(hid_t file, const bl_h5_machine *m, size_t n,
                      bl_err *err)
{
    for (size_t k = 0; k < n; k++)
        if (bl_h5_write_node(file, k, &m[k], err) < 0)
            return -1;
    return 0;
}

int bl_h5_write_machine(hid_t file, const bl_h5_machine *m, bl_err *err)
{
    return bl_h5_write_node(file, 0, m, err);
}

const char *bl_h5_node_object(hid_t file, size_t k, char *buf, size_t len)
{
    bl_h5_node_path(k, buf, len);
    if (H5Lexists(file, "nodes", H5P_DEFAULT) > 0) {
        if (H5Lexists(file, buf, H5P_DEFAULT) > 0)
            return buf;
        return NULL;
    }
    if (k == 0 && H5Lexists(file, "machine", H5P_DEFAULT) > 0)
        return "machine";
    return NULL;
}

size_t bl_h5_count_nodes(hid_t file)
{
    char buf[64];
    size_t n = 0;
    while (bl_h5_node_object(file, n, buf, sizeof buf))
        n++;
    return n;
}

static void read_machine_at(hid_t file, const char *path, bl_h5_machine *m)
{
    hid_t g = H5Gopen2(file, path, H5P_DEFAULT);
    memset(m, 0, sizeof *m);
    if (g < 0)
        return;
    bl_h5_attrs_read(g, &bl_h5_machine_attrs, m);
    m->topology_xml = bl_h5_string_read(g, "topology_xml");
    H5Gclose(g);
}

int bl_h5_read_node(hid_t file, size_t k, bl_h5_machine *m, bl_err *err)
{
    char buf[64];
    const char *path = bl_h5_node_object(file, k, buf, sizeof buf);
    memset(m, 0, sizeof *m);
    if (!path)
        return bl_err_set(err, "no machine record /nodes/%zu", k);
    read_machine_at(file, path, m);
    return 0;
}

int bl_h5_read_nodes(hid_t file, bl_h5_machine **m, size_t *n, bl_err *err)
{
    size_t count = bl_h5_count_nodes(file);
    *n = 0;
    if (!(*m = calloc(count + 1, sizeof **m)))
        return bl_err_set(err, "out of memory reading /nodes");
    for (size_t k = 0; k < count; k++)
        if (bl_h5_read_node(file, k, &(*m)[k], err) < 0) {
            bl_h5_nodes_free(*m, k);
            *m = NULL;
            return -1;
        }
    *n = count;
    return 0;
}

void bl_h5_nodes_free(bl_h5_machine *m, size_t n)
{
    for (size_t k = 0; m && k < n; k++)
        bl_h5_machine_free(&m[k]);
    free(m);
}

int bl_h5_read_machine(hid_t file, bl_h5_machine *m, bl_err *err)
{
    memset(m, 0, sizeof *m);
    if (H5Lexists(file, "machine", H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no /machine group (not a bindlab file?)");
    read_machine_at(file, "machine", m);
    return 0;
}

void bl_h5_machine_free(bl_h5_machine *m)
{
    bl_h5_attrs_free(&bl_h5_machine_attrs, m);
    free(m->topology_xml);
    memset(m, 0, sizeof *m);
}

/* FNV-1a, 64 bits: not cryptographic, only to tell topologies apart
 * without comparing kilobytes of XML for every input of a merge. */
uint64_t bl_h5_topology_digest(const char *xml)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)(xml ? xml : "");
         *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static char *dup0(const char *s)
{
    return strdup(s ? s : "");
}

int bl_h5_node_key_of(const bl_h5_machine *m, bl_h5_node_key *k)
{
    k->hostname = dup0(m->hostname);
    k->cpu_model = dup0(m->cpu_model);
    k->mpi_library_version = dup0(m->mpi_library_version);
    k->kernel_release = dup0(m->kernel_release);
    k->topology_digest = bl_h5_topology_digest(m->topology_xml);
    if (!k->hostname || !k->cpu_model || !k->mpi_library_version ||
        !k->kernel_release) {
        bl_h5_node_key_free(k);
        return -1;
    }
    return 0;
}

int bl_h5_node_key_eq(const bl_h5_node_key *a, const bl_h5_node_key *b)
{
    return a->topology_digest == b->topology_digest &&
           strcmp(a->hostname, b->hostname) == 0 &&
           strcmp(a->cpu_model, b->cpu_model) == 0 &&
           strcmp(a->mpi_library_version, b->mpi_library_version) == 0 &&
           strcmp(a->kernel_release, b->kernel_release) == 0;
}

void bl_h5_node_key_free(bl_h5_node_key *k)
{
    free(k->hostname);
    free(k->cpu_model);
    free(k->mpi_library_version);
    free(k->kernel_release);
    memset(k, 0, sizeof *k);
}

/* ---- run --------------------------------------------------------------- */

static int write_result(hid_t run, const bl_h5_result *r)
{
    hid_t g = H5Gcreate2(run, "result", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc;
    if (g < 0)
        return -1;
    rc = bl_h5_attrs_write(g, &bl_h5_result_attrs, r);
    H5Gclose(g);
    return rc;
}

static void read_result(hid_t run, bl_h5_result *r)
{
    hid_t g;
    if (H5Lexists(run, "result", H5P_DEFAULT) <= 0)
        return;
    g = H5Gopen2(run, "result", H5P_DEFAULT);
    bl_h5_attrs_read(g, &bl_h5_result_attrs, r);
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
    rc |= bl_h5_attrs_write(g, &bl_h5_run_attrs, r);
    rc |= write_result(g, &r->result);
    rc |= write_timings(g, r);
    for (size_t i = 0; rc == 0 && i < NRUN_TABLES; i++) {
        const run_table *t = &run_tables[i];
        rc = bl_h5_table_write(g, t->def,
                               *(void *const *)((const char *)r + t->rows),
                               *(const size_t *)((const char *)r + t->count),
                               err);
    }
    if (rc == 0 && r->matrix)
        rc = bl_h5_matrix_write(g, r->matrix, err);
    if (rc == 0 && r->ntime_split > 0)
        rc = bl_h5_table_write(g, &bl_h5_time_split_def, r->time_split,
                               r->ntime_split, err);
    if (rc == 0 && r->ntraffic > 0)
        rc = bl_h5_table_write(g, &bl_h5_traffic_def, r->traffic,
                               r->ntraffic, err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write run '%s'", name) : 0;
}

/* A kernel's matrix in the run group (c2c), when there is one: the first
 * kind under matrices/. */
static void read_run_matrix(hid_t run, bl_h5_run *r)
{
    char kinds[256], *comma;
    bl_err e;
    bl_h5_matrix_kinds(run, kinds, sizeof kinds);
    if (!kinds[0] || !(r->matrix = calloc(1, sizeof *r->matrix)))
        return;
    if ((comma = strchr(kinds, ',')))
        *comma = '\0';
    if (bl_h5_matrix_read(run, kinds, r->matrix, &e) < 0) {
        free(r->matrix);
        r->matrix = NULL;
    }
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
    bl_h5_attrs_read(g, &bl_h5_run_attrs, r);
    read_result(g, &r->result);
    read_timings(g, r);
    /* Every table is read even after one fails, as before: what reads is
     * kept (and freed by bl_h5_run_free). */
    for (size_t i = 0; i < NRUN_TABLES; i++)
        rc |= bl_h5_table_read(g, run_tables[i].def,
                               rt_rows(&run_tables[i], r),
                               rt_count(&run_tables[i], r), err);
    read_run_matrix(g, r);
    rc |= bl_h5_table_read(g, &bl_h5_time_split_def, (void **)&r->time_split,
                           &r->ntime_split, err);
    rc |= bl_h5_table_read(g, &bl_h5_traffic_def, (void **)&r->traffic,
                           &r->ntraffic, err);
    H5Gclose(g);
    return rc ? -1 : 0;
}

void bl_h5_run_free(bl_h5_run *r)
{
    bl_h5_attrs_free(&bl_h5_run_attrs, r);
    bl_h5_attrs_free(&bl_h5_result_attrs, &r->result);
    free(r->timings);
    for (size_t i = 0; i < NRUN_TABLES; i++)
        bl_h5_table_free(run_tables[i].def, *rt_rows(&run_tables[i], r),
                         *rt_count(&run_tables[i], r));
    if (r->matrix)
        bl_h5_matrix_free(r->matrix);
    free(r->matrix);
    bl_h5_table_free(&bl_h5_time_split_def, r->time_split, r->ntime_split);
    bl_h5_table_free(&bl_h5_traffic_def, r->traffic, r->ntraffic);
    memset(r, 0, sizeof *r);
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
    return bl_h5_write_run_file_nodes(path, command, m, 1, r, err);
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
