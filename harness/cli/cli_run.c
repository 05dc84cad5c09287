/* bindlab run: one launch of any dynamically linked program under the
 * probe (harness/run/run.h), with a layout in the sweep's words; prints
 * where every rank and thread ran and the cross-check's flags. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "proc/shellquote.h"
#include "run/run.h"
#include "sys_util.h"

#define VERB "run"

static const char help[] =
    "usage: bindlab run [-np N] [--map-by M] [--bind-to B] [--threads T]\n"
    "                   [--omp-places P] [--omp-proc-bind B] [--launcher L]\n"
    "                   [--mpirun PATH]\n"
    "                   [--timeout S] [--probe-period MS] [--out FILE.h5]\n"
    "                   -- PROGRAM [ARGS...]\n"
    "\n"
    "Launches any dynamically linked program once under the launcher, with\n"
    "libbindlab-probe.so preloaded into every rank, and records where its\n"
    "ranks, threads and pages were: one run record in the sweep's schema\n"
    "(docs/schema.md; docs/any-application.md). The command is the one\n"
    "bindlab sweep builds for the layout, the program in place of\n"
    "bindlab-app, LD_PRELOAD and BINDLAB_PROBE_DIR passed to the ranks with\n"
    "the launcher's own export words, the binding report asked for.\n"
    "\n"
    "Layout (as bindlab sweep and bindlab plan):\n"
    "  -np N                 ranks (default 1)\n"
    "  --map-by M            core (default), l3cache, numa, package,\n"
    "                        hwthread, node, slot, ppr:N:RESOURCE, :PE=n\n"
    "  --bind-to B           core (default), hwthread, l3cache, numa,\n"
    "                        package, none\n"
    "  --threads T|fill      OMP_NUM_THREADS per rank (default 1)\n"
    "  --omp-places P        OMP_PLACES (default unset)\n"
    "  --omp-proc-bind B     OMP_PROC_BIND (default unset)\n"
    "  --launcher L          ompi4, ompi5, openmpi, mpich, impi, srun,\n"
    "                        mpirun, or a launcher's path (default: the\n"
    "                        mpirun in PATH)\n"
    "  --mpirun PATH         the launcher program (checked against L)\n"
    "\n"
    "Run:\n"
    "  --timeout S           end the run after S seconds (default: none)\n"
    "  --probe-period MS     the probe's sampling period, 1 to 60000\n"
    "                        (default 5)\n"
    "  --out FILE.h5         the record (default results/run-TIMESTAMP.h5);\n"
    "                        an existing file is never replaced. The\n"
    "                        launcher's output goes to FILE.log beside it\n"
    "\n";

static const char help_more[] =
    "Output:\n"
    "  one line per rank and thread: host, rank, thread, label (main,\n"
    "  openmp, mpi, blas, program, or the object that started it), the\n"
    "  CPUs it was seen on and its allowed set; then the flags, each with\n"
    "  what it found:\n"
    "  binding-mismatch      the launcher's report differs from the set a\n"
    "                        rank was given (its set at MPI_Init for a\n"
    "                        report the rank prints itself)\n"
    "  drift-after-init      a thread left on another set after MPI_Init\n"
    "                        (each change's caller and time named;\n"
    "                        changes undone are one affinity-restored\n"
    "                        line)\n"
    "  thread-outside-rank   a thread allowed CPUs its rank was not given\n"
    "  pu-shared             two compute threads (main, openmp, program,\n"
    "                        blas) seen on one and the same PU only\n"
    "  remote-pages          pages on NUMA nodes not local to the rank\n"
    "  migrated              a thread moved between CPUs\n"
    "  not-probed            no process wrote a probe file (setuid, or\n"
    "                        LD_PRELOAD removed on the way)\n"
    "  and the sweep's others (docs/sweep-runs.md).\n"
    "\n"
    "Environment: BINDLAB_PROBE overrides the path of libbindlab-probe.so\n"
    "(found beside the bindlab executable or in ../lib/bindlab/ from it).\n"
    "\n"
    "Interrupted: SIGINT (Ctrl-C) or SIGTERM (a batch system's time limit)\n"
    "while the program runs ends the launch as --timeout does; the record is\n"
    "still written with what the probe saw, status failed, reason\n"
    "'interrupted by SIGINT' (or SIGTERM).\n"
    "\n"
    "Exit status: 0 the program exited 0 (flags are warnings); 1 it failed\n"
    "or timed out (the record is written and says so), or the launch or\n"
    "the record failed; 2 bad usage: an unknown value, a layout that cannot\n"
    "run here, a launcher not found or of another family, a missing or\n"
    "static program, an existing --out; 128 + the signal when interrupted\n"
    "(130 SIGINT, 143 SIGTERM).\n";

/* The layout's options in the order of layout_fields. */
enum { NP, MAP_BY, BIND_TO, THREADS, OMP_PLACES, OMP_PROC_BIND, NLAYOUT };
static const bl_field layout_fields[NLAYOUT] = {
    BL_F_NP, BL_F_MAP_BY, BL_F_BIND_TO, BL_F_THREADS, BL_F_OMP_PLACES,
    BL_F_OMP_PROC_BIND};

typedef struct run_cli {
    bl_run_opts run;
    const char *out, *timeout, *period;
    const char *layout[NLAYOUT];   /* as given, read by bl_layout_set */
} run_cli;

/* A whole number from lo to hi (text NULL: def), else a usage error
 * naming the option. */
static int number(const char *opt, const char *v, long lo, long hi,
                  const char *unit, long def, long *out)
{
    char *end;
    long n;
    *out = def;
    if (!v)
        return 0;
    n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return bl_cli_usage_error(VERB, "%s '%s': accepted: whole %s, %ld "
                                  "to %ld", opt, v, unit, lo, hi);
    *out = n;
    return 0;
}

/* The values the table kept as text, checked. -1 to go on, else the exit
 * status of a usage error. */
static int read_values(run_cli *o)
{
    long timeout, period;
    bl_err err;
    for (int i = 0; i < NLAYOUT; i++)
        if (o->layout[i] && bl_layout_set(&o->run.layout, layout_fields[i],
                                          o->layout[i], &err) < 0)
            return bl_cli_usage_error(VERB, "%s", err.msg);
    if (number("--timeout", o->timeout, 1, 1000000, "seconds", 0,
               &timeout) ||
        number("--probe-period", o->period, 1, 60000, "milliseconds", 0,
               &period))
        return BL_EXIT_USAGE;
    o->run.timeout_s = (double)timeout;
    o->run.period_ms = (int)period;
    return -1;
}

#define SLOT(field) offsetof(run_cli, field)
static const bl_cli_opt run_options[] = {
    {"-np, --np, -n", BL_OPT_VALUE, "N", "ranks", SLOT(layout[NP]), NULL,
     NULL},
    {"--map-by", BL_OPT_VALUE, "M", "as Open MPI's --map-by",
     SLOT(layout[MAP_BY]), NULL, NULL},
    {"--bind-to", BL_OPT_VALUE, "B", "as Open MPI's --bind-to",
     SLOT(layout[BIND_TO]), NULL, NULL},
    {"--threads", BL_OPT_VALUE, "T|fill", "OpenMP threads per rank",
     SLOT(layout[THREADS]), NULL, NULL},
    {"--omp-places", BL_OPT_VALUE, "P", "OMP_PLACES",
     SLOT(layout[OMP_PLACES]), NULL, NULL},
    {"--omp-proc-bind", BL_OPT_VALUE, "B", "OMP_PROC_BIND",
     SLOT(layout[OMP_PROC_BIND]), NULL, NULL},
    {"--launcher", BL_OPT_VALUE, "L", "the launcher", SLOT(run.launcher),
     bl_cli_launcher_check, NULL},
    {"--mpirun", BL_OPT_VALUE, "PATH", "the launcher program",
     SLOT(run.mpirun), NULL, NULL},
    {"--timeout", BL_OPT_VALUE, "S", "end the run after S seconds",
     SLOT(timeout), NULL, NULL},
    {"--probe-period", BL_OPT_VALUE, "MS", "the probe's sampling period",
     SLOT(period), NULL, NULL},
    {"--out", BL_OPT_VALUE, "FILE.h5", "the record", SLOT(out), NULL, NULL},
};

static const char *const help_parts[] = {help, help_more, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = run_options,
    .nopts = BL_CLI_NOPTS(run_options),
    .unknown = "unknown option '%s' (the program goes after '--')"};

/* results/run-TIMESTAMP.h5, with -2, -3... when that name is taken. */
static int default_out(char *buf, size_t len, bl_err *err)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (bl_mkdir_p("results", err) < 0)
        return -1;
    bl_textf(buf, len, "results/run-%s.h5", stamp);
    for (int k = 2; access(buf, F_OK) == 0 && k < 1000; k++)
        bl_textf(buf, len, "results/run-%s-%d.h5", stamp, k);
    return 0;
}

/* --out: a new file in a directory that exists and can be written,
 * refused before the launch rather than after the program has run. */
static int check_out(const char *out)
{
    struct stat st;
    char dir[PATH_MAX];
    const char *slash = strrchr(out, '/');
    if (lstat(out, &st) == 0)
        return S_ISDIR(st.st_mode)
                   ? bl_cli_usage_error(VERB, "--out %s: a directory; give "
                                        "the record's file name, e.g. "
                                        "%s/run.h5", out, out)
                   : bl_cli_usage_error(VERB, "--out %s: the file exists; "
                                        "bindlab never replaces an input "
                                        "(give a new name)", out);
    if (bl_textf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1,
                 slash ? out : ".") < 0)
        return bl_cli_usage_error(VERB, "--out: the path is too long");
    if (!dir[0]) /* "/x.h5" */
        bl_textf(dir, sizeof dir, "/");
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return bl_cli_usage_error(VERB, "--out %s: the directory %s does not "
                                  "exist; make it first (mkdir -p %s)", out,
                                  dir, dir);
    if (access(dir, W_OK | X_OK) < 0)
        return bl_cli_usage_error(VERB, "--out %s: the directory %s cannot "
                                  "be written (%s)", out, dir,
                                  strerror(errno));
    return -1;
}

/* The options before "--", the program after it. -1 to go on, or an
 * exit status. */
static int parse_args(int argc, char **argv, run_cli *o, char *out,
                      size_t out_len, char *program, size_t prog_len)
{
    int dd = 1, rc;
    bl_err err;
    memset(o, 0, sizeof *o);
    bl_layout_defaults(&o->run.layout);
    o->run.layout.np = 1; /* a sweep file always names it */
    while (dd < argc && strcmp(argv[dd], "--") != 0)
        dd++;
    if ((rc = bl_cli_parse(&spec, dd, argv, o)) >= 0 ||
        (rc = read_values(o)) >= 0)
        return rc;
    if (dd + 1 >= argc)
        return bl_cli_usage_error(VERB, "give the program after '--': "
                                  "bindlab run [options] -- PROGRAM [ARGS]");
    o->run.program = argv + dd + 1;
    if (o->out && (rc = check_out(o->out)) >= 0)
        return rc;
    if (bl_run_program_find(argv[dd + 1], program, prog_len, &err) < 0 ||
        bl_run_program_check(program, &err) < 0) {
        fprintf(stderr, "bindlab run: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    if (!o->out && default_out(out, out_len, &err) < 0) {
        fprintf(stderr, "bindlab run: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    if (o->out)
        bl_textf(out, out_len, "%s", o->out);
    return -1;
}

/* host rank thread label cpus cpuset, one line per placement row. */
static void print_table(const bl_h5_run *r)
{
    printf("%-16s %4s %6s %-22s %-10s %s\n", "host", "rank", "thread",
           "label", "cpus", "cpuset");
    for (size_t i = 0; i < r->nplacement; i++) {
        const bl_h5_placement *p = &r->placement[i];
        const bl_h5_thread *t = i < r->nthread_rows ? &r->thread_rows[i]
                                                    : NULL;
        printf("%-16s %4d %6d %-22s %-10s %s\n", p->host, p->rank,
               p->thread, t ? t->label : "-", t ? t->seen_cpus : "-",
               p->cpuset);
    }
}

static void print_checks(const bl_run_outcome *o)
{
    const bl_h5_harness *h = &o->h;
    printf("\nflags: %s\n", h->flags && *h->flags ? h->flags : "none");
    for (size_t i = 0; i < h->nchecks; i++)
        if (h->checks[i].matches == 0)
            printf("binding-mismatch: rank %d: the launcher says %s, the "
                   "rank started with %s\n", h->checks[i].rank,
                   h->checks[i].claimed, h->checks[i].seen);
    for (size_t i = 0; i < o->nnotes; i++)
        printf("%s\n", o->notes[i]);
    printf("status: %s%s%s\n", h->status, h->reason && *h->reason ? ": " : "",
           h->reason ? h->reason : "");
}

/* "bindlab run ...": the record's command (argv[0] is the verb). */
static char *own_command(char **argv)
{
    char *joined = bl_shell_join(argv), *s;
    if (!joined || !(s = malloc(strlen(joined) + 9))) {
        free(joined);
        return NULL;
    }
    sprintf(s, "bindlab %s", joined);
    free(joined);
    return s;
}

int bl_cli_run(int argc, char **argv)
{
    char out[PATH_MAX], program[PATH_MAX], probe[PATH_MAX];
    char **words = NULL, *command;
    run_cli o;
    bl_run_outcome res;
    bl_err err;
    int rc = parse_args(argc, argv, &o, out, sizeof out, program,
                        sizeof program);
    if (rc >= 0)
        return rc;
    if (bl_run_probe_path(probe, sizeof probe, &err) < 0) {
        fprintf(stderr, "bindlab run: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    /* the program as checked, its arguments as given */
    for (words = (char **)o.run.program; *words; words++)
        ;
    words = calloc((size_t)(words - (char **)o.run.program) + 1,
                   sizeof *words);
    if (!words)
        return BL_EXIT_FAILED;
    words[0] = program;
    for (size_t i = 1; o.run.program[i]; i++)
        words[i] = o.run.program[i];
    o.run.program = words;
    o.run.out = out;
    o.run.probe = probe;
    o.run.command = command = own_command(argv);
    rc = bl_run(&o.run, &res, &err);
    if (rc < 0) {
        fprintf(stderr, "bindlab run: %s\n", err.msg);
        rc = rc == -2 ? BL_EXIT_USAGE : BL_EXIT_FAILED;
    } else {
        print_table(&res.run);
        print_checks(&res);
        printf("record: %s (output: %s)\n", out, res.log);
        rc = strcmp(res.h.status, "ok") == 0 ? BL_EXIT_OK : BL_EXIT_FAILED;
        if (res.interrupted_by)
            fprintf(stderr, "bindlab run: %s; what the probe recorded is "
                    "kept in %s\n", res.h.reason, out);
    }
    if (res.interrupted_by)
        rc = BL_EXIT_SIGNAL + res.interrupted_by;
    bl_run_outcome_free(&res);
    free(words);
    free(command);
    return rc;
}
