/* bindlab: sweep MPI x OpenMP layouts and check where ranks and threads
 * ran. This file only picks the verb; each verb lives in cli_<verb>.c. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/version.h"

typedef struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} verb;

/* One line per verb, in the order `bindlab --help` lists them. */
static const verb verbs[] = {
    {"sweep", bl_cli_sweep,
     "run every layout of a sweep file, check bindings, write HDF5 results"},
    {"bindings", bl_cli_bindings,
     "read a launcher's binding report: one line per rank with its CPUs"},
    {"merge", bl_cli_merge,
     "merge sweep files (per-run files, directories) into one"},
    {"report", bl_cli_report,
     "a sweep's results ranked by rate, vs best and bind_to none"},
    {"compare", bl_cli_compare,
     "sweeps of several machines side by side, layouts matched by meaning"},
    {"slurm", bl_cli_slurm, "Slurm batch scripts for a sweep (one job, or an array + merge)"},
    {"plan", bl_cli_plan, "where a layout's ranks and threads land on any node: table, map, picture"},
    {"run", bl_cli_run, "any program launched once under the probe: where its ranks, threads and pages were, checked"},
    {"check", bl_cli_check, "is this process placed coherently? CPUs vs memory nodes, OpenMP, launchers"},
    {"matrix", bl_cli_matrix, "latency/bandwidth per (CPU node, memory node) and core-to-core latency: HDF5 + SVG heatmap"},
    {"hog", bl_cli_hog, "a noisy neighbour (CPU or memory hog) until killed; sweep --noisy starts it"},
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: bindlab VERB [OPTIONS]\n"
               "       bindlab VERB --help\n"
               "       bindlab --version\n\nverbs:\n");
    for (size_t i = 0; i < NVERBS; i++)
        fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
}

static void verb_names(FILE *f)
{
    for (size_t i = 0; i < NVERBS; i++)
        fprintf(f, "%s%s", i ? ", " : "", verbs[i].name);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return BL_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return BL_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        bl_version_print(stdout);
        return BL_EXIT_OK;
    }
    for (size_t i = 0; i < NVERBS; i++)
        if (strcmp(argv[1], verbs[i].name) == 0)
            return verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "bindlab: unknown verb '%s' (verbs: ", argv[1]);
    verb_names(stderr);
    fprintf(stderr, ")\n");
    return BL_EXIT_USAGE;
}
