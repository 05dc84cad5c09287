/* bindlab compare A.h5 B.h5 [...] : sweeps of several machines side by
 * side, layouts matched by meaning (compare.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "atomic_file.h"
#include "same_file.h"
#include "report/compare.h"

static const char help[] =
    "usage: bindlab compare A.h5 B.h5 [C.h5 ...] [--csv | --html FILE.html]\n"
    "       bindlab compare MERGED.h5 [...]\n"
    "       bindlab compare FILE.h5 [FILE2.h5 ...] --ab LAYOUT_A LAYOUT_B\n"
    "\n"
    "Puts the sweeps of several machines side by side (sweep files as\n"
    "written by 'bindlab sweep' or 'bindlab merge'). A file that holds\n"
    "several machines (a merge of sweeps of several machines) stands for\n"
    "each of them, in the order of its /nodes, shown as 'FILE /nodes/K'; a\n"
    "run counts for the first machine it ran on. Layouts are\n"
    "matched by what they mean on their machine, not by their spelling:\n"
    "ranks per NUMA node (else per package, else per L3 domain), threads x\n"
    "ranks as a fraction of the node's cores, and the same kernel, bind_to,\n"
    "places, proc_bind and init. A is the reference: for each of its\n"
    "layouts (the median rate over the layout's ok and verified\n"
    "repetitions), the matching layout of every other machine and its ratio\n"
    "to A. Then the best layout per machine and kernel, and the layouts\n"
    "found on one machine only.\n"
    "\n"
    "--csv: one row per layout and machine (meaning, machine, hostname,\n"
    "file, label, first_run_id, median_rate, rate_unit, ratio_to_A,\n"
    "matched_by), RFC 4180.\n"
    "--html FILE.html: the matches, intervals and best layouts as one\n"
    "self-contained web page (no network needed; docs/report.md).\n"
    "--ab LAYOUT_A LAYOUT_B: A/B of two layouts of one sweep instead (e.g.\n"
    "pinned vs free), in each file given: each named by its name, its\n"
    "label or its run id without the repetition (r0001). Their medians,\n"
    "ratio B/A, bootstrap interval and rank test, the tails (p50/p90/p99/max\n"
    "of the iteration times) and the CPU migrations and context switches\n"
    "of the timed region per run.\n"
    "\n"
    "Exit status: 0 written, 1 a file is missing, truncated, not a sweep\n"
    "file or has no machine record, 2 bad usage.\n";

#define VERB "compare"
#define MAX_FILES 26

/* --ab in every file; a layout a file lacks is exit 1 naming its layouts'
 * names. */
static int write_ab(const bl_cmp_machine *ms, size_t n, const char *const *ab)
{
    for (size_t i = 0; i < n; i++) {
        const bl_cmp_layout *x[2];
        for (int k = 0; k < 2; k++)
            if (!(x[k] = bl_cmp_find(&ms[i], ab[k]))) {
                fprintf(stderr, "bindlab compare: %s: no usable runs of "
                        "layout '%s' (give a layout's name, label or run id "
                        "as 'bindlab report %s' shows them)\n", ms[i].path,
                        ab[k], ms[i].path);
                return BL_EXIT_FAILED;
            }
        if (i)
            putchar('\n');
        if (bl_cmp_write_ab(stdout, &ms[i], x[0], x[1]) < 0 ||
            fflush(stdout) != 0) {
            perror("bindlab compare: writing the comparison");
            return BL_EXIT_FAILED;
        }
    }
    return BL_EXIT_OK;
}

typedef struct options {
    const char *files[MAX_FILES];
    size_t nfiles;
    const char *html, *ab[2];
    int csv;
} options;

static int add_file(void *opts, const char *v, bl_err *err)
{
    options *o = opts;
    if (o->nfiles == MAX_FILES)
        return bl_err_set(err, "at most %d files", MAX_FILES);
    o->files[o->nfiles++] = v;
    return 0;
}

#define SLOT(field) offsetof(options, field)
static const bl_cli_opt compare_options[] = {
    {"--csv", BL_OPT_FLAG, NULL, "one row per layout and machine",
     SLOT(csv), NULL, NULL},
    {"--html", BL_OPT_VALUE, "FILE.html", "the comparison as one web page",
     SLOT(html), NULL, NULL},
    {"--ab", BL_OPT_PAIR, "LAYOUT_A LAYOUT_B", "A/B of two layouts of one "
     "sweep", SLOT(ab), NULL, "--ab needs two layouts (names, labels or run "
     "ids), e.g. --ab pinned free"},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = compare_options,
    .nopts = BL_CLI_NOPTS(compare_options), .positional = add_file};

/* The options read and checked against each other; -1 to go on, or an exit
 * status. */
static int parse_args(int argc, char **argv, options *o)
{
    size_t machines = 0;
    bl_err err;
    int rc = bl_cli_parse(&spec, argc, argv, o);
    if (rc >= 0)
        return rc;
    if (o->html && bl_check_output_not_input(o->html, o->files, o->nfiles,
                                             &err) < 0) {
        fprintf(stderr, "bindlab compare: --html %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    /* a file of several machines counts as several; one that cannot be
     * read as one (its error comes when it is loaded) */
    for (size_t i = 0; i < o->nfiles; i++) {
        size_t k = bl_cmp_count_machines(o->files[i]);
        machines += k > 1 ? k : 1;
    }
    if (o->ab[0] && (o->csv || o->html))
        return bl_cli_usage_error(VERB, "--ab writes text: leave out --csv "
                                  "and --html");
    if (o->ab[0] && o->nfiles < 1)
        return bl_cli_usage_error(VERB, "--ab: give the sweep file that "
                                  "holds both layouts");
    if (!o->ab[0] && machines < 2)
        return bl_cli_usage_error(VERB, "give two sweep files or more (one "
                                  "per machine), e.g. epyc.h5 xeon.h5, or a "
                                  "merged file holding several machines");
    if (machines > MAX_FILES)
        return bl_cli_usage_error(VERB, "at most %d machines (got %zu)",
                                  MAX_FILES, machines);
    if (o->html && o->csv)
        return bl_cli_usage_error(VERB, "--html and --csv: choose one");
    /* a device, directory, FIFO... is never replaced, like every writer */
    if (o->html && bl_atomic_check_target(o->html, &err) < 0) {
        fprintf(stderr, "bindlab compare: --html %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    return -1;
}

/* Every machine of every file into ms (a file of several machines stands
 * for each); *loaded counts them, also on failure. Returns an exit status. */
static int load_all(const options *o, bl_cmp_machine *ms, size_t *loaded)
{
    bl_err err;
    for (size_t i = 0; i < o->nfiles; i++) {
        size_t k = bl_cmp_count_machines(o->files[i]);
        for (size_t node = 0; node < (k > 1 ? k : 1); node++) {
            int r = k > 1 ? bl_cmp_load_node(o->files[i], node, &ms[*loaded],
                                             &err)
                          : bl_cmp_load(o->files[i], &ms[*loaded], &err);
            if (r < 0) {
                fprintf(stderr, "bindlab compare: %s\n", err.msg);
                return BL_EXIT_FAILED;
            }
            ++*loaded;
        }
    }
    return BL_EXIT_OK;
}

/* The comparison as text, CSV or a web page; returns an exit status. */
static int write_cmp(const options *o, const bl_cmp_machine *ms, size_t n)
{
    bl_err err;
    if (o->html) {
        if (bl_cmp_write_html(o->html, ms, n, &err) < 0) {
            fprintf(stderr, "bindlab compare: %s\n", err.msg);
            return BL_EXIT_FAILED;
        }
        printf("%s: %zu machines\n", o->html, n);
        return BL_EXIT_OK;
    }
    int w = o->csv ? bl_cmp_write_csv(stdout, ms, n)
                   : bl_cmp_write_text(stdout, ms, n);
    if (fflush(stdout) != 0 || w < 0) {
        perror("bindlab compare: writing the comparison");
        return BL_EXIT_FAILED;
    }
    return BL_EXIT_OK;
}

int bl_cli_compare(int argc, char **argv)
{
    options o = {0};
    bl_cmp_machine ms[MAX_FILES];
    size_t loaded = 0;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    rc = load_all(&o, ms, &loaded);
    if (rc == BL_EXIT_OK)
        rc = o.ab[0] ? write_ab(ms, loaded, o.ab) : write_cmp(&o, ms, loaded);
    for (size_t i = 0; i < loaded; i++)
        bl_cmp_free(&ms[i]);
    return rc;
}
