/* bindlab slurm: write (and optionally submit) the batch scripts of a
 * sweep. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "sweep/sweep_file.h"
#include "cli/datadir.h"
#include "proc/shellquote.h"
#include "same_file.h"
#include "slurm/slurm.h"
#include "sys_util.h"
#include "topo.h"
#include "units.h"

#define MAX_MODULES 32

static const char usage[] =
"usage: bindlab slurm SWEEP.yaml [OPTIONS]\n"
"\n"
"Writes a Slurm batch script that runs `bindlab sweep SWEEP.yaml` on an\n"
"exclusive node, with #SBATCH lines derived from the layouts: ntasks-per-node\n"
"is the most ranks a layout puts on a node (mpirun's slot count),\n"
"cpus-per-task covers the most CPUs a layout keeps busy. The job sets\n"
"SLURM_CPU_BIND=none before mpirun (Open MPI binds, Slurm does not), and\n"
"records `scontrol show job`, the SLURM_* variables and lstopo's view of\n"
"the node under RESULTS/slurm/NAME-JOBID/. Every path is absolute and every\n"
"value in the script body is shell-quoted.\n"
"\n"
"When sinfo answers, layouts are checked against the partition's node\n"
"shape (sockets:cores:threads) and CPU count and refused with the\n"
"arithmetic if they do not fit; otherwise against this machine.\n"
"\n"
"options:\n"
"  -o FILE               the script (default slurm/NAME.sbatch)\n"
"  --array[=K]           K array tasks, each running shard I/K of the sweep\n"
"                        (default K: one run per task), plus FILE's merge\n"
"                        job (X.merge.sbatch) that merges them into\n"
"                        RESULTS/NAME.h5 and reports missing or failed shards\n"
"  --nodes N             nodes per job (default 1)\n"
"  --partition P         --account A    --time T    (#SBATCH lines)\n"
"  --module M            add `module load M` (repeatable; none by default)\n"
"  --results DIR         results directory (default ./results)\n"
"  --app PATH            bindlab-app (default: beside this bindlab)\n"
"  --launcher mpirun|srun  how the job launches ranks (default mpirun)\n"
"  --topology FILE|SYNTH check layouts against this node instead\n"
"  --oversubscribe       pass --oversubscribe to bindlab sweep\n"
"  --submit              sbatch --parsable the script(s), print job ids\n"
"\n"
"exit status: 0 written (and submitted), 1 sbatch failed, 2 bad input or\n"
"layouts that do not fit the partition.\n";

typedef struct cli {
    const char *file, *out, *results, *app, *topology, *launcher;
    const char *partition, *account, *time_limit;
    const char *modules[MAX_MODULES];
    int nmodules, nodes, array, array_given, oversubscribe, submit;
} cli;

#define VERB "slurm"

/* The option hooks: each checks its value; 0 to go on, -1 with err. */
static int set_array(void *opts, const char *v, bl_err *err)
{
    cli *c = opts;
    long k;
    c->array_given = 1;
    if (!v)
        return 0;
    if (bl_parse_long(v, "--array", 1, 100000, &k, err) < 0)
        return -1;
    c->array = (int)k;
    return 0;
}

static int set_nodes(void *opts, const char *v, bl_err *err)
{
    long n;
    if (bl_parse_long(v, "--nodes", 1, 100000, &n, err) < 0)
        return -1;
    ((cli *)opts)->nodes = (int)n;
    return 0;
}

static int add_module(void *opts, const char *v, bl_err *err)
{
    cli *c = opts;
    if (c->nmodules == MAX_MODULES)
        return bl_err_set(err, "--module: more than %d modules", MAX_MODULES);
    c->modules[c->nmodules++] = v;
    return 0;
}

static int set_launcher(void *opts, const char *v, bl_err *err)
{
    (void)opts;
    if (strcmp(v, "mpirun") && strcmp(v, "srun"))
        return bl_err_set(err, "--launcher: '%s' is not accepted; use mpirun "
                          "or srun", v);
    return 0;
}

#define SLOT(field) offsetof(cli, field)
static const bl_cli_opt options[] = {
    {"-o", BL_OPT_VALUE, "FILE", "the script", SLOT(out), NULL, NULL},
    {"--array", BL_OPT_OPTIONAL, "K", "K array tasks, each one shard, and a "
     "merge job", BL_OPT_NO_SLOT, set_array, NULL},
    {"--nodes", BL_OPT_VALUE, "N", "nodes per job", BL_OPT_NO_SLOT,
     set_nodes, NULL},
    {"--partition", BL_OPT_VALUE, "P", "#SBATCH --partition",
     SLOT(partition), NULL, NULL},
    {"--account", BL_OPT_VALUE, "A", "#SBATCH --account", SLOT(account),
     NULL, NULL},
    {"--time", BL_OPT_VALUE, "T", "#SBATCH --time", SLOT(time_limit), NULL,
     NULL},
    {"--module", BL_OPT_VALUE, "M", "add `module load M` (repeatable)",
     BL_OPT_NO_SLOT, add_module, NULL},
    {"--results", BL_OPT_VALUE, "DIR", "results directory", SLOT(results),
     NULL, NULL},
    {"--app", BL_OPT_VALUE, "PATH", "bindlab-app", SLOT(app), NULL, NULL},
    {"--launcher", BL_OPT_VALUE, "mpirun|srun", "how the job launches ranks",
     SLOT(launcher), set_launcher, NULL},
    {"--topology", BL_OPT_VALUE, "FILE|SYNTH", "check layouts against this "
     "node", SLOT(topology), NULL, NULL},
    {"--oversubscribe", BL_OPT_FLAG, NULL, "pass --oversubscribe to bindlab "
     "sweep", SLOT(oversubscribe), NULL, NULL},
    {"--submit", BL_OPT_FLAG, NULL, "sbatch the script(s)", SLOT(submit),
     NULL, NULL},
};

static const char *const help[] = {usage, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help, .opts = options,
    .nopts = BL_CLI_NOPTS(options), .word_slot = SLOT(file),
    .one_word = "one sweep file only; '%s' is a second"};

static int parse_args(int argc, char **argv, cli *c)
{
    bl_err err;
    int rc = bl_cli_parse(&spec, argc, argv, c);
    if (rc >= 0)
        return rc;
    if (!c->file)
        return bl_cli_usage_error(VERB, "no sweep file given");
    {   /* a shipped sweep by short name ("default") */
        static char shipped[PATH_MAX];
        c->file = bl_data_sweep(c->file, shipped, sizeof shipped);
    }
    {   /* the script must not replace what it was made from */
        const char *inputs[] = {c->file, c->topology, c->app};
        if (c->out && bl_check_output_not_input(c->out, inputs, 3, &err) < 0) {
            fprintf(stderr, "bindlab slurm: -o %s\n", err.msg);
            return BL_EXIT_USAGE;
        }
    }
    /* Before sinfo is asked anything: these go into #SBATCH lines. */
    if ((c->partition &&
         bl_slurm_check_sbatch_value("--partition", c->partition, &err) < 0) ||
        (c->account &&
         bl_slurm_check_sbatch_value("--account", c->account, &err) < 0) ||
        (c->time_limit &&
         bl_slurm_check_sbatch_value("--time", c->time_limit, &err) < 0))
        return bl_cli_usage_error(VERB, "%s", err.msg);
    return -1; /* go on */
}

/* path made absolute without requiring it to exist (results/ may not). */
static int absolute(const char *path, char *buf, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return bl_textf(buf, len, "%s", path);
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return bl_textf(buf, len, "%s/%s", cwd, path);
}

/* The node shape to check layouts against: --topology, else what sinfo
 * says, else this machine. *have_part: sinfo answered. */
static int pick_topology(const cli *c, hwloc_topology_t *topo,
                         bl_slurm_partition *part, int *have_part,
                         bl_err *err)
{
    char synth[128];
    int rc = bl_slurm_query_partition(NULL, c->partition, part, err);
    if (rc == -2)
        return -1; /* Slurm answered: the partition does not exist */
    *have_part = rc == 0;
    if (!*have_part)
        fprintf(stderr, "bindlab slurm: note: %s; CPUs per node not "
                "checked against a partition\n", err->msg);
    if (c->topology) {
        char shipped[PATH_MAX];
        return bl_topo_load(strchr(c->topology, ':') ? c->topology
                            : bl_data_resolve("topologies", ".xml", c->topology,
                                              shipped, sizeof shipped),
                            topo, err);
    }
    if (*have_part && bl_slurm_partition_synthetic(part, synth,
                                                   sizeof synth) == 0)
        return bl_topo_load(synth, topo, err);
    return bl_topo_load(NULL, topo, err);
}

static int paths(const cli *c, char *bindlab, char *app, char *sweep,
                 char *results, bl_err *err)
{
    if (bl_self_path(bindlab, PATH_MAX, err) < 0)
        return -1;
    if (!realpath(c->file, sweep))
        return bl_err_set(err, "%s: %s", c->file, strerror(errno));
    if (absolute(c->results ? c->results : "results", results, PATH_MAX) < 0)
        return bl_err_set(err, "--results: path too long");
    if (c->app) {
        if (!realpath(c->app, app))
            return bl_err_set(err, "--app %s: %s", c->app, strerror(errno));
    } else if (bl_beside_self("bindlab-app", app, PATH_MAX, err) < 0) {
        return -1;
    }
    if (access(app, X_OK) < 0)
        return bl_err_set(err, "%s: not executable (the job runs it; give "
                          "--app PATH)", app);
    return 0;
}

/* omp_runtime libomp / intel: the path the job's sweep needs, from the
 * variable bindlab sweep reads (sweep_omp.h), made absolute into buf;
 * *out NULL when no layout asks for runtime. */
static int omp_path(const bl_sweep *s, const char *runtime, const char *var,
                    char *buf, const char **out, bl_err *err)
{
    const char *v = getenv(var);
    int asked = 0;
    *out = NULL;
    for (int i = 0; i < s->nlayouts; i++)
        asked |= strcmp(s->layouts[i].omp_runtime, runtime) == 0;
    if (!asked)
        return 0;
    if (!v || !*v || !realpath(v, buf))
        return bl_err_set(err, "omp_runtime %s: set %s to %s (the job's "
                          "sweep needs it; docs/openmp-runtimes.md)", runtime,
                          var, strcmp(runtime, "libomp") == 0
                                   ? "the clang-built bindlab-app"
                                   : "Intel's libiomp5.so");
    *out = buf;
    return 0;
}

static int omp_paths(const bl_sweep *s, bl_slurm_opts *o, char *app_libomp,
                     char *libiomp5, bl_err *err)
{
    return omp_path(s, "libomp", "BINDLAB_APP_LIBOMP", app_libomp,
                    &o->app_libomp, err) < 0 ||
                   omp_path(s, "intel", "BINDLAB_LIBIOMP5", libiomp5,
                            &o->libiomp5, err) < 0
               ? -1
               : 0;
}

/* "bindlab slurm ARGS...", quoted, for the script's header. */
static char *command_line(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 2, sizeof *v);
    char *line;
    if (!v)
        return NULL;
    v[0] = "bindlab";
    for (int i = 0; i < argc; i++)
        v[i + 1] = argv[i];
    line = bl_shell_join(v);
    free(v);
    return line;
}

static int submit(const char *script, const char *merge, int array)
{
    char job[64], mjob[64], dep[96];
    bl_err err;
    if (bl_slurm_submit(NULL, script, NULL, NULL, job, sizeof job, &err) < 0) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        return BL_EXIT_FAILED;
    }
    if (!array) {
        printf("submitted: job %s\n", job);
        return BL_EXIT_OK;
    }
    snprintf(dep, sizeof dep, "afterany:%s", job);
    if (bl_slurm_submit(NULL, merge, dep, job, mjob, sizeof mjob, &err) < 0) {
        fprintf(stderr, "bindlab slurm: array job %s submitted, but its "
                "merge job was not: %s\n", job, err.msg);
        return BL_EXIT_FAILED;
    }
    printf("submitted: array job %s, merge job %s\n", job, mjob);
    return BL_EXIT_OK;
}

static void print_submit_hint(const char *out, const char *merge, int array)
{
    char *q = bl_shell_quote(out), *m = bl_shell_quote(merge);
    if (array)
        printf("submit: jid=$(sbatch --parsable %s) && sbatch "
               "--dependency=afterany:$jid %s $jid\n", q ? q : "?",
               m ? m : "?");
    else
        printf("submit: sbatch %s\n", q ? q : "?");
    free(q);
    free(m);
}

static int write_all(const cli *c, const bl_slurm_opts *o, const bl_sweep *s,
                     const bl_slurm_needs *n, const char *out, char *merge)
{
    bl_err err;
    char *text = bl_slurm_script(o, s, n, &err), *mtext = NULL;
    char dir[PATH_MAX], *slash;
    int rc = BL_EXIT_OK;
    if (text && o->array && !(mtext = bl_slurm_merge_script(o, s, &err)))
        rc = -1;
    if (!text || rc < 0 || (o->array && bl_slurm_merge_path(out, merge,
                                                            PATH_MAX, &err) < 0)) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        free(text);
        free(mtext);
        return BL_EXIT_USAGE;
    }
    /* Slurm does not create the directory of --output: a job whose output
     * cannot be opened fails without a word. */
    bl_textf(dir, sizeof dir, "%s/slurm", o->results);
    if (bl_mkdir_p(dir, &err) < 0) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        rc = BL_EXIT_FAILED;
    }
    bl_textf(dir, sizeof dir, "%s", out);
    slash = strrchr(dir, '/');
    if (rc == 0 && slash && slash != dir) {
        *slash = '\0';
        bl_mkdir_p(dir, NULL); /* the script's writer says what failed */
    }
    /* A device, directory or FIFO at either path, or an input (the merge
     * script's name is made from -o's), is bad input, refused before
     * either script is written. */
    const char *inputs[] = {c->file, c->topology, c->app};
    if (rc == 0 && (bl_atomic_check_target(out, &err) < 0 ||
                    bl_check_output_not_input(out, inputs, 3, &err) < 0 ||
                    (mtext && (bl_atomic_check_target(merge, &err) < 0 ||
                               bl_check_output_not_input(merge, inputs, 3,
                                                         &err) < 0)))) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        rc = BL_EXIT_USAGE;
    }
    if (rc == 0 && (bl_slurm_write_script(out, text, &err) < 0 ||
                    (mtext && bl_slurm_write_script(merge, mtext, &err) < 0))) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        rc = BL_EXIT_FAILED;
    }
    free(text);
    free(mtext);
    return rc;
}

int bl_cli_slurm(int argc, char **argv)
{
    cli c = {0};
    bl_sweep s;
    bl_err err = {""};
    hwloc_topology_t topo;
    bl_slurm_partition part;
    bl_slurm_needs need;
    bl_slurm_opts o = {0};
    char bindlab[PATH_MAX], app[PATH_MAX], sweep[PATH_MAX], results[PATH_MAX];
    char out[PATH_MAX], merge[PATH_MAX] = "", job[96], *cmd = NULL;
    char workdir[PATH_MAX], app_libomp[PATH_MAX], libiomp5[PATH_MAX];
    int have_part = 0, rc;

    c.nodes = 1;
    if ((rc = parse_args(argc, argv, &c)) >= 0)
        return rc;
    if (bl_sweep_file_load(c.file, &s, &err) < 0) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    rc = pick_topology(&c, &topo, &part, &have_part, &err);
    if (rc == 0) {
        rc = bl_slurm_needs_compute(&s, topo, c.nodes, c.oversubscribe, &need,
                                    &err);
        hwloc_topology_destroy(topo);
    }
    if (rc == 0 && have_part)
        rc = bl_slurm_check_fit(&s, &need, &part, &err);
    if (rc == 0 && (rc = paths(&c, bindlab, app, sweep, results, &err)) == 0)
        rc = omp_paths(&s, &o, app_libomp, libiomp5, &err);
    if (rc == 0 && c.array_given && c.array > need.nruns)
        rc = bl_err_set(&err, "--array=%d: the sweep has %d runs, so some "
                        "shards would be empty; give at most %d", c.array,
                        need.nruns, need.nruns);
    if (rc < 0) {
        fprintf(stderr, "bindlab slurm: %s\n", err.msg);
        bl_sweep_free(&s);
        return BL_EXIT_USAGE;
    }
    bl_slurm_job_name(s.name, job, sizeof job);
    if (c.out)
        bl_textf(out, sizeof out, "%s", c.out);
    else
        bl_textf(out, sizeof out, "slurm/%s.sbatch", job + 8);
    o.bindlab = bindlab;
    o.app = app;
    o.sweep_file = sweep;
    o.results = results;
    o.partition = c.partition;
    o.account = c.account;
    o.time_limit = c.time_limit;
    o.modules = c.modules;
    o.nmodules = c.nmodules;
    o.launcher = c.launcher;
    o.nodes = need.nodes;
    o.array = c.array_given ? (c.array ? c.array : need.nruns) : 0;
    o.oversubscribe = c.oversubscribe;
    cmd = command_line(argc, argv);
    o.command = cmd;
    if (s.app && getcwd(workdir, sizeof workdir))
        o.workdir = workdir;
    rc = write_all(&c, &o, &s, &need, out, merge);
    free(cmd);
    if (rc == 0) {
        printf("wrote %s%s%s: %d run%s, %d node%s x %d tasks x %d CPUs%s\n",
               out, o.array ? " and " : "", o.array ? merge : "", need.nruns,
               need.nruns == 1 ? "" : "s", o.nodes, o.nodes == 1 ? "" : "s",
               need.ntasks_per_node, need.cpus_per_task,
               have_part ? "" : " (partition not checked: no sinfo)");
        if (o.array)
            printf("array of %d shard%s\n", o.array, o.array == 1 ? "" : "s");
        if (c.submit)
            rc = submit(out, merge, o.array > 0);
        else
            print_submit_hint(out, merge, o.array > 0);
    }
    bl_sweep_free(&s);
    return rc;
}
