/* Measuring a matrix: one bindlab-app launch per (CPU NUMA node i, memory
 * NUMA node j) cell, or one c2c launch for the core-to-core matrix.
 *
 * The app is started directly (an MPI singleton): no launcher binds it,
 * so the OpenMP places alone pin its threads, to node i's PUs, and
 * --mem-policy bind:j puts every page on node j (the app records where
 * they went, and the cell keeps the fraction that is on j).
 *   latency:   one thread on the first PU of node i, --kernel latency;
 *              the cell is the run's ns_per_load (median of the timed
 *              steps), its spread the fastest and slowest step.
 *   bandwidth: one thread per core of node i (its first PU), --kernel
 *              triad; the cell is the run's GB/s (work / median step), its
 *              spread the rates of the slowest and fastest steps.
 *   c2c:       --kernel c2c on every PU this process may use (or --cpus);
 *              the app's own matrix. */
#include "matrix/matrix.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "allowed.h"
#include "cpuset.h"
#include "proc/launch.h"
#include "sys_util.h"
#include "units.h"

#define ARGV_MAX 24
#define ARG_LEN 4096

int bl_matrix_kind_ok(const char *kind)
{
    return kind && (strcmp(kind, "latency") == 0 ||
                    strcmp(kind, "bandwidth") == 0 ||
                    strcmp(kind, "c2c") == 0);
}

/* An argv or environment under construction: fixed storage, no shell. */
typedef struct args {
    char text[ARGV_MAX][ARG_LEN];
    char *v[ARGV_MAX + 1];
    int n;
} args;

static void add(args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(args *a, const char *fmt, ...)
{
    va_list ap;
    if (a->n >= ARGV_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(a->text[a->n], ARG_LEN, fmt, ap);
    va_end(ap);
    a->v[a->n] = a->text[a->n];
    a->v[++a->n] = NULL;
}

/* The largest data cache of the machine: its last level. */
static size_t largest_cache(hwloc_topology_t topo)
{
    size_t best = 0;
    for (int d = 0; d < hwloc_topology_get_depth(topo); d++) {
        hwloc_obj_t o = hwloc_get_obj_by_depth(topo, d, 0);
        if (o && hwloc_obj_type_is_dcache(o->type) &&
            o->attr->cache.size > best)
            best = (size_t)o->attr->cache.size;
    }
    return best;
}

/* OMP_PLACES text: "{a},{b},..." for the first PU of every core of set
 * (per_core), or only the first PU of set. Returns the number of places. */
static int places_of(hwloc_topology_t topo, hwloc_const_cpuset_t set,
                     int per_core, char *buf, size_t len, int *first_pu)
{
    hwloc_obj_t core = NULL;
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    *first_pu = -1;
    while ((core = hwloc_get_next_obj_inside_cpuset_by_type(
                topo, set, HWLOC_OBJ_CORE, core))) {
        hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(
            topo, core->cpuset, HWLOC_OBJ_PU, NULL);
        if (!pu)
            continue;
        if (*first_pu < 0)
            *first_pu = (int)pu->os_index;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s{%u}", n ? "," : "", pu->os_index);
        n++;
        if (!per_core)
            break;
    }
    return used < len ? n : -1;
}

/* Launches argv with env; on success reads the run file at out into run
 * (and machine, when it is still empty). -1 with why on any failure. */
static int launch_and_read(const bl_matrix_opts *o, args *argv, args *env,
                           const char *out, bl_h5_run *run,
                           bl_h5_machine *machine, bl_err *why)
{
    bl_launch_opts lo = {.argv = argv->v, .env = env->v,
                         .timeout_s = o->timeout_s};
    bl_launch_result res;
    bl_h5_machine m;
    int rc;
    memset(run, 0, sizeof *run);
    rc = bl_launch_run(&lo, &res, why);
    if (rc == 0)
        rc = bl_launch_require_success(&res, &lo, o->app, 3, why);
    bl_launch_result_free(&res);
    if (rc < 0)
        return -1;
    if (bl_h5_read_run_file(out, &m, run, why) < 0)
        return -1;
    if (!machine->hostname)
        *machine = m;
    else
        bl_h5_machine_free(&m);
    if (!run->result.verified)
        return bl_err_set(why, "%s: not verified: %s", out,
                          run->result.verify_detail ? run->result.verify_detail
                                                    : "");
    return 0;
}

static double metric_of(const bl_h5_run *r, const char *name)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (r->metrics[i].name && strcmp(r->metrics[i].name, name) == 0)
            return r->metrics[i].value;
    return NAN;
}

/* Fraction of the run's pages on NUMA node `logical` (the memory table
 * counts pages per node by hwloc logical index). */
static double pages_on(const bl_h5_run *r, int logical)
{
    long long on = 0, all = 0;
    for (size_t i = 0; i < r->nmemory; i++) {
        all += r->memory[i].pages;
        if (r->memory[i].numa_node == logical)
            on += r->memory[i].pages;
    }
    return all > 0 ? (double)on / (double)all : NAN;
}

/* What one cell's run gave: value and spread. */
static void cell_from_run(const char *kind, const bl_h5_run *r,
                          bl_h5_matrix *m, size_t c, int mem_logical)
{
    if (strcmp(kind, "latency") == 0) {
        m->values[c] = metric_of(r, "ns_per_load");
        m->spread_lo[c] = metric_of(r, "ns_per_load_min");
        m->spread_hi[c] = metric_of(r, "ns_per_load_max");
    } else {
        const bl_h5_result *x = &r->result;
        m->values[c] = x->rate;
        m->spread_lo[c] = x->max_s > 0 ? x->rate * x->median_s / x->max_s
                                       : NAN;
        m->spread_hi[c] = x->min_s > 0 ? x->rate * x->median_s / x->min_s
                                       : NAN;
    }
    m->samples[c] = r->iterations;
    m->pages_on_target[c] = pages_on(r, mem_logical);
    if (m->size_bytes == 0)
        m->size_bytes = r->size_bytes;
    m->threads = r->threads;
}

static void note_add(bl_strbuf *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_add(bl_strbuf *notes, const char *fmt, ...)
{
    va_list ap;
    if (notes->len)
        bl_strbuf_puts(notes, "; ");
    va_start(ap, fmt);
    bl_strbuf_vprintf(notes, fmt, ap);
    va_end(ap);
}

static void describe_numa(bl_h5_matrix *m, const char *kind)
{
    int lat = strcmp(kind, "latency") == 0;
    m->kind = strdup(kind);
    m->unit = strdup(lat ? "ns" : "GB/s");
    m->axis = strdup("numa");
    m->rows = strdup("CPU NUMA node (threads pinned to its PUs)");
    m->cols = strdup("memory NUMA node (--mem-policy bind)");
    m->method = strdup(
        lat ? "bindlab-app --kernel latency, one thread on the node's first "
              "PU: dependent loads over a random cycle, ns per load, median "
              "of the timed iterations"
            : "bindlab-app --kernel triad, one thread per core of the node: "
              "GB/s of the median iteration (24 bytes per element)");
    m->spread = strdup(lat ? "fastest and slowest timed iteration (ns per "
                             "load)"
                           : "rates of the slowest and fastest timed "
                             "iteration");
}

static void index_of_node(hwloc_topology_t topo, hwloc_obj_t node, int cpu,
                          bl_h5_matrix_index *x)
{
    char label[32];
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE,
                                                     node);
    x->os_index = (int)node->os_index;
    x->logical = (int)node->logical_index;
    x->cpu = cpu;
    x->numa = (int)node->logical_index;
    x->package = pkg ? (int)pkg->logical_index : -1;
    snprintf(label, sizeof label, "node %u", node->os_index);
    x->label = strdup(label);
}

/* One (i, j) cell of a latency or bandwidth matrix. */
static int measure_cell(const bl_matrix_opts *o, hwloc_topology_t topo,
                        int i, int j, bl_h5_matrix *m,
                        bl_h5_machine *machine, FILE *progress,
                        bl_strbuf *notes)
{
    hwloc_obj_t cn = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    hwloc_obj_t mn = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, j);
    int bw = strcmp(o->kind, "bandwidth") == 0, first_pu, nplaces;
    size_t c = (size_t)i * (size_t)m->n + (size_t)j;
    static args argv, env;
    char places[ARG_LEN], out[ARG_LEN], size[64];
    bl_h5_run run;
    bl_err why = {""};

    nplaces = places_of(topo, cn->cpuset, bw, places, sizeof places,
                        &first_pu);
    if (nplaces <= 0)
        return 0; /* a node without CPUs: its row stays NaN */
    m->order[i].cpu = first_pu;
    snprintf(out, sizeof out, "%s/%s-cpu%u-mem%u.h5", o->runs_dir, o->kind,
             cn->os_index, mn->os_index);
    argv.n = env.n = 0;
    add(&argv, "%s", o->app);
    add(&argv, "--kernel");
    add(&argv, "%s", bw ? "triad" : "latency");
    if (o->size)
        snprintf(size, sizeof size, "%s", o->size);
    else if (bw) {
        size_t s = 4 * largest_cache(topo);
        snprintf(size, sizeof size, "%zu",
                 s < ((size_t)256 << 20) ? (size_t)256 << 20 : s);
    } else
        size[0] = '\0';
    if (size[0]) {
        add(&argv, "--size");
        add(&argv, "%s", size);
    }
    if (!bw && o->huge_pages) {
        add(&argv, "--huge-pages");
        add(&argv, "%s", o->huge_pages);
    }
    add(&argv, "--iters");
    add(&argv, "%d", o->iters);
    add(&argv, "--warmup");
    add(&argv, "%d", o->warmup);
    add(&argv, "--mem-policy");
    add(&argv, "bind:%u", mn->os_index);
    add(&argv, "--out");
    add(&argv, "%s", out);
    add(&env, "OMP_NUM_THREADS=%d", nplaces);
    add(&env, "OMP_PLACES=%s", places);
    add(&env, "OMP_PROC_BIND=%s", bw ? "close" : "true");
    if (launch_and_read(o, &argv, &env, out, &run, machine, &why) < 0) {
        note_add(notes, "cell (node %u, node %u) not measured: %s",
                 cn->os_index, mn->os_index, why.msg);
        if (progress)
            fprintf(progress, "%s: CPU node %u, memory node %u: FAILED: %s\n",
                    o->kind, cn->os_index, mn->os_index, why.msg);
        bl_h5_run_free(&run);
        return -1;
    }
    cell_from_run(o->kind, &run, m, c, (int)mn->logical_index);
    if (progress)
        fprintf(progress, "%s: CPU node %u, memory node %u: %.4g %s "
                "(%.0f%% of pages on node %u; %s)\n", o->kind, cn->os_index,
                mn->os_index, m->values[c], m->unit,
                100.0 * m->pages_on_target[c], mn->os_index, out);
    bl_h5_run_free(&run);
    return 0;
}

static int measure_numa(const bl_matrix_opts *o, hwloc_topology_t topo,
                        bl_h5_matrix *m, bl_h5_machine *machine,
                        FILE *progress, bl_err *err)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), failed = 0;
    int measured = 0;
    bl_strbuf notes = {0};
    char *text;
    if (n <= 0)
        return bl_err_set(err, "hwloc finds no NUMA node on this machine");
    if (bl_h5_matrix_alloc(m, n, 1) < 0)
        return bl_err_set(err, "out of memory for a %dx%d matrix", n, n);
    describe_numa(m, o->kind);
    for (int i = 0; i < n; i++)
        index_of_node(topo, hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                                  i), -1, &m->order[i]);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t cn = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        if (hwloc_bitmap_iszero(cn->cpuset)) {
            note_add(&notes, "node %u has no CPUs: its row is empty",
                     cn->os_index);
            continue;
        }
        for (int j = 0; j < n; j++) {
            if (measure_cell(o, topo, i, j, m, machine, progress, &notes) < 0)
                failed++;
            else
                measured++;
        }
    }
    text = bl_strbuf_take(&notes);
    m->note = text ? text : strdup("");
    if (measured == 0)
        return bl_err_set(err, "no cell could be measured: %s",
                          m->note ? m->note : "");
    return failed ? 1 : 0;
}

/* "0-2,5" -> "{0},{1},{2},{5}": one place per PU of a --cpus list. */
static int cpulist_places(const char *list, char *buf, size_t len,
                          bl_err *err)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    size_t used = 0;
    int pu, rc = 0;
    if (!set)
        return bl_err_set(err, "out of memory");
    if (bl_cpuset_parse_list(list, set, err) < 0)
        rc = bl_err_prefix(err, "--cpus");
    else if (hwloc_bitmap_weight(set) < 2)
        rc = bl_err_set(err, "--cpus: '%s' names fewer than two CPUs; give "
                        "a list such as 0-3 or 0,8", list);
    if (rc < 0) {
        hwloc_bitmap_free(set);
        return -1;
    }
    buf[0] = '\0';
    hwloc_bitmap_foreach_begin(pu, set)
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s{%d}", used ? "," : "", pu);
    hwloc_bitmap_foreach_end();
    if (used >= len)
        rc = bl_err_set(err, "--cpus: '%s' is too long", list);
    hwloc_bitmap_free(set);
    return rc;
}

/* Core-to-core needs two CPUs the job may use: said before launching,
 * with the set and where it comes from (taskset, cgroup, Slurm). */
static int c2c_possible(bl_err *err)
{
    bl_allowed a;
    char list[256], from[512];
    int rc = bl_allowed_gather(&a, NULL, err);
    if (rc == 0 && bl_allowed_usable(&a) < 2) {
        bl_allowed_list(&a, list, sizeof list);
        bl_allowed_sources(&a, from, sizeof from);
        rc = bl_err_set(err, "c2c measures pairs of CPUs, but this job may "
                        "use %d: CPUs %s (%s); run it with two or more "
                        "(e.g. outside taskset, or a wider allocation)",
                        bl_allowed_usable(&a), list, from);
    }
    bl_allowed_free(&a);
    return rc;
}

static int measure_c2c(const bl_matrix_opts *o, bl_h5_matrix *m,
                       bl_h5_machine *machine, FILE *progress, bl_err *err)
{
    static args argv, env;
    char out[ARG_LEN];
    bl_h5_run run;
    if (!o->cpus && c2c_possible(err) < 0)
        return -1;
    argv.n = env.n = 0;
    snprintf(out, sizeof out, "%s/c2c.h5", o->runs_dir);
    add(&argv, "%s", o->app);
    add(&argv, "--kernel");
    add(&argv, "c2c");
    add(&argv, "--iters");
    add(&argv, "%d", o->iters);
    add(&argv, "--warmup");
    add(&argv, "%d", o->warmup);
    if (o->round_trips > 0) {
        add(&argv, "--round-trips");
        add(&argv, "%ld", o->round_trips);
    }
    add(&argv, "--out");
    add(&argv, "%s", out);
    add(&env, "OMP_NUM_THREADS=1");
    if (o->cpus) {
        /* the rank's binding is the union of its places: exactly these */
        char places[ARG_LEN];
        if (cpulist_places(o->cpus, places, sizeof places, err) < 0)
            return -1;
        add(&env, "OMP_PLACES=%s", places);
        add(&env, "OMP_PROC_BIND=true");
    }
    if (launch_and_read(o, &argv, &env, out, &run, machine, err) < 0) {
        bl_h5_run_free(&run);
        return -1;
    }
    if (!run.matrix) {
        bl_h5_run_free(&run);
        return bl_err_set(err, "%s holds no matrix (run/matrices/c2c)", out);
    }
    *m = *run.matrix;
    free(run.matrix);
    run.matrix = NULL;
    if (progress)
        fprintf(progress, "c2c: %d PUs measured (%s)\n", m->n, out);
    bl_h5_run_free(&run);
    return 0;
}

int bl_matrix_measure(const bl_matrix_opts *o, hwloc_topology_t topo,
                      bl_h5_matrix *m, bl_h5_machine *machine,
                      FILE *progress, bl_err *err)
{
    memset(m, 0, sizeof *m);
    memset(machine, 0, sizeof *machine);
    if (!bl_matrix_kind_ok(o->kind))
        return bl_err_set(err, "'%s' is not a matrix; accepted: latency, "
                          "bandwidth, c2c", o->kind ? o->kind : "");
    if (bl_mkdir_p(o->runs_dir, err) < 0)
        return -1;
    if (strcmp(o->kind, "c2c") == 0)
        return measure_c2c(o, m, machine, progress, err);
    return measure_numa(o, topo, m, machine, progress, err);
}
