/* bindlab sweep: the command line of the product's main job. */
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "cli/datadir.h"
#include "launcher/launcher_choice.h"
#include "proc/launch.h"
#include "same_file.h"
#include "sweep/noisy.h"
#include "sweep/sweep.h"
#include "units.h"

#define VERB "sweep"

static const char usage[] =
"usage: bindlab sweep [OPTIONS] [SWEEP.yaml]\n"
"\n"
"Runs bindlab-app under every layout of a sweep file (default\n"
"configs/sweeps/default.yaml, else the installed one; a shipped sweep may\n"
"be named short: default, workshop, epyc-2s, ...; `bindlab --version` shows\n"
"where they are) with mpirun --report-bindings, checks what\n"
"each rank got against what the launcher claimed, and writes one record per\n"
"run under RESULTS/NAME.d/ as soon as it ends, merged into RESULTS/NAME.h5\n"
"(see docs/schema.md). Killing the sweep loses no finished run.\n"
"\n";
static const char usage_options[] =
"options:\n"
"  -o, --out FILE.h5     merged results file (default RESULTS/NAME.h5)\n"
"  --results DIR         results directory (default results)\n"
"  --app PATH            bindlab-app to run (default: beside bindlab)\n"
"  --app-libomp PATH     bindlab-app built with clang, for layouts with\n"
"                        omp_runtime: libomp (default $BINDLAB_APP_LIBOMP)\n"
"  --libiomp5 PATH       Intel's libiomp5.so, preloaded into the ranks of\n"
"                        layouts with omp_runtime: intel (default\n"
"                        $BINDLAB_LIBIOMP5); docs/openmp-runtimes.md\n"
"  --launcher L          mpirun (default: the mpirun in PATH, any MPI),\n"
"                        openmpi, ompi4, ompi5, mpich, impi (the family\n"
"                        is checked; mpich and impi start mpiexec), srun\n"
"                        (inside a Slurm allocation), or a launcher's\n"
"                        path; overrides the sweep file's launcher:\n"
"  --mpirun PATH         the launcher program to run (checked against the\n"
"                        family named)\n"
"  --dry-run             print every command line and stop (exit 2 when a\n"
"                        layout cannot run here, unless --skip-invalid)\n"
"  --resume              keep finished runs of an earlier, interrupted sweep\n"
"  --skip-invalid        record layouts this node cannot run as invalid and\n"
"                        run the rest (default: refuse before running)\n"
"  --oversubscribe       allow more ranks than cores\n"
"  --shard I/K           run only runs I, I+K, I+2K... (1-based; Slurm arrays)\n"
"  --timeout SECONDS     per-run timeout for every layout\n"
"  --retry N             launch a run again, up to N times, when it died\n"
"                        before the app started (no rank got past\n"
"                        MPI_Init: a launcher failure, Open MPI 4.1's\n"
"                        wire-up race); never a run that started, failed\n"
"                        or timed out. Each attempt's log is kept\n"
"                        (rNNNN.tryK.log) and the record counts the\n"
"                        launches (default 0; overrides the file's retry:)\n"
"  --repetition-order interleaved|consecutive\n"
"                        A B A B (default; drift hits every layout alike)\n"
"                        or A A B B; overrides the file's repetition_order\n"
"  --noisy SPEC          run a noisy neighbour beside every run: cpu, mem or\n"
"                        cpu+mem, then ,free (default) or ,pinned=CPUS, e.g.\n"
"                        --noisy cpu,pinned=1; 'bindlab hog' processes in\n"
"                        their own process group, killed and reaped when\n"
"                        each run ends; recorded in the run (overrides the\n"
"                        file's noisy:; none turns it off)\n"
"  --node-topologies DIR a layout with nodes: N is checked node by node,\n"
"                        each of the allocation's first N hosts with the\n"
"                        ranks it gets against its own topology: DIR/HOST.xml\n"
"                        (hwloc XML), or a bindlab slurm job's record\n"
"                        (DIR/nodes/HOST/lstopo.xml); a host without one is\n"
"                        checked with this machine's (said on stderr).\n"
"                        mpirun's --host gives each node its own cores\n"
"                        (default: every node is checked as this machine)\n"
"\n"
"One sweep at a time per results directory: a second one is refused (exit\n"
"1) with the PID of the first. Killing the sweep kills its run in flight.\n"
"\n"
"exit status: 0 all runs ok, 1 some run failed or timed out (recorded) or\n"
"another sweep holds the results, 2 bad input (nothing ran), 130 or 143\n"
"interrupted by SIGINT or SIGTERM (finished runs kept).\n";

/* The option hooks: each checks its value (and converts what is not kept
 * as text); 0 to go on, -1 with err. */
static int set_shard(void *opts, const char *v, bl_err *err)
{
    bl_sweep_opts *o = opts;
    char extra;
    int i, k;
    if (sscanf(v, "%d/%d%c", &i, &k, &extra) != 2 || k < 1 || i < 1 || i > k)
        return bl_err_set(err, "--shard: '%s' is not I/K with 1 <= I <= K "
                          "(e.g. 2/8)", v);
    o->shard = i;
    o->nshards = k;
    return 0;
}

static int set_repetition_order(void *opts, const char *v, bl_err *err)
{
    bl_sweep_opts *o = opts;
    if (bl_rep_order_parse(v, &o->repetition_order) < 0)
        return bl_err_set(err, "--repetition-order: '%s' is not accepted; "
                          "use interleaved (A B A B) or consecutive (A A B "
                          "B)", v);
    return 0;
}

static int set_noisy(void *opts, const char *v, bl_err *err)
{
    bl_noisy n;
    (void)opts;
    return bl_noisy_parse(v, &n, err) < 0 ? bl_err_prefix(err, "--noisy")
                                           : 0;
}

static int set_retry(void *opts, const char *v, bl_err *err)
{
    bl_sweep_opts *o = opts;
    long n;
    if (bl_parse_long(v, "--retry", 0, BL_RETRY_MAX, &n, err) < 0)
        return -1;
    o->retry_given = 1;
    o->retry = (int)n;
    return 0;
}

static int set_timeout(void *opts, const char *v, bl_err *err)
{
    bl_sweep_opts *o = opts;
    long n;
    if (bl_parse_long(v, "--timeout", 1, 86400 * 7, &n, err) < 0)
        return -1;
    o->timeout_s = (double)n;
    return 0;
}

static int set_file(void *opts, const char *v, bl_err *err)
{
    (void)err;
    ((bl_sweep_opts *)opts)->file = v;
    return 0;
}

#define SLOT(field) offsetof(bl_sweep_opts, field)
static const bl_cli_opt options[] = {
    {"-o, --out", BL_OPT_VALUE, "FILE.h5", "merged results file",
     SLOT(out), NULL, NULL},
    {"--results", BL_OPT_VALUE, "DIR", "results directory", SLOT(results),
     NULL, NULL},
    {"--app", BL_OPT_VALUE, "PATH", "bindlab-app to run", SLOT(app), NULL,
     NULL},
    {"--app-libomp", BL_OPT_VALUE, "PATH", "bindlab-app built with clang "
     "(omp_runtime: libomp)", SLOT(app_libomp), NULL, NULL},
    {"--libiomp5", BL_OPT_VALUE, "PATH", "Intel's libiomp5.so (omp_runtime: "
     "intel)", SLOT(libiomp5), NULL, NULL},
    {"--launcher", BL_OPT_VALUE, "L", "the launcher (family or path)",
     SLOT(launcher), bl_cli_launcher_check, NULL},
    {"--mpirun", BL_OPT_VALUE, "PATH", "the launcher program to run",
     SLOT(launcher_path), NULL, NULL},
    {"--dry-run", BL_OPT_FLAG, NULL, "print every command line and stop",
     SLOT(dry_run), NULL, NULL},
    {"--resume", BL_OPT_FLAG, NULL, "keep finished runs of an earlier sweep",
     SLOT(resume), NULL, NULL},
    {"--skip-invalid", BL_OPT_FLAG, NULL, "record layouts that cannot run "
     "here as invalid", SLOT(skip_invalid), NULL, NULL},
    {"--oversubscribe", BL_OPT_FLAG, NULL, "allow more ranks than cores",
     SLOT(oversubscribe), NULL, NULL},
    {"--shard", BL_OPT_VALUE, "I/K", "run only runs I, I+K, I+2K...",
     BL_OPT_NO_SLOT, set_shard, NULL},
    {"--timeout", BL_OPT_VALUE, "SECONDS", "per-run timeout",
     BL_OPT_NO_SLOT, set_timeout, NULL},
    {"--retry", BL_OPT_VALUE, "N", "launch a run again when it died before "
     "the app started", BL_OPT_NO_SLOT, set_retry, NULL},
    {"--repetition-order", BL_OPT_VALUE, "interleaved|consecutive",
     "A B A B or A A B B", BL_OPT_NO_SLOT, set_repetition_order, NULL},
    {"--noisy", BL_OPT_VALUE, "SPEC", "a noisy neighbour beside every run",
     SLOT(noisy), set_noisy, NULL},
    {"--node-topologies", BL_OPT_VALUE, "DIR", "each node's topology",
     SLOT(node_topologies), NULL, NULL},
};

static const char *const help[] = {usage, usage_options, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help, .opts = options,
    .nopts = BL_CLI_NOPTS(options), .positional = set_file};

int bl_cli_sweep(int argc, char **argv)
{
    bl_sweep_opts o = {0};
    bl_sweep_totals t;
    bl_err err = {""};
    char shipped_file[PATH_MAX];
    int rc;

    o.file = BL_DEFAULT_SWEEP;
    o.progress = stdout;
    if ((rc = bl_cli_parse(&spec, argc, argv, &o)) >= 0)
        return rc;
    o.file = bl_data_sweep(o.file, shipped_file, sizeof shipped_file);
    {   /* the results must not replace what the sweep runs from */
        const char *inputs[] = {o.file, o.app, o.launcher_path};
        if (bl_check_output_not_input(o.out, inputs, 3, &err) < 0) {
            fprintf(stderr, "bindlab sweep: -o %s\n", err.msg);
            return BL_EXIT_USAGE;
        }
    }

    rc = bl_sweep_run(&o, &t, &err);
    if (rc == -3) {  /* busy, not bad input: the same command works later */
        fprintf(stderr, "bindlab sweep: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    if (rc == -1) {
        fprintf(stderr, "bindlab sweep: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    if (o.dry_run)
        return BL_EXIT_OK;
    printf("sweep: %d run%s: %d ok, %d failed, %d timeout, %d invalid",
           t.runs, t.runs == 1 ? "" : "s", t.ok, t.failed, t.timeout,
           t.invalid);
    if (t.skipped)
        printf(", %d already done", t.skipped);
    printf("; %.1f s", t.wall_s);
    if (t.runs > 0)
        printf(" (harness overhead %.3f s per run)",
               (t.wall_s - t.launch_s) / t.runs);
    printf("\n");
    if (rc == -2) {
        int sig = bl_launch_caught_signal();
        fprintf(stderr, "bindlab sweep: interrupted by %s; finished runs are "
                "kept, continue with --resume\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT");
        return BL_EXIT_SIGNAL + (sig ? sig : SIGINT);
    }
    return (t.failed || t.timeout) ? BL_EXIT_FAILED : BL_EXIT_OK;
}
