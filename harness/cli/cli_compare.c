/* bindlab compare A.h5 B.h5 [...] : sweeps of several machines side by
 * side, layouts matched by meaning (compare.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "atomic_file.h"
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

int bl_cli_compare(int argc, char **argv)
{
    const char *files[MAX_FILES];
    bl_cmp_machine ms[MAX_FILES];
    size_t n = 0, loaded = 0, nfiles = 0, machines = 0;
    const char *html = NULL, *v, *ab[2] = {NULL, NULL};
    int csv = 0, missing, rc = BL_EXIT_OK;
    bl_err err;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            return BL_EXIT_OK;
        }
        if (strcmp(a, "--csv") == 0)
            csv = 1;
        else if (strcmp(a, "--ab") == 0) {
            if (i + 2 >= argc)
                return bl_cli_usage_error(VERB, "--ab needs two layouts "
                                          "(names, labels or run ids), e.g. "
                                          "--ab pinned free");
            ab[0] = argv[++i];
            ab[1] = argv[++i];
        }
        else if ((v = bl_cli_option_value("--html", argc, argv, &i,
                                          &missing)))
            html = v;
        else if (missing)
            return bl_cli_usage_error(VERB, "%s needs a value", a);
        else if (a[0] == '-' && a[1] != '\0')
            return bl_cli_usage_error(VERB, "unknown option '%s'", a);
        else if (nfiles == MAX_FILES)
            return bl_cli_usage_error(VERB, "at most %d files", MAX_FILES);
        else
            files[nfiles++] = a;
    }
    /* a file of several machines counts as several; one that cannot be
     * read as one (its error comes when it is loaded) */
    for (size_t i = 0; i < nfiles; i++) {
        size_t k = bl_cmp_count_machines(files[i]);
        machines += k > 1 ? k : 1;
    }
    if (ab[0] && (csv || html))
        return bl_cli_usage_error(VERB, "--ab writes text: leave out --csv "
                                  "and --html");
    if (ab[0] && nfiles < 1)
        return bl_cli_usage_error(VERB, "--ab: give the sweep file that "
                                  "holds both layouts");
    if (!ab[0] && machines < 2)
        return bl_cli_usage_error(VERB, "give two sweep files or more (one "
                                  "per machine), e.g. epyc.h5 xeon.h5, or a "
                                  "merged file holding several machines");
    if (machines > MAX_FILES)
        return bl_cli_usage_error(VERB, "at most %d machines (got %zu)",
                                  MAX_FILES, machines);
    if (html && csv)
        return bl_cli_usage_error(VERB, "--html and --csv: choose one");
    /* a device, directory, FIFO... is never replaced, like every writer */
    if (html && bl_atomic_check_target(html, &err) < 0) {
        fprintf(stderr, "bindlab compare: --html %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    for (size_t i = 0; i < nfiles && rc == BL_EXIT_OK; i++) {
        size_t k = bl_cmp_count_machines(files[i]);
        for (size_t node = 0; node < (k > 1 ? k : 1); node++) {
            int r = k > 1 ? bl_cmp_load_node(files[i], node, &ms[loaded], &err)
                          : bl_cmp_load(files[i], &ms[loaded], &err);
            if (r < 0) {
                fprintf(stderr, "bindlab compare: %s\n", err.msg);
                rc = BL_EXIT_FAILED;
                break;
            }
            loaded++;
        }
    }
    n = loaded;
    if (rc == BL_EXIT_OK && ab[0])
        rc = write_ab(ms, n, ab);
    else if (rc == BL_EXIT_OK && html) {
        if (bl_cmp_write_html(html, ms, n, &err) < 0) {
            fprintf(stderr, "bindlab compare: %s\n", err.msg);
            rc = BL_EXIT_FAILED;
        } else {
            printf("%s: %zu machines\n", html, n);
        }
    } else if (rc == BL_EXIT_OK) {
        int w = csv ? bl_cmp_write_csv(stdout, ms, n)
                    : bl_cmp_write_text(stdout, ms, n);
        if (fflush(stdout) != 0 || w < 0) {
            perror("bindlab compare: writing the comparison");
            rc = BL_EXIT_FAILED;
        }
    }
    for (size_t i = 0; i < loaded; i++)
        bl_cmp_free(&ms[i]);
    return rc;
}
