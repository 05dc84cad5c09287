/* Writes the per-run sweep files of a made-up but realistic triad+stencil
 * sweep on a 2-core node into DIR (DIR/r0000.h5 ...), through the same
 * writer the harness uses (bl_h5_write_sweep_run), for test_report_cli.sh.
 *
 *   report_fixture DIR         the sweep (12 runs; r0001 took 2 launches:
 *                              the first died before the app started)
 *   report_fixture DIR other   one run r0000 of a different sweep (the
 *                              same run id with another label)
 *   report_fixture DIR many N  N runs (a size test for report --html): N/5
 *                              layouts L000, L001, ... of 5 repetitions
 *                              each (run ids L000.1 ... L000.5), every 50th
 *                              run failed, every 7th flagged migrated, on
 *                              a machine recorded as emulated
 *   report_fixture DIR many N big  the same on a bigger machine (2
 *                              packages x 4 NUMA nodes x 8 cores x 2 PUs,
 *                              not emulated), every run 8 ranks x 16
 *                              threads, layout k's threads shifted by k
 *                              CPUs (bench/report_html.sh)
 *   report_fixture FILE.h5 matrix  adds a 2 x 2 latency matrix (NUMA
 *                              nodes; 80 ns local, 140 ns remote) as
 *                              /matrices/latency of an existing file
 *   report_fixture DIR xeon    5 runs of the same kernels on another
 *                              machine (2 packages, 2 NUMA nodes, 2 L3,
 *                              8 cores), for bindlab compare
 *   report_fixture DIR ties    7 triad layouts A..G with repetitions whose
 *                              rates are chosen so that the tie groups of
 *                              bindlab report can be worked out by hand
 *                              (test_report_ties.sh), plus a failed run
 *
 * Rates are of the order measured on the development VM (docs/kernels/
 * stencil.md: triad 8.5-14.6 GB/s, stencil 500-600 MLUP/s).
 *
 * Each run with a result records where its threads ran and its pages, by
 * a rule simple enough to check by hand (tests/integration/
 * test_report_html.sh): thread g = rank * threads + thread ends on CPU
 * g % PUs; a run flagged "migrated" started each thread on CPU
 * (g + 1) % PUs (2 migrations); each rank has 131072 pages, the run's
 * local fraction of them (rounded) on the NUMA node of its first thread,
 * the rest "not present" on a one-node machine, else on the next node.
 * The machines' topology XML is hwloc's own export of a synthetic
 * topology: "pack:1 core:2 pu:1" (the VM) and "pack:2 numa:1 l3:1 core:4
 * pu:1" (xeon). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "results/results_file.h"

typedef struct spec {
    const char *run_id, *kernel, *map_by, *bind_to, *places, *proc_bind,
        *init, *status;
    int np, threads;
    double rate;          /* 0: no result (the app wrote no run file) */
    int verified;
    double local;
    const char *flags;
    int exit_status, timed_out;
} spec;

static const spec runs[] = {
    {"r0000", "triad", "slot:PE=2", "core", "cores", "close", "parallel",
     "ok", 1, 2, 8.52, 1, 1.0, "", 0, 0},
    {"r0001", "triad", "slot:PE=2", "core", "cores", "spread", "parallel",
     "ok", 1, 2, 8.31, 1, 1.0, "", 0, 0},
    {"r0002", "triad", "slot:PE=2", "core", "cores", "close", "serial",
     "ok", 1, 2, 7.94, 1, 1.0, "", 0, 0},
    {"r0003", "triad", "slot", "none", "", "", "parallel",
     "ok", 1, 2, 6.10, 1, 1.0, "omp-unbound", 0, 0},
    {"r0004", "triad", "core", "core", "cores", "close", "parallel",
     "ok", 2, 1, 14.6, 1, 1.0, "", 0, 0},
    {"r0005", "triad", "core", "none", "", "", "parallel",
     "ok", 2, 1, 11.2, 1, 1.0, "omp-unbound,migrated", 0, 0},
    /* an explicit place list: the commas must survive CSV quoting */
    {"r0006", "triad", "ppr:1:core", "core", "{0:1},{1:1}", "close",
     "parallel", "failed", 2, 1, 0, 0, -1, "", 1, 0},
    {"r0007", "triad", "slot:PE=2", "core", "threads", "spread", "parallel",
     "timeout", 1, 2, 0, 0, -1, "", 137, 1},
    {"r0008", "triad", "core", "core", "cores", "close", "parallel",
     "invalid", 3, 1, 0, 0, -1, "", 0, 0},
    /* fastest number of all, but the answer was wrong: ranks last */
    {"r0009", "triad", "core", "hwthread", "threads", "close", "parallel",
     "ok", 2, 1, 15.9, 0, 1.0, "", 0, 0},
    {"r0010", "stencil", "core", "core", "cores", "close", "parallel",
     "ok", 2, 1, 600.0, 1, 1.0, "", 0, 0},
    {"r0011", "stencil", "core", "none", "", "", "parallel",
     "ok", 2, 1, 583.0, 1, 0.98, "omp-unbound", 0, 0},
};

/* "many" mode: the repetition of the run written next, and the machine's
 * virtualization string. */
static int g_repetition;
static const char *g_virtualization = "";
/* "xeon" mode: the machine of every run written (else the 2-core VM's) */
static bl_h5_machine *g_machine;
/* "many N big": the CPU offset of the layout written next */
static int g_cpu_offset;
/* the sweep (no mode): the run written next took a second launch */
static int g_retried;

/* hwloc's XML of a synthetic topology (malloc'ed), or NULL. */
static char *synthetic_xml(const char *desc)
{
    hwloc_topology_t t;
    char *xml = NULL, *copy = NULL;
    int len;
    if (hwloc_topology_init(&t) < 0)
        return NULL;
    if (hwloc_topology_set_synthetic(t, desc) == 0 &&
        hwloc_topology_load(t) == 0 &&
        hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) == 0) {
        copy = strdup(xml);
        hwloc_free_xmlbuffer(t, xml);
    }
    hwloc_topology_destroy(t);
    return copy;
}

enum { PAGES = 131072 };

/* The placement and memory rows of run s (see the top of the file). */
static int placement_rows(const spec *s, const bl_h5_machine *m,
                          bl_h5_run *app)
{
    static char cpus[256][12];
    static bl_h5_placement pl[256];
    static bl_h5_memory mem[64];
    int per_numa = m->pus / (m->numa_nodes > 0 ? m->numa_nodes : 1);
    int migrated = strstr(s->flags, "migrated") != NULL;
    size_t np = 0, nm = 0;
    if (s->np * s->threads > 256 || s->np > 32)
        return -1;
    for (int r = 0; r < s->np; r++) {
        int first = (r * s->threads + g_cpu_offset) % m->pus;
        int own = first / per_numa;
        long long local = (long long)(s->local * PAGES + 0.5);
        for (int t = 0; t < s->threads; t++) {
            int g = r * s->threads + t, cpu = (g + g_cpu_offset) % m->pus;
            bl_h5_placement *p = &pl[np++];
            snprintf(cpus[g], sizeof cpus[g], "%d", cpu);
            memset(p, 0, sizeof *p);
            p->rank = r;
            p->thread = t;
            p->host = m->hostname;
            p->rank_cpuset = "";
            p->cpuset = cpus[g];
            p->cpu_last = cpu;
            p->cpu_first = migrated ? (cpu + 1) % m->pus : cpu;
            p->migrations = migrated ? 2 : 0;
            p->core = cpu / (m->pus / m->cores);
            p->l3 = p->numa = cpu / per_numa;
            p->package = cpu / (m->pus / m->packages);
            p->pid = 1000 + r;
        }
        mem[nm++] = (bl_h5_memory){r, own, local};
        if (local < PAGES)
            mem[nm++] = (bl_h5_memory){r, m->numa_nodes > 1
                                              ? (own + 1) % m->numa_nodes : -1,
                                       PAGES - local};
    }
    app->placement = pl;
    app->nplacement = np;
    app->memory = mem;
    app->nmemory = nm;
    return 0;
}

static void label(const spec *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s np%d map=%s bind=%s places=%s proc_bind=%s t=%d "
             "init=%s", s->kernel, s->np, s->map_by, s->bind_to,
             s->places[0] ? s->places : "unset",
             s->proc_bind[0] ? s->proc_bind : "unset", s->threads, s->init);
}

static int write_one(const char *dir, const spec *s, const char *label_text)
{
    static bl_h5_machine m = {
        .hostname = "vm-2core", .cpu_model = "AMD EPYC 7B13",
        .mpi_library_version = "Open MPI v4.1.4", .compiler = "gcc 12.2.0",
        .omp_runtime = "libgomp.so.1", .kernel_release = "6.1.0-18-amd64",
        .topology_xml = NULL, .packages = 1, .numa_nodes = 1,
        .l3_domains = 1, .cores = 2, .pus = 2, .numa_balancing = 0};
    const int iters = 10;
    double timings[10 * 8];   /* iterations x ranks, up to np 8 */
    int stencil = strcmp(s->kernel, "stencil") == 0;
    double work = stencil ? 8000.0 * 8000.0 / 1e6 : 536870912.0 * 4 / 3 / 1e9;
    char path[4096], argv[512], lbl[512];
    bl_h5_harness h = {0};
    bl_h5_run app = {0};
    bl_err err;

    m.virtualization = (char *)g_virtualization;
    if (!m.topology_xml && !(m.topology_xml = synthetic_xml("pack:1 core:2 pu:1")))
        return -1;

    label(s, lbl, sizeof lbl);
    h.run_id = (char *)s->run_id;
    h.label = (char *)(label_text ? label_text : lbl);
    h.name = "";
    h.status = (char *)s->status;
    h.repetition = g_repetition;
    h.np = s->np;
    h.threads = s->threads;
    h.kernel = (char *)s->kernel;
    h.kernel_args = stencil ? "--grid 8000 --radius 2" : "--size 512MiB";
    h.map_by = h.map_by_launcher = (char *)s->map_by;
    h.bind_to = h.bind_to_launcher = (char *)s->bind_to;
    h.rank_by = "";
    h.omp_places = (char *)s->places;
    h.omp_proc_bind = (char *)s->proc_bind;
    h.init = (char *)s->init;
    h.launcher = "mpirun";
    snprintf(argv, sizeof argv, "mpirun -np %d --map-by %s --bind-to %s "
             "--report-bindings bindlab-app --kernel %s", s->np, s->map_by,
             s->bind_to, s->kernel);
    h.argv = argv;
    h.exit_status = s->exit_status;
    h.timed_out = s->timed_out;
    h.term_signal = s->timed_out ? 9 : 0;
    h.flags = (char *)s->flags;
    h.stderr_tail = strcmp(s->status, "failed") == 0
                        ? "bindlab-app: --kernel triad: verification aborted"
                        : "";
    h.reason = strcmp(s->status, "invalid") == 0
                   ? "np 3 needs 3 slots, but this node has 2" : "";
    h.binding_report = "";
    h.attempts = strcmp(s->status, "invalid") == 0 ? 0 : 1;
    if (g_retried) {
        static bl_h5_retry first = {
            1, 1700000000.0, 0.7, 139, 0,
            "exit status 139, no run file: mpirun noticed that process "
            "rank 1 with PID 0 on node vm exited on signal 11 "
            "(Segmentation fault).", "r0001.try1.log"};
        h.attempts = 2;
        h.retries = &first;
        h.nretries = 1;
    }
    if (s->rate > 0) {
        app.kernel = (char *)s->kernel;
        app.args = h.kernel_args;
        app.init = (char *)s->init;
        app.status = "ok";
        app.iterations = iters;
        app.ranks = s->np;
        app.threads = s->threads;
        app.result.median_s = work / s->rate;
        app.result.min_s = 0.97 * app.result.median_s;
        app.result.max_s = 1.08 * app.result.median_s;
        app.result.rate = s->rate;
        app.result.rate_unit = stencil ? "MLUP/s" : "GB/s";
        app.result.verified = s->verified;
        app.result.local_page_fraction = s->local;
        for (int i = 0; i < iters * s->np; i++)
            timings[i] = app.result.median_s * (1.0 + 0.01 * (i % 3));
        app.timings = timings;
        if (placement_rows(s, g_machine ? g_machine : &m, &app) < 0)
            return -1;
        h.wall_s = 1.2 + iters * app.result.median_s;
        h.app_s = iters * app.result.median_s;
    } else {
        h.wall_s = s->timed_out ? 30.0 : 0.4;
    }
    snprintf(path, sizeof path, "%s/%s.h5", dir, s->run_id);
    if (bl_h5_write_sweep_run(AT_FDCWD, path, "bindlab sweep configs/sweeps/test.yaml",
                              s->rate > 0 ? (g_machine ? g_machine : &m) : NULL,
                              1, s->rate > 0 ? &app : NULL,
                              &h, &err) < 0) {
        fprintf(stderr, "report_fixture: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int write_many(const char *dir, int n, int big)
{
    static bl_h5_machine bigm = {
        .hostname = "big-2s", .cpu_model = "AMD EPYC 7543",
        .mpi_library_version = "Open MPI v4.1.4", .compiler = "gcc 12.2.0",
        .omp_runtime = "libgomp.so.1", .kernel_release = "6.1.0-18-amd64",
        .packages = 2, .numa_nodes = 8, .l3_domains = 8, .cores = 64,
        .pus = 128, .numa_balancing = 0, .virtualization = ""};
    if (big) {
        if (!(bigm.topology_xml = synthetic_xml("pack:2 numa:4 core:8 pu:2")))
            return -1;
        g_machine = &bigm;
    }
    static const char *const maps[] = {"core", "slot:PE=2", "numa", "l3cache"};
    static const char *const binds[] = {"core", "none", "hwthread", "numa"};
    for (int i = 0; i < n; i++) {
        int layout = i / 5;
        char id[32], lbl[128];
        spec s = runs[0];
        snprintf(id, sizeof id, "L%03d.%d", layout, i % 5 + 1);
        s.run_id = id;
        s.map_by = maps[layout % 4];
        s.bind_to = binds[(layout / 4) % 4];
        s.np = big ? 8 : 1 + layout % 2;
        s.threads = big ? 16 : 2 / s.np;
        s.local = big ? 0.9 : 1.0;
        g_cpu_offset = big ? layout : 0;
        /* rates 5..15 GB/s by layout, a little spread over repetitions */
        s.rate = 5.0 + (double)(layout * 37 % 100) / 10.0 + 0.05 * (i % 5);
        s.flags = i % 7 == 0 ? "migrated" : "";
        if (i % 50 == 49) {
            s.status = "failed";
            s.rate = 0;
            s.exit_status = 1;
        }
        g_repetition = i % 5 + 1;
        snprintf(lbl, sizeof lbl, "triad layout L%03d np%d map=%s bind=%s",
                 layout, s.np, s.map_by, s.bind_to);
        if (write_one(dir, &s, lbl) < 0)
            return -1;
    }
    return 0;
}

/* The same meanings as some runs above on a node with 4x the cores and 2
 * NUMA nodes: x0 is r0004's (2 ranks per NUMA node, all cores), x1 and x2
 * two repetitions of r0000's (1 rank per NUMA node), x3 4 ranks per NUMA
 * node (no run above), x4 r0011's (stencil, bind_to none). */
static int write_xeon(const char *dir)
{
    static bl_h5_machine xeon = {
        .hostname = "xeon-8core", .cpu_model = "Intel Xeon Gold 6130",
        .mpi_library_version = "Open MPI v4.1.4", .compiler = "gcc 12.2.0",
        .omp_runtime = "libgomp.so.1", .kernel_release = "6.1.0-18-amd64",
        .topology_xml = NULL, .packages = 2, .numa_nodes = 2,
        .l3_domains = 2, .cores = 8, .pus = 8, .numa_balancing = 0,
        .virtualization = ""};
    static const spec x[] = {
        {"x0", "triad", "ppr:2:numa:PE=2", "core", "cores", "close",
         "parallel", "ok", 4, 2, 40.0, 1, 1.0, "", 0, 0},
        {"x1.1", "triad", "ppr:1:numa:PE=4", "core", "cores", "close",
         "parallel", "ok", 2, 4, 30.0, 1, 1.0, "", 0, 0},
        {"x1.2", "triad", "ppr:1:numa:PE=4", "core", "cores", "close",
         "parallel", "ok", 2, 4, 32.0, 1, 1.0, "", 0, 0},
        {"x3", "triad", "core", "core", "cores", "close", "parallel",
         "ok", 8, 1, 45.0, 1, 1.0, "", 0, 0},
        {"x4", "stencil", "ppr:2:numa:PE=2", "none", "", "", "parallel",
         "ok", 4, 2, 2000.0, 1, 1.0, "omp-unbound", 0, 0},
    };
    g_machine = &xeon;
    if (!(xeon.topology_xml = synthetic_xml("pack:2 numa:1 l3:1 core:4 pu:1")))
        return -1;
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        g_repetition = strcmp(x[i].run_id, "x1.2") == 0 ? 2 : 1;
        if (write_one(dir, &x[i], NULL) < 0)
            return -1;
    }
    return 0;
}

/* "ties" mode: layout X's repetitions get the rates listed (GB/s). */
static int write_ties(const char *dir)
{
    static const struct {
        const char *name;
        int n;
        double rates[9];
    } l[] = {
        {"A", 5, {10.0, 10.2, 10.4, 10.6, 10.8}},
        {"B", 5, {9.0, 9.5, 9.9, 10.1, 10.3}},
        {"C", 5, {8.0, 8.5, 9.0, 9.2, 9.6}},
        {"D", 9, {7.0, 7.1, 7.2, 7.3, 7.4, 7.5, 7.6, 7.7, 7.8}},
        {"E", 9, {7.5, 7.6, 7.7, 7.8, 7.9, 8.0, 8.1, 8.2, 8.3}},
        {"F", 9, {7.0, 7.6, 7.61, 7.62, 7.63, 7.64, 7.65, 7.66, 8.5}},
        {"G", 1, {5.0}},
    };
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
        for (int r = 0; r < l[i].n; r++) {
            char id[32], lbl[64];
            spec s = runs[4];
            snprintf(id, sizeof id, "t%s.%d", l[i].name, r + 1);
            snprintf(lbl, sizeof lbl, "triad layout %s", l[i].name);
            s.run_id = id;
            s.rate = l[i].rates[r];
            s.flags = "";
            g_repetition = r + 1;
            if (write_one(dir, &s, lbl) < 0)
                return -1;
        }
    {   /* a failed repetition of A: no rate, in no tie group */
        spec s = runs[6];
        s.run_id = "tA.6";
        g_repetition = 6;
        return write_one(dir, &s, "triad layout A");
    }
}

static int add_matrix(const char *path)
{
    static const double v[4] = {80, 140, 140, 80};
    bl_h5_matrix m;
    bl_err err;
    hid_t f;
    int rc;
    if (bl_h5_matrix_alloc(&m, 2, 0) < 0)
        return -1;
    m.kind = strdup("latency");
    m.unit = strdup("ns");
    m.axis = strdup("numa");
    m.rows = strdup("CPU NUMA node");
    m.cols = strdup("memory NUMA node");
    m.method = strdup("written by report_fixture");
    m.spread = strdup("min and max");
    m.note = strdup("");
    for (int i = 0; i < 4; i++) {
        m.values[i] = v[i];
        m.spread_lo[i] = v[i] - 1;
        m.spread_hi[i] = v[i] + 1;
        m.samples[i] = 5;
    }
    for (int i = 0; i < 2; i++) {
        char label[32];
        snprintf(label, sizeof label, "node %d", i);
        m.order[i] = (bl_h5_matrix_index){i, i, i, i, i, 0, i, i, strdup(label)};
    }
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    rc = f < 0 ? -1 : bl_h5_matrix_write(f, &m, &err);
    if (f >= 0)
        H5Fclose(f);
    if (rc < 0)
        fprintf(stderr, "report_fixture: %s: cannot add a matrix\n", path);
    bl_h5_matrix_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "ties") == 0)
        return write_ties(argv[1]) < 0;
    if (argc == 3 && strcmp(argv[2], "matrix") == 0)
        return add_matrix(argv[1]) < 0;
    if (argc == 3 && strcmp(argv[2], "xeon") == 0)
        return write_xeon(argv[1]) < 0;
    if (argc == 4 && strcmp(argv[2], "many") == 0) {
        g_virtualization = "emulated: QEMU TCG (report_fixture)";
        return write_many(argv[1], atoi(argv[3]), 0) < 0;
    }
    if (argc == 5 && strcmp(argv[2], "many") == 0 &&
        strcmp(argv[4], "big") == 0)
        return write_many(argv[1], atoi(argv[3]), 1) < 0;
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "other"))) {
        fprintf(stderr, "usage: report_fixture DIR [other | many N [big] | xeon | "
                "ties]\n");
        return 2;
    }
    if (argc == 3) {
        spec other = runs[10];
        other.run_id = "r0000";
        return write_one(argv[1], &other, "stencil np2 map=core bind=core "
                         "(another sweep)") < 0;
    }
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        g_retried = strcmp(runs[i].run_id, "r0001") == 0;
        if (write_one(argv[1], &runs[i], NULL) < 0)
            return 1;
    }
    return 0;
}
