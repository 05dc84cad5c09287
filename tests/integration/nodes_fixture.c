/* Test helper for machine records (/nodes, docs/schema.md), written by
 * hand for test_merge_machines.sh:
 *
 *   nodes_fixture write DIR XML HOST   a 3-run sweep (per-run files
 *       DIR/r0000.h5 ...) on the machine of the hwloc XML file XML named
 *       HOST, through the harness's own writer: r0000 triad np2 (two rank
 *       rows on HOST), r0001 triad np1, r0002 invalid (never ran)
 *   nodes_fixture legacy DIR           2 runs (r0100, r0101, np2 each) in
 *       the layout written before /nodes: /machine only (host "vm-old"),
 *       no "nodes" attribute or summary column, no "node" rank column
 *   nodes_fixture copies SRC DIR N     N copies of the per-run sweep file
 *       SRC as DIR/c00000.h5 ... with run ids c00000 ..., each its own run
 *       (for bench/merge_scale.sh: files made cheaply from one real run)
 *   nodes_fixture dump FILE            what a sweep file says, through the
 *       library's readers, one fact per line:
 *         machine HOST                      /machine
 *         node K HOST | CPU_MODEL | PUS     each /nodes/<k>
 *         run ID nodes LIST ranks LIST      each /summary row, with the
 *                                           "node" of its rank rows
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_file.h"
#include "topo.h"

static int write_run(const char *dir, const char *id, int np,
                     const char *status, const bl_h5_machine *m,
                     const char *host)
{
    char path[4096], label[128];
    bl_h5_harness h = {0};
    bl_h5_run app = {0};
    bl_h5_rank rows[2];
    double timings[3 * 2];
    int ran = strcmp(status, "ok") == 0;
    bl_err err;

    snprintf(label, sizeof label, "triad np%d map=core bind=core", np);
    h.run_id = (char *)id;
    h.label = label;
    h.status = (char *)status;
    h.repetition = 1;
    h.np = np;
    h.threads = 1;
    h.kernel = "triad";
    h.map_by = h.map_by_launcher = "core";
    h.bind_to = h.bind_to_launcher = "core";
    h.launcher = "mpirun";
    h.reason = ran ? "" : "np 2048 needs 2048 slots";
    if (ran) {
        app.kernel = "triad";
        app.status = "ok";
        app.iterations = 3;
        app.ranks = np;
        app.threads = 1;
        app.result.rate = 10.0 * np;
        app.result.rate_unit = "GB/s";
        app.result.median_s = 0.1;
        app.result.verified = 1;
        for (int i = 0; i < 3 * np; i++)
            timings[i] = 0.1;
        app.timings = timings;
        for (int q = 0; q < np; q++) {
            memset(&rows[q], 0, sizeof rows[q]);
            rows[q].rank = q;
            rows[q].host = (char *)host;
            rows[q].node = 0;
            rows[q].rate = app.result.rate / np;
            rows[q].mem_policy = "default";
        }
        app.rank_rows = rows;
        app.nrank_rows = (size_t)np;
    }
    snprintf(path, sizeof path, "%s/%s.h5", dir, id);
    if (bl_h5_write_sweep_run(AT_FDCWD, path, "nodes_fixture", ran ? m : NULL, 1,
                              ran ? &app : NULL, &h, &err) < 0) {
        fprintf(stderr, "nodes_fixture: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int write_sweep(const char *dir, const char *xml, const char *host)
{
    hwloc_topology_t topo;
    hwloc_obj_t pkg;
    bl_topo_counts c;
    bl_h5_machine m = {0};
    char *text = NULL;
    int len, rc;
    bl_err err;

    if (bl_topo_load(xml, &topo, &err) < 0) {
        fprintf(stderr, "nodes_fixture: %s\n", err.msg);
        return -1;
    }
    bl_topo_counts_get(topo, &c);
    pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    m.hostname = (char *)host;
    m.cpu_model = (char *)(pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel")
                               : NULL);
    m.packages = c.packages;
    m.numa_nodes = c.numa_nodes;
    m.l3_domains = c.l3_domains;
    m.cores = c.cores;
    m.pus = c.pus;
    m.mpi_library_version = "Open MPI v4.1.4";
    m.kernel_release = "6.1.0-18-amd64";
    m.numa_balancing = 0;
    m.virtualization = "";
    if (hwloc_topology_export_xmlbuffer(topo, &text, &len, 0) < 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    m.topology_xml = text;
    rc = write_run(dir, "r0000", 2, "ok", &m, host) < 0 ||
         write_run(dir, "r0001", 1, "ok", &m, host) < 0 ||
         write_run(dir, "r0002", 2048, "invalid", &m, host) < 0;
    hwloc_free_xmlbuffer(topo, text);
    hwloc_topology_destroy(topo);
    return rc ? -1 : 0;
}

/* Rewrites a table without the column `drop`, as a writer that did not
 * know it would have. */
static int drop_column(hid_t loc, const bl_h5_table_def *def,
                       const char *drop)
{
    bl_h5_field fields[64];
    bl_h5_table_def old = *def;
    void *rows;
    size_t n, k = 0;
    bl_err err;
    for (size_t i = 0; i < def->nfields && k < 64; i++)
        if (strcmp(def->fields[i].name, drop))
            fields[k++] = def->fields[i];
    old.fields = fields;
    old.nfields = k;
    if (bl_h5_table_read(loc, def, &rows, &n, &err) < 0 ||
        H5Ldelete(loc, def->name, H5P_DEFAULT) < 0)
        return -1;
    k = (size_t)bl_h5_table_write(loc, &old, rows, n, &err);
    bl_h5_table_free(def, rows, n);
    return k ? -1 : 0;
}

/* The pre-/nodes layout from the current writer's file: /nodes unlinked
 * (/machine, a hard link to the same group, keeps it), and the columns
 * and attribute that came with /nodes removed. */
static int make_legacy(const char *path, const char *id)
{
    char group[256];
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g;
    int rc = 0;
    if (f < 0)
        return -1;
    snprintf(group, sizeof group, "runs/%s", id);
    g = H5Gopen2(f, group, H5P_DEFAULT);
    rc |= H5Ldelete(f, "nodes", H5P_DEFAULT) < 0;
    rc |= g < 0 || H5Adelete(g, "nodes") < 0;
    rc |= drop_column(g, &bl_h5_rank_def, "node");
    rc |= drop_column(f, &bl_h5_summary_def, "nodes");
    if (g >= 0)
        H5Gclose(g);
    rc |= H5Fclose(f) < 0;
    return rc ? -1 : 0;
}

static int write_legacy(const char *dir)
{
    static const char *const ids[] = {"r0100", "r0101"};
    bl_h5_machine m = {
        .hostname = "vm-old", .cpu_model = "AMD EPYC 7B13",
        .mpi_library_version = "Open MPI v4.1.4", .compiler = "gcc 12.2.0",
        .omp_runtime = "libgomp.so.1", .kernel_release = "6.1.0-18-amd64",
        .topology_xml = "<topology/>", .packages = 1, .numa_nodes = 1,
        .l3_domains = 1, .cores = 2, .pus = 2, .virtualization = ""};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.h5", dir, ids[i]);
        if (write_run(dir, ids[i], 2, "ok", &m, "vm-old") < 0 ||
            make_legacy(path, ids[i]) < 0) {
            fprintf(stderr, "nodes_fixture: cannot write %s\n", path);
            return -1;
        }
    }
    return 0;
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

static int dump(const char *path)
{
    bl_err err;
    hid_t f = bl_h5_open_read(path, &err);
    bl_h5_machine m, *nodes;
    bl_h5_summary *rows;
    size_t nnodes, n;
    if (f < 0 || bl_h5_read_machine(f, &m, &err) < 0 ||
        bl_h5_read_nodes(f, &nodes, &nnodes, &err) < 0) {
        fprintf(stderr, "nodes_fixture: %s\n", err.msg);
        return 1;
    }
    printf("machine %s\n", nz(m.hostname));
    bl_h5_machine_free(&m);
    for (size_t k = 0; k < nnodes; k++)
        printf("node %zu %s | %s | %d\n", k, nz(nodes[k].hostname),
               nz(nodes[k].cpu_model), nodes[k].pus);
    bl_h5_nodes_free(nodes, nnodes);
    if (bl_h5_table_read(f, &bl_h5_summary_def, (void **)&rows, &n,
                         &err) < 0) {
        fprintf(stderr, "nodes_fixture: %s\n", err.msg);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        char group[512];
        bl_h5_run r;
        bl_h5_run_path(nz(rows[i].run_id), group, sizeof group);
        printf("run %s nodes %s ranks ", nz(rows[i].run_id),
               rows[i].nodes && *rows[i].nodes ? rows[i].nodes : "-");
        if (H5Lexists(f, group, H5P_DEFAULT) > 0 &&
            bl_h5_read_run(f, group, &r, &err) == 0) {
            for (size_t q = 0; q < r.nrank_rows; q++)
                printf("%s%d", q ? "," : "", r.rank_rows[q].node);
            if (r.nrank_rows == 0)
                printf("-");
            bl_h5_run_free(&r);
        } else {
            printf("-");
        }
        printf("\n");
    }
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    H5Fclose(f);
    return 0;
}

/* SRC's bytes as DIR/<id>.h5, its one run renamed <id>. */
static int copy_as(const char *buf, size_t len, const char *old,
                   const char *dir, const char *id)
{
    char path[4096], from[512], to[512];
    FILE *f;
    hid_t h, g;
    bl_h5_summary *rows;
    size_t n;
    bl_err err;
    int rc = 0;
    snprintf(path, sizeof path, "%s/%s.h5", dir, id);
    if (!(f = fopen(path, "wb")) || fwrite(buf, 1, len, f) != len) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    if ((h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0)
        return -1;
    snprintf(from, sizeof from, "runs/%s", old);
    snprintf(to, sizeof to, "runs/%s", id);
    rc |= H5Lmove(h, from, h, to, H5P_DEFAULT, H5P_DEFAULT) < 0;
    if ((g = H5Gopen2(h, to, H5P_DEFAULT)) >= 0) {
        rc |= bl_h5_attr_put_str(g, "run_id", id);
        H5Gclose(g);
    }
    if (bl_h5_table_read(h, &bl_h5_summary_def, (void **)&rows, &n, &err) ==
            0 && n == 1) {
        free(rows[0].run_id);
        rows[0].run_id = strdup(id);
        rc |= H5Ldelete(h, "summary", H5P_DEFAULT) < 0;
        rc |= bl_h5_table_write(h, &bl_h5_summary_def, rows, n, &err);
        bl_h5_table_free(&bl_h5_summary_def, rows, n);
    } else {
        rc = -1;
    }
    rc |= H5Fclose(h) < 0;
    return rc ? -1 : 0;
}

static int copies(const char *src, const char *dir, int n)
{
    FILE *f = fopen(src, "rb");
    char *buf, *old;
    long len;
    bl_h5_summary *rows;
    size_t nrows;
    bl_err err;
    hid_t h;
    if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) <= 0 ||
        fseek(f, 0, SEEK_SET) < 0 || !(buf = malloc((size_t)len)) ||
        fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "nodes_fixture: cannot read %s\n", src);
        return -1;
    }
    fclose(f);
    if ((h = bl_h5_open_read(src, &err)) < 0 ||
        bl_h5_table_read(h, &bl_h5_summary_def, (void **)&rows, &nrows,
                         &err) < 0 || nrows != 1) {
        fprintf(stderr, "nodes_fixture: %s: not a one-run sweep file\n", src);
        return -1;
    }
    H5Fclose(h);
    old = strdup(rows[0].run_id);
    bl_h5_table_free(&bl_h5_summary_def, rows, nrows);
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "c%05d", i);
        if (copy_as(buf, (size_t)len, old, dir, id) < 0) {
            fprintf(stderr, "nodes_fixture: cannot write copy %s\n", id);
            return -1;
        }
    }
    free(old);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "copies") == 0)
        return copies(argv[2], argv[3], atoi(argv[4])) < 0;
    if (argc == 5 && strcmp(argv[1], "write") == 0)
        return write_sweep(argv[2], argv[3], argv[4]) < 0;
    if (argc == 3 && strcmp(argv[1], "legacy") == 0)
        return write_legacy(argv[2]) < 0;
    if (argc == 3 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2]);
    fprintf(stderr, "usage: nodes_fixture write DIR XML HOST | legacy DIR | "
            "copies SRC DIR N | dump FILE\n");
    return 2;
}
