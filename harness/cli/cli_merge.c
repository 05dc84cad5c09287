/* bindlab merge -o OUT.h5 IN.h5|DIR ... : sweep files into one. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "grow.h"
#include "results/results_file.h"

static const char help[] =
    "usage: bindlab merge -o OUT.h5 IN.h5|DIR ...\n"
    "\n"
    "Merges sweep files into OUT.h5: each input's machine records (/nodes,\n"
    "kept once per distinct machine: hostname, CPU model, topology, MPI and\n"
    "kernel), its /runs/<run-id> groups and its /summary rows. Inputs are the\n"
    "per-run files of a sweep (results/NAME.d/rNNNN.h5), merged files\n"
    "(results/NAME.h5), or directories: DIR stands for every *.h5 in it, in\n"
    "name order (not the *.tmp.* files of writes in progress). OUT may also\n"
    "be an input: it is written beside itself (OUT.tmp.PID) and renamed over\n"
    "the old file only when complete. Only a regular file is replaced: an OUT\n"
    "that is a device, directory, FIFO or socket (or a link to one), or whose\n"
    "directory is missing or not writable, is refused before any input is\n"
    "read. On a full disk OUT is left as it was. OUT is built in memory\n"
    "(about the size of the inputs together): when memory runs out the merge\n"
    "fails with a message, and OUT is left as it was.\n"
    "\n"
    "The same record found twice (a run's file and the merged file that\n"
    "holds it) is kept once, from the first input that has it. Another run\n"
    "under the same run id is kept too: on another machine as\n"
    "RUN_ID@HOSTNAME, of another sweep on the same machine as SWEEP:RUN_ID\n"
    "(docs/schema.md).\n"
    "Inputs that cannot be read\n"
    "(missing, truncated, a bindlab-app run file without /summary) are named\n"
    "on standard error and skipped.\n"
    "\n"
    "Prints one line: runs merged by status, duplicates, unreadable inputs.\n"
    "\n"
    "Exit status: 0 merged, 1 some input was unreadable (the others are\n"
    "merged), none could be read, or OUT could not be written (e.g. no space\n"
    "left on device; OUT is left as it was), 2 bad usage or an OUT that may\n"
    "not be replaced.\n";

typedef struct {
    char **items;
    size_t n, cap;
} strlist;

static int push(strlist *l, const char *s)
{
    if (bl_grow(&l->items, sizeof *l->items, l->n, &l->cap, 32) < 0)
        return -1;
    if (!(l->items[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

static void strlist_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
}

/* Strings read from a file may be NULL (written as NULL by another tool). */
static const char *nz(const char *s)
{
    return s ? s : "";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A finished sweep file by name: *.h5, and not an atomic write's
 * temporary (NAME.h5.tmp.PID, which ends in the pid, not .h5). */
static int is_sweep_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 3 && strcmp(name + n - 3, ".h5") == 0 &&
           !strstr(name, ".tmp.");
}

/* Appends DIR's *.h5 in name order; -1 with errno when DIR cannot be read. */
static int add_dir(strlist *l, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = l->n;
    char path[4096];
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (!is_sweep_name(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (push(l, path) < 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    qsort(l->items + first, l->n - first, sizeof *l->items, cmp_str);
    return 0;
}

#define VERB "merge"

typedef struct {
    const char *out;
    strlist inputs;
    int bad_dirs;
} options;

static int set_out(void *opts, const char *v, bl_err *err)
{
    if (((options *)opts)->out)
        return bl_err_set(err, "one output only (got a second: '%s')", v);
    return 0;
}

/* An input: a file, or a directory standing for its *.h5. */
static int add_input(void *opts, const char *v, bl_err *err)
{
    options *o = opts;
    struct stat st;
    if (stat(v, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (add_dir(&o->inputs, v) < 0) {
            fprintf(stderr, "bindlab merge: %s: cannot list: %s\n", v,
                    strerror(errno));
            o->bad_dirs++;
        }
    } else if (push(&o->inputs, v) < 0) {
        bl_err_set(err, "out of memory");
        return BL_EXIT_FAILED;
    }
    return 0;
}

static const bl_cli_opt merge_options[] = {
    {"-o, --output", BL_OPT_VALUE, "OUT.h5", "the merged file",
     offsetof(options, out), set_out, NULL},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = merge_options,
    .nopts = BL_CLI_NOPTS(merge_options), .positional = add_input};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    int rc = bl_cli_parse(&spec, argc, argv, o);
    if (rc >= 0)
        return rc;
    if (!o->out)
        return bl_cli_usage_error(VERB, "no output: give -o OUT.h5");
    if (o->inputs.n == 0 && o->bad_dirs == 0)
        return bl_cli_usage_error(VERB, "no input: give sweep files or "
                                  "directories (a directory with no *.h5 "
                                  "counts as none)");
    return -1;
}

/* Names each input that cannot be read (missing, truncated, a run file
 * without /summary): the merge goes on without it. */
static void warn_unreadable(void *ctx, const char *file, const char *msg)
{
    (void)file;
    (*(int *)ctx)++;
    fprintf(stderr, "bindlab merge: skipped: %s\n", msg);
}

/* Names a run id that two inputs hold on the same machine with different
 * labels: not a resumed run seen twice but two sweeps whose ids collide. */
static void warn_conflict(void *ctx, const char *run_id,
                          const char *kept_file, const char *kept_label,
                          const char *dropped_file, const char *dropped_label)
{
    (void)ctx;
    fprintf(stderr, "bindlab merge: run id %s is '%s' in %s but '%s' in %s: "
            "kept the first\n", run_id, kept_label, kept_file, dropped_label,
            dropped_file);
}

/* "12 runs (10 ok, 1 failed, 1 timeout)" from OUT's /summary. */
static void print_counts(const char *out, int duplicates, int unreadable)
{
    static const char *const statuses[] = {"ok", "failed", "timeout",
                                           "invalid"};
    bl_h5_summary *rows;
    size_t n, other;
    bl_err err;
    const char *sep = "";
    if (bl_h5_read_summary(out, &rows, &n, &err) < 0) {
        fprintf(stderr, "bindlab merge: reading back %s\n", err.msg);
        return;
    }
    other = n;
    printf("%s: %zu run%s (", out, n, n == 1 ? "" : "s");
    for (size_t s = 0; s < 4; s++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += strcmp(nz(rows[i].status), statuses[s]) == 0;
        if (k)
            printf("%s%zu %s", sep, k, statuses[s]);
        sep = k ? ", " : sep;
        other -= k;
    }
    if (other)
        printf("%s%zu other", sep, other);
    printf("), %d duplicate%s kept once, %d unreadable input%s\n",
           duplicates, duplicates == 1 ? "" : "s", unreadable,
           unreadable == 1 ? "" : "s");
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
}

static char *command_line(int argc, char **argv)
{
    size_t len = strlen("bindlab") + 1;
    char *s;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    if (!(s = malloc(len)))
        return NULL;
    strcpy(s, "bindlab");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int bl_cli_merge(int argc, char **argv)
{
    options o = {0};
    int rc = parse_args(argc, argv, &o), dup = 0, unreadable = 0, bad = 0;
    char *command;
    bl_err err;

    if (rc >= 0) {
        strlist_free(&o.inputs);
        return rc;
    }
    /* A device, directory, FIFO... is never replaced: refused before any
     * input is read. */
    if (bl_atomic_check_target(o.out, &err) < 0) {
        fprintf(stderr, "bindlab merge: -o %s\n", err.msg);
        strlist_free(&o.inputs);
        return BL_EXIT_USAGE;
    }
    if (o.inputs.n == 0) {
        fprintf(stderr, "bindlab merge: no readable input; %s not written\n",
                o.out);
        strlist_free(&o.inputs);
        return BL_EXIT_FAILED;
    }
    command = command_line(argc, argv);
    rc = bl_h5_merge(o.out, command ? command : "bindlab merge",
                        (const char *const *)o.inputs.items, o.inputs.n,
                        warn_conflict, warn_unreadable, &bad, &dup,
                        &unreadable, &err);
    free(command);
    if (rc < 0) {
        fprintf(stderr, "bindlab merge: %s\n", err.msg);
        rc = BL_EXIT_FAILED;
    } else {
        print_counts(o.out, dup, o.bad_dirs + unreadable);
        rc = o.bad_dirs + unreadable ? BL_EXIT_FAILED : BL_EXIT_OK;
    }
    strlist_free(&o.inputs);
    return rc;
}
