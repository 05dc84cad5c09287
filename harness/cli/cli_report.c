/* bindlab report FILE.h5 : a sweep's results ranked by rate. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "results/results_file.h"
#include "results/results_report.h"
#include "report/report_html.h"
#include "report/report_firsttouch.h"
#include "report/report_nodes.h"
#include "report/report_retries.h"
#include "report/report_write.h"
#include "atomic_file.h"
#include "same_file.h"

static const char help[] =
    "usage: bindlab report FILE.h5 [--csv] [--kernel K] [--sort rate|label|run]\n"
    "                      [--html FILE.html] [--plot DIR] [--all-nodes]\n"
    "\n"
    "Prints the /summary table of a sweep file (results/NAME.h5 as written by\n"
    "'bindlab sweep' or 'bindlab merge', or one run's results/NAME.d/rNNNN.h5)\n"
    "as an aligned table, one line per run:\n"
    "\n"
    "  run       run id (the group /runs/<run> in the file)\n"
    "  label     the layout: kernel, np, map_by, bind_to, places, proc_bind, ...\n"
    "  status    ok, failed, timeout or invalid\n"
    "  threads   OpenMP threads per rank\n"
    "  median_s  median time of one timed iteration, seconds\n"
    "  rate      the kernel's headline rate, in unit (GB/s, MLUP/s, GFLOP/s)\n"
    "  vs_best   rate / the best rate of the same kernel and unit\n"
    "  vs_none   rate / the rate of the bind_to none baseline: the bind_to\n"
    "            none run of the same kernel, np and threads if there is one,\n"
    "            else the kernel's first bind_to none run\n"
    "  verified  the kernel checked its own answer (yes/no; - without result)\n"
    "  local     fraction of the ranks' pages on their own NUMA node\n"
    "  flags     what the cross-check found (binding mismatch, ...)\n"
    "\n"
    "With --sort rate (the default) each kernel's runs come best first; runs\n"
    "that are not ok or not verified follow, in run order, with no ratios.\n"
    "--sort label and --sort run order by layout label or run id instead.\n"
    "After the table, one line per kernel names the best layout and the\n"
    "baseline. --kernel K shows only kernel K's runs. Runs that took more\n"
    "than one launch (bindlab sweep --retry) are listed last, with what\n"
    "each earlier launch died of and its log.\n"
    "\n"
    "A run over more than 16 nodes is folded: its nodes that are alike (the\n"
    "same machine, each rank's threads on the same PUs of its node, the\n"
    "same pages per NUMA node) make one line, \"nodes 0-9997 (n00000-n09997):\n"
    "8 ranks, 128 threads, ...\", and a node that differs a line of its own;\n"
    "so are a file's machines when it holds more than 16. --all-nodes\n"
    "lists every node (with --html: every node in the page's node table;\n"
    "the maps stay one per group).\n"
    "\n"
    "--csv writes every /summary column, then ratio_best, ratio_baseline and\n"
    "baseline_run_id, as CSV (RFC 4180: CRLF line ends, fields with commas or\n"
    "quotes quoted), for spreadsheets and pandas.read_csv.\n"
    "\n"
    "--html FILE.html writes the report as one self-contained web page (no\n"
    "network needed to open it): a bar chart of the rate per layout, the\n"
    "table (sortable), and every flag explained with links to its runs\n"
    "(docs/report.md). The table is then not printed.\n"
    "\n"
    "--plot DIR writes the page's charts as SVG files for slides into DIR\n"
    "(created when missing): KERNEL-rate.svg (bars), KERNEL-iterations.svg\n"
    "(iteration times per layout) and map-RUN.svg (where each rank and thread\n"
    "of run RUN ran, pages per NUMA node). SVG only: convert with e.g.\n"
    "'rsvg-convert -o x.png x.svg' when a slide tool wants PNG. With --html,\n"
    "both are written; alone, the table is not printed.\n"
    "\n"
    "Exit status: 0 table written, 1 the file is missing, truncated, not a\n"
    "sweep file, or holds no runs, 2 bad usage (including an unknown kernel).\n";

#define VERB "report"

typedef struct {
    const char *input, *kernel, *html, *plot;
    int csv, all_nodes;
    bl_report_sort sort;
} options;

/* --plot DIR: a directory, or nothing yet (then created); anything else
 * (a file, a device) is refused before the input is read. */
static int plot_dir_check(const char *dir, bl_err *err)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return bl_err_set(err, "%s: not a directory (give a directory, "
                          "new or existing, for the SVG files)", dir);
    return 0;
}

static int set_sort(void *opts, const char *v, bl_err *err)
{
    return bl_report_sort_parse(v, &((options *)opts)->sort, err);
}

#define SLOT(field) offsetof(options, field)
static const bl_cli_opt report_options[] = {
    {"--csv", BL_OPT_FLAG, NULL, "every /summary column as CSV", SLOT(csv),
     NULL, NULL},
    {"--kernel", BL_OPT_VALUE, "K", "only kernel K's runs", SLOT(kernel),
     NULL, NULL},
    {"--sort", BL_OPT_VALUE, "rate|label|run", "the order of the runs",
     BL_OPT_NO_SLOT, set_sort, NULL},
    {"--html", BL_OPT_VALUE, "FILE.html", "the report as one web page",
     SLOT(html), NULL, NULL},
    {"--plot", BL_OPT_VALUE, "DIR", "the page's charts as SVG files",
     SLOT(plot), NULL, NULL},
    {"--all-nodes", BL_OPT_FLAG, NULL, "a run over many nodes: every node, "
     "unfolded", SLOT(all_nodes), NULL, NULL},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = report_options,
    .nopts = BL_CLI_NOPTS(report_options), .word_slot = SLOT(input),
    .one_word = "one file only (got a second: '%s'; 'bindlab merge' "
                "combines files)"};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    bl_err err;
    int rc;
    memset(o, 0, sizeof *o);
    o->sort = BL_REPORT_SORT_RATE;
    if ((rc = bl_cli_parse(&spec, argc, argv, o)) >= 0)
        return rc;
    if (!o->input)
        return bl_cli_usage_error(VERB, "no input: give a sweep file, e.g. "
                                  "results/NAME.h5");
    if ((o->html || o->plot) && o->csv)
        return bl_cli_usage_error(VERB, "--%s and --csv: choose one",
                                  o->html ? "html" : "plot");
    if (o->plot && plot_dir_check(o->plot, &err) < 0) {
        fprintf(stderr, "bindlab report: --plot %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    /* a device, directory, FIFO... is never replaced: refused before the
     * input is read, like every writer */
    if (o->html && (bl_check_output_not_input1(o->html, o->input, &err) < 0 ||
                    bl_atomic_check_target(o->html, &err) < 0)) {
        fprintf(stderr, "bindlab report: --html %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    return -1;
}

/* A file of several machines: which node is which, under the table. */
static void list_machines(FILE *out, const char *path)
{
    bl_h5_machine *m = NULL;
    size_t n = 0;
    bl_err e;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return;
    int *topo_of = NULL;
    /* more machines than that: folded by bl_report_write_nodes */
    if (bl_h5_read_nodes_shared(f, &m, &n, &topo_of, &e) == 0 && n > 1 &&
        n <= BL_REPORT_FOLD_NODES)
        for (size_t k = 0; k < n; k++)
            fprintf(out, "node %zu: %s (%s), %d package%s, %d NUMA node%s, "
                    "%d cores, %s\n", k, m[k].hostname ? m[k].hostname : "",
                    m[k].cpu_model ? m[k].cpu_model : "", m[k].packages,
                    m[k].packages == 1 ? "" : "s", m[k].numa_nodes,
                    m[k].numa_nodes == 1 ? "" : "s", m[k].cores,
                    m[k].mpi_library_version ? m[k].mpi_library_version : "");
    bl_h5_nodes_free(m, n);
    free(topo_of);
    H5Fclose(f);
}

/* Runs on several nodes whose kernel counted its messages (/run/traffic):
 * what their ranks sent per step inside their nodes and between them, under
 * the table (a run on one node sends everything inside it). */
static void list_traffic(FILE *out, const char *path, const bl_report *r)
{
    int heading = 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return;
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_h5_summary *s = r->rows[i].s;
        char group[512];
        bl_h5_traffic *t = NULL;
        size_t n = 0;
        double in = 0.0, between = 0.0;
        bl_err e;
        hid_t g;
        if (!s->nodes || !strchr(s->nodes, ',') || !s->run_id)
            continue;
        bl_h5_run_path(s->run_id, group, sizeof group);
        if (H5Lexists(f, group, H5P_DEFAULT) <= 0 ||
            (g = H5Gopen2(f, group, H5P_DEFAULT)) < 0)
            continue;
        if (bl_h5_table_read(g, &bl_h5_traffic_def, (void **)&t, &n, &e) ==
                0 && n > 0) {
            for (size_t q = 0; q < n; q++) {
                in += t[q].bytes_same_node;
                between += t[q].bytes_other_nodes;
            }
            if (!heading++)
                fprintf(out, "bytes per step the ranks sent inside their "
                        "nodes and between nodes:\n");
            fprintf(out, "  %s (nodes %s, %s): %.0f B inside, %.0f B "
                    "between\n", s->run_id, s->nodes,
                    s->kernel ? s->kernel : "", in, between);
        }
        bl_h5_table_free(&bl_h5_traffic_def, t, n);
        H5Gclose(g);
    }
    H5Fclose(f);
}

static const char *policy_of(const bl_h5_summary *s)
{
    return s->mem_policy && s->mem_policy[0] ? s->mem_policy : "firsttouch";
}

/* On one NUMA node every memory policy puts every page on that node, so
 * layouts that differ only in mem_policy measure the same thing twice: the
 * table says so under itself instead of letting their order suggest a
 * winner. Names the policies seen among the usable runs of each kernel. */
static void note_one_numa_node(FILE *out, const bl_report *r, long node)
{
    for (size_t g = 0; g < r->ngroups; g++) {
        const char *seen[8];
        size_t nseen = 0;
        /* in a file of several machines, only that machine's groups */
        if (r->several_nodes && r->groups[g].node != node)
            continue;
        for (size_t i = 0; i < r->nrows; i++) {
            const bl_h5_summary *s = r->rows[i].s;
            size_t k = 0;
            if (!r->rows[i].usable ||
                strcmp(s->kernel ? s->kernel : "", r->groups[g].kernel) != 0 ||
                (r->several_nodes && bl_report_node(s) != node))
                continue;
            /* kept in alphabetical order, each once */
            while (k < nseen && strcmp(seen[k], policy_of(s)) < 0)
                k++;
            if ((k < nseen && strcmp(seen[k], policy_of(s)) == 0) ||
                nseen == 8)
                continue;
            memmove(seen + k + 1, seen + k, (nseen - k) * sizeof *seen);
            seen[k] = policy_of(s);
            nseen++;
        }
        if (nseen < 2)
            continue;
        if (r->several_nodes)
            fprintf(out, "note: %s: node %ld has one NUMA node, so every "
                    "memory policy (", r->groups[g].kernel, node);
        else
            fprintf(out, "note: %s: this machine has one NUMA node, so "
                    "every memory policy (", r->groups[g].kernel);
        for (size_t k = 0; k < nseen; k++)
            fprintf(out, "%s%s", k ? ", " : "", seen[k]);
        fprintf(out, ") puts every page on it: runs that differ only in "
                "mem_policy are equal, and their order above is noise\n");
    }
}

/* Notes under the table from the file's machine record: runs made on an
 * emulated machine (QEMU without KVM, see docs/numa-node.md) keep real
 * placement and page locations, but their rates say nothing about speed;
 * on one NUMA node the memory policies cannot differ. */
static void notes_from_machine(FILE *out, const char *path,
                               const bl_report *r)
{
    bl_h5_machine m;
    bl_err e;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return;
    if (bl_h5_read_machine(f, &m, &e) == 0) {
        if (m.virtualization && strncmp(m.virtualization, "emulated", 8) == 0)
            fprintf(out, "note: rates are not meaningful for speed: these runs "
                    "ran on an emulated machine (%s); placement and pages "
                    "are real\n", m.virtualization);
        if (m.numa_nodes == 1 && !r->several_nodes)
            note_one_numa_node(out, r, 0);
        bl_h5_machine_free(&m);
    }
    if (r->several_nodes) {
        bl_h5_machine *nodes = NULL;
        int *topo_of = NULL;
        size_t n = 0;
        if (bl_h5_read_nodes_shared(f, &nodes, &n, &topo_of, &e) == 0)
            for (size_t k = 0; k < n; k++)
                if (nodes[k].numa_nodes == 1)
                    note_one_numa_node(out, r, (long)k);
        bl_h5_nodes_free(nodes, n);
        free(topo_of);
    }
    H5Fclose(f);
}

int bl_cli_report(int argc, char **argv)
{
    options o;
    bl_h5_summary *rows = NULL;
    size_t n = 0;
    bl_report r;
    bl_err err;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    if (bl_h5_read_summary(o.input, &rows, &n, &err) < 0) {
        fprintf(stderr, "bindlab report: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    if (n == 0) {
        fprintf(stderr, "bindlab report: %s: /summary holds no runs\n",
                o.input);
        bl_h5_table_free(&bl_h5_summary_def, rows, n);
        return BL_EXIT_FAILED;
    }
    if (bl_report_build(rows, n, o.kernel, o.sort, &r, &err) < 0) {
        fprintf(stderr, "bindlab report: %s: %s\n", o.input, err.msg);
        bl_h5_table_free(&bl_h5_summary_def, rows, n);
        return BL_EXIT_USAGE;
    }
    if (o.html || o.plot) {
        size_t nfiles = 0;
        rc = BL_EXIT_OK;
        if (o.html && bl_report_write_html_nodes(o.html, o.input, &r,
                                              o.all_nodes, &err) < 0)
            rc = BL_EXIT_FAILED;
        else if (o.html)
            printf("%s: %zu runs\n", o.html, r.nrows);
        if (rc == BL_EXIT_OK && o.plot &&
            bl_report_write_plots(o.plot, o.input, &r, &nfiles, &err) < 0)
            rc = BL_EXIT_FAILED;
        else if (rc == BL_EXIT_OK && o.plot)
            printf("%s: %zu SVG files\n", o.plot, nfiles);
        if (rc)
            fprintf(stderr, "bindlab report: %s\n", err.msg);
        bl_report_free(&r);
        bl_h5_table_free(&bl_h5_summary_def, rows, n);
        return rc;
    }
    rc = o.csv ? bl_report_write_csv(stdout, &r)
               : bl_report_write_table(stdout, &r);
    if (!o.csv && rc >= 0 && r.several_nodes) {
        list_machines(stdout, o.input);
        list_traffic(stdout, o.input, &r);
    }
    if (!o.csv && rc >= 0)
        bl_report_write_nodes(stdout, o.input, &r, o.all_nodes);
    if (!o.csv && rc >= 0) {
        notes_from_machine(stdout, o.input, &r);
        bl_report_write_first_touch(stdout, &r);
        bl_report_write_retries(stdout, o.input, &r);
    }
    if (fflush(stdout) != 0 || rc < 0) {
        perror("bindlab report: writing the table");
        rc = BL_EXIT_FAILED;
    }
    bl_report_free(&r);
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    return rc;
}
