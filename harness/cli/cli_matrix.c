/* bindlab matrix: latency and bandwidth between every CPU NUMA node and
 * every memory NUMA node, and core-to-core latency, measured by
 * bindlab-app (harness/matrix/matrix_run.c), kept in HDF5 and drawn as SVG or
 * PNG heatmaps (matrix.c, matrix_svg.c, matrix_png.c). This file reads the options and
 * prints. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "matrix/matrix.h"
#include "same_file.h"
#include "sys_util.h"
#include "topo.h"
#include "units.h"

#define VERB "matrix"
#define DEFAULT_TIMEOUT_S 1800.0

static const char help[] =
    "usage: bindlab matrix latency|bandwidth|c2c -o FILE.h5 [options]\n"
    "       bindlab matrix show FILE.h5 [--kind KIND] [--svg PICTURE.svg]\n"
    "                                   [--png PICTURE.png]\n"
    "\n"
    "latency    ns per load for every (CPU NUMA node i, memory NUMA node j):\n"
    "           bindlab-app --kernel latency (a dependent-load chase over a\n"
    "           random cycle) with one thread on node i's first PU and\n"
    "           --mem-policy bind:j. Like Intel MLC --latency_matrix.\n"
    "bandwidth  GB/s for every (i, j): --kernel triad with one thread per\n"
    "           core of node i, memory bound to node j. Like MLC\n"
    "           --bandwidth_matrix (MLC's default mix is reads only; this is\n"
    "           the triad's 2 reads + 1 write).\n"
    "c2c        round-trip ns for every pair of PUs this process may use\n"
    "           (or --cpus): --kernel c2c, one cache line bounced between two\n"
    "           pinned threads by compare-and-swap. Above 64 PUs a stated\n"
    "           subset (every k-th core, with all its PUs).\n"
    "\n"
    "Each cell is one run of bindlab-app, started directly (an MPI\n"
    "singleton: its OpenMP places pin the threads); its run file is kept\n"
    "in --runs DIR. The matrix goes to FILE.h5 as /matrices/KIND (values,\n"
    "unit, spread, samples, the order of rows and columns with their\n"
    "hwloc objects; latency and bandwidth also the fraction of each\n"
    "cell's pages found on its memory node). Other kinds already in FILE.h5\n"
    "are kept, so one file can hold all three. The table is printed.\n"
    "\n"
    "options:\n"
    "  -o FILE.h5         the matrix file (required when measuring)\n"
    "  --svg PICTURE.svg  also draw the heatmap (packages, NUMA nodes, L3\n"
    "                     domains and SMT siblings marked along the axes)\n"
    "  --png PICTURE.png  the same heatmap as a PNG, without its text (the\n"
    "                     rows' labels are in its tEXt chunks)\n"
    "  --size SIZE        latency: the chased buffer (default 4 x the\n"
    "                     last-level cache, at least 256MiB); bandwidth:\n"
    "                     triad's three arrays (the same default)\n"
    "  --iters N          timed iterations per run (default 5)\n"
    "  --warmup N         untimed ones before them (default 1)\n"
    "  --huge-pages off|thp|hugetlb   latency: see bindlab-app --help\n"
    "  --round-trips N    c2c: per pair and iteration (default 2048)\n"
    "  --cpus LIST        c2c: the PUs to measure, e.g. 0-3,8\n"
    "  --runs DIR         the run files (default FILE.d beside FILE.h5)\n"
    "  --app PATH         bindlab-app (default: beside bindlab, else PATH)\n"
    "  --timeout S        per run, seconds (default 1800)\n"
    "\n"
    "show prints a matrix of FILE.h5 (a matrix file, or a c2c run file of\n"
    "bindlab-app) and draws it with --svg and --png.\n"
    "\n"
    "Exit status: 0 every cell measured and verified, 1 some cell failed\n"
    "(its cell is empty and the note says why; the file is still written)\n"
    "or nothing could be measured, 2 bad usage.\n";

typedef struct options {
    const char *kind, *out, *svg, *png, *size, *iters, *warmup, *huge, *trips,
        *cpus, *runs, *app, *timeout, *show_kind, *input;
} options;

static int set_word(void *opts, const char *v, bl_err *err)
{
    options *o = opts;
    if (!o->kind)
        o->kind = v;
    else if (strcmp(o->kind, "show") == 0 && !o->input)
        o->input = v;
    else
        return bl_err_set(err, "unexpected argument '%s'", v);
    return 0;
}

/* Every value is kept as text here; check_measure and show read them. */
#define SLOT(field) offsetof(options, field)
static const bl_cli_opt matrix_options[] = {
    {"-o", BL_OPT_VALUE, "FILE.h5", "the matrix file", SLOT(out), NULL,
     NULL},
    {"--svg", BL_OPT_VALUE, "PICTURE.svg", "also draw the heatmap",
     SLOT(svg), NULL, NULL},
    {"--png", BL_OPT_VALUE, "PICTURE.png", "the heatmap as a PNG",
     SLOT(png), NULL, NULL},
    {"--size", BL_OPT_VALUE, "SIZE", "latency, bandwidth: the buffer",
     SLOT(size), NULL, NULL},
    {"--iters", BL_OPT_VALUE, "N", "timed iterations per run", SLOT(iters),
     NULL, NULL},
    {"--warmup", BL_OPT_VALUE, "N", "untimed iterations before them",
     SLOT(warmup), NULL, NULL},
    {"--huge-pages", BL_OPT_VALUE, "off|thp|hugetlb", "latency: the pages",
     SLOT(huge), NULL, NULL},
    {"--round-trips", BL_OPT_VALUE, "N", "c2c: per pair and iteration",
     SLOT(trips), NULL, NULL},
    {"--cpus", BL_OPT_VALUE, "LIST", "c2c: the PUs to measure", SLOT(cpus),
     NULL, NULL},
    {"--runs", BL_OPT_VALUE, "DIR", "the run files", SLOT(runs), NULL, NULL},
    {"--app", BL_OPT_VALUE, "PATH", "bindlab-app", SLOT(app), NULL, NULL},
    {"--timeout", BL_OPT_VALUE, "S", "per run, seconds", SLOT(timeout), NULL,
     NULL},
    {"--kind", BL_OPT_VALUE, "KIND", "show: which matrix of the file",
     SLOT(show_kind), NULL, NULL},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = matrix_options,
    .nopts = BL_CLI_NOPTS(matrix_options), .positional = set_word};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    int rc;
    memset(o, 0, sizeof *o);
    if ((rc = bl_cli_parse(&spec, argc, argv, o)) >= 0)
        return rc;
    if (!o->kind)
        return bl_cli_usage_error(VERB, "which matrix? latency, bandwidth, "
                                  "c2c (or show FILE.h5)");
    /* no output may replace an input (show's file, the app), before any
     * work */
    const char *inputs[] = {o->input, o->app}, *outputs[] = {o->out, o->svg,
                                                            o->png};
    for (size_t i = 0; i < 3; i++) {
        bl_err err;
        if (bl_check_output_not_input(outputs[i], inputs, 2, &err) < 0) {
            fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
            return BL_EXIT_USAGE;
        }
    }
    return -1;
}

/* A whole-number option: -1 when absent or good (*out set when given),
 * else the usage exit status. */
static int opt_count(const char *text, const char *name, long min,
                     long *out)
{
    bl_err err;
    if (!text)
        return -1;
    if (bl_parse_long(text, name, min, 1000000000L, out, &err) < 0)
        return bl_cli_usage_error(VERB, "%s", err.msg);
    return -1;
}

/* The measuring options from the text ones; -1 to go on, or a status. */
static int check_measure(const options *o, bl_matrix_opts *mo,
                         char *runs, size_t runs_len, char *app,
                         size_t app_len)
{
    int rc;
    bl_err err;
    const int c2c = strcmp(o->kind, "c2c") == 0;
    memset(mo, 0, sizeof *mo);
    mo->kind = o->kind;
    if (!bl_matrix_kind_ok(o->kind))
        return bl_cli_usage_error(VERB, "'%s' is not a matrix; accepted: "
                                  "latency, bandwidth, c2c, show", o->kind);
    if (!o->out)
        return bl_cli_usage_error(VERB, "-o FILE.h5 is required");
    if ((o->huge && strcmp(o->kind, "latency") != 0) ||
        ((o->trips || o->cpus) && !c2c) || (o->size && c2c) || o->show_kind)
        return bl_cli_usage_error(VERB, "%s: not an option of 'bindlab "
                                  "matrix %s'", o->huge    ? "--huge-pages"
                                                : o->trips ? "--round-trips"
                                                : o->cpus  ? "--cpus"
                                                : o->size  ? "--size"
                                                           : "--kind",
                                  o->kind);
    if (o->huge && strcmp(o->huge, "off") && strcmp(o->huge, "thp") &&
        strcmp(o->huge, "hugetlb"))
        return bl_cli_usage_error(VERB, "--huge-pages: '%s' is not accepted; "
                                  "use off, thp or hugetlb", o->huge);
    if (o->size) {
        size_t bytes;
        if (bl_parse_size(o->size, "--size", &bytes, &err) < 0)
            return bl_cli_usage_error(VERB, "%s", err.msg);
    }
    mo->size = o->size;
    mo->huge_pages = o->huge;
    mo->cpus = o->cpus;
    long iters = BL_MATRIX_LAT_ITERS, warmup = 1, trips = 0;
    long timeout = (long)DEFAULT_TIMEOUT_S;
    if ((rc = opt_count(o->iters, "--iters", 1, &iters)) != -1 ||
        (rc = opt_count(o->warmup, "--warmup", 0, &warmup)) != -1 ||
        (rc = opt_count(o->trips, "--round-trips", 64, &trips)) != -1 ||
        (rc = opt_count(o->timeout, "--timeout", 1, &timeout)) != -1)
        return rc;
    mo->iters = (int)iters;
    mo->warmup = (int)warmup;
    mo->round_trips = trips;
    mo->timeout_s = (double)timeout;
    if (bl_matrix_check_target(o->out, &err) < 0 ||
        (o->svg && bl_atomic_check_target(o->svg, &err) < 0) ||
        (o->png && bl_atomic_check_target(o->png, &err) < 0)) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        return BL_EXIT_USAGE;
    }
    if (o->runs) {
        snprintf(runs, runs_len, "%s", o->runs);
    } else {
        /* FILE.h5 -> FILE.d, as a sweep keeps results/NAME.d */
        size_t len = strlen(o->out);
        if (len > 3 && strcmp(o->out + len - 3, ".h5") == 0)
            len -= 3;
        snprintf(runs, runs_len, "%.*s.d", (int)len, o->out);
    }
    mo->runs_dir = runs;
    if (o->app)
        snprintf(app, app_len, "%s", o->app);
    else if (bl_beside_self("bindlab-app", app, app_len, NULL) < 0 ||
             access(app, X_OK) != 0)
        snprintf(app, app_len, "bindlab-app");
    mo->app = app;
    return -1;
}

static char *command_line(int argc, char **argv)
{
    bl_strbuf b = {0};
    bl_strbuf_puts(&b, "bindlab");
    for (int i = 0; i < argc; i++) {
        bl_strbuf_puts(&b, " ");
        bl_strbuf_puts(&b, argv[i]);
    }
    return bl_strbuf_take(&b);
}

/* The pictures asked for (--svg, --png), each written atomically. */
static int draw(const options *o, const bl_h5_matrix *m)
{
    bl_err err;
    int rc = BL_EXIT_OK;
    if (o->svg && bl_matrix_svg_write(o->svg, m, &err) < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        rc = BL_EXIT_FAILED;
    } else if (o->svg) {
        printf("bindlab %s: drew %s\n", VERB, o->svg);
    }
    if (o->png && bl_matrix_png_write(o->png, m, &err) < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        rc = BL_EXIT_FAILED;
    } else if (o->png) {
        printf("bindlab %s: drew %s\n", VERB, o->png);
    }
    return rc;
}

static int show(const options *o)
{
    bl_h5_matrix m;
    bl_err err;
    int rc = BL_EXIT_OK;
    if (!o->input)
        return bl_cli_usage_error(VERB, "show: which file? bindlab matrix "
                                  "show FILE.h5");
    if (o->out || o->size || o->iters || o->warmup || o->huge || o->trips ||
        o->cpus || o->runs || o->app || o->timeout)
        return bl_cli_usage_error(VERB, "show takes --kind, --svg and --png "
                                  "only");
    if ((o->svg && bl_atomic_check_target(o->svg, &err) < 0) ||
        (o->png && bl_atomic_check_target(o->png, &err) < 0)) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        return BL_EXIT_USAGE;
    }
    if (bl_matrix_read_file(o->input, o->show_kind, &m, &err) < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        return BL_EXIT_USAGE;
    }
    bl_matrix_print(stdout, &m);
    rc = draw(o, &m);
    bl_h5_matrix_free(&m);
    return rc;
}

static int measure(const options *o, int argc, char **argv)
{
    bl_matrix_opts mo;
    bl_h5_matrix m;
    bl_h5_machine machine;
    hwloc_topology_t topo;
    char runs[4096], app[4096], *command;
    bl_err err = {""};
    int rc = check_measure(o, &mo, runs, sizeof runs, app, sizeof app);
    if (rc != -1)
        return rc;
    if (bl_topo_load(NULL, &topo, &err) < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        return BL_EXIT_FAILED;
    }
    rc = bl_matrix_measure(&mo, topo, &m, &machine, stderr, &err);
    hwloc_topology_destroy(topo);
    if (rc < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        bl_h5_matrix_free(&m);
        bl_h5_machine_free(&machine);
        return BL_EXIT_FAILED;
    }
    command = command_line(argc, argv);
    bl_matrix_print(stdout, &m);
    if (bl_matrix_write_file(o->out, command ? command : "bindlab matrix",
                             &machine, &m, &err) < 0) {
        fprintf(stderr, "bindlab %s: %s\n", VERB, err.msg);
        rc = 1;
    } else {
        printf("bindlab %s: wrote %s (/matrices/%s; run files in %s)\n", VERB,
               o->out, m.kind, runs);
    }
    if (draw(o, &m) != BL_EXIT_OK)
        rc = 1;
    free(command);
    bl_h5_matrix_free(&m);
    bl_h5_machine_free(&machine);
    return rc ? BL_EXIT_FAILED : BL_EXIT_OK;
}

int bl_cli_matrix(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc != -1)
        return rc;
    if (strcmp(o.kind, "show") == 0)
        return show(&o);
    return measure(&o, argc, argv);
}
