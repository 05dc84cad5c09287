/* The text of the generated batch scripts. Two kinds of places take
 * values: #SBATCH lines, which sbatch reads without a shell (so values
 * there are restricted to a plain character set and refused otherwise),
 * and the script body, where every value is assigned once, shell-quoted,
 * to a variable and used only as "$variable". */
#include "slurm/slurm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/shellquote.h"
#include "sweep/sweep_app.h"
#include "strbuf.h"

typedef bl_strbuf sbuf;

static void put(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bl_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* name=QUOTED: the only way a value enters the script body. */
static void assign(sbuf *b, const char *name, const char *value)
{
    char *q = bl_shell_quote(value ? value : "");
    if (!q) {
        b->failed = 1;
        return;
    }
    put(b, "%s=%s\n", name, q);
    free(q);
}

static char *finish(sbuf *b, bl_err *err)
{
    char *s = bl_strbuf_take(b);
    if (!s)
        bl_err_set(err, "out of memory writing the batch script");
    return s;
}

int bl_slurm_check_sbatch_value(const char *what, const char *value,
                                bl_err *err)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                             "TUVWXYZ0123456789_.:,/+@%=-";
    if (!value || !*value)
        return bl_err_set(err, "%s: empty value", what);
    if (value[0] == '-' || value[strspn(value, ok)] != '\0')
        return bl_err_set(err, "%s: '%s' cannot go into an #SBATCH line "
                          "(sbatch does not read shell quoting there); "
                          "accepted: letters, digits and _ . : , / + @ %% = "
                          "-, not starting with '-'", what, value);
    return 0;
}

void bl_slurm_job_name(const char *sweep_name, char *buf, size_t len)
{
    size_t n;
    if (len == 0)
        return;
    snprintf(buf, len, "bindlab-%s", sweep_name);
    n = strlen(buf);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            buf[i] = '_';
    }
}

/* n colon-separated whole numbers at *p (1 to max), the first up to
 * first_digits digits, the others 0..59 in two digits; *p moved past. */
static int time_fields(const char **p, int max, int first_digits)
{
    int n = 0;
    do {
        size_t d = strspn(*p, "0123456789");
        if (d == 0 || (int)d > (n == 0 ? first_digits : 2) ||
            (n > 0 && ((*p)[0] - '0') * 10 + ((*p)[1] - '0') > 59))
            return -1;
        *p += d;
        n++;
    } while (**p == ':' && n < max && (*p)++);
    return n;
}

/* As sbatch --time reads it: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:
 * SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS,
 * or UNLIMITED / INFINITE. */
static int slurm_time_ok(const char *t)
{
    const char *p = t, *dash = strchr(t, '-');
    if (!strcmp(t, "UNLIMITED") || !strcmp(t, "INFINITE"))
        return 1;
    if (dash) {
        size_t d = strspn(t, "0123456789");
        if (d == 0 || d > 4 || t + d != dash)
            return 0;
        p = dash + 1;
        return time_fields(&p, 3, 2) > 0 && *p == '\0';
    }
    return time_fields(&p, 3, 7) > 0 && *p == '\0';
}

static int check_opts(const bl_slurm_opts *o, const bl_sweep *s, bl_err *err)
{
    /* $name becomes part of the metadata directory: the sweep-file reader
     * already refuses a name that is a path; a sweep built in code too. */
    if (!bl_sweep_name_ok(s->name))
        return bl_err_set(err, "slurm script: sweep name '%s' is not one "
                          "safe path component", s->name);
    if (!o->bindlab || !o->app || !o->sweep_file || !o->results)
        return bl_err_set(err, "slurm script: the bindlab, bindlab-app, "
                          "sweep file and results paths are all needed");
    if (o->nodes < 1)
        return bl_err_set(err, "--nodes %d: give 1 or more", o->nodes);
    if (o->array < 0)
        return bl_err_set(err, "--array=%d: give 1 or more", o->array);
    /* The output paths of #SBATCH --output contain the results directory. */
    if (bl_slurm_check_sbatch_value("--results (it is part of #SBATCH "
                                    "--output)", o->results, err) < 0 ||
        (o->partition &&
         bl_slurm_check_sbatch_value("--partition", o->partition, err) < 0) ||
        (o->account &&
         bl_slurm_check_sbatch_value("--account", o->account, err) < 0) ||
        (o->time_limit &&
         bl_slurm_check_sbatch_value("--time", o->time_limit, err) < 0))
        return -1;
    if (o->time_limit && !slurm_time_ok(o->time_limit))
        return bl_err_set(err, "--time: '%s' is not a Slurm time; accepted: "
                          "MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, "
                          "DAYS-HOURS[:MINUTES[:SECONDS]] (minutes up to 7 "
                          "digits, days up to 4, the others 00-59) or "
                          "UNLIMITED, e.g. 2:00:00", o->time_limit);
    return 0;
}

static void header(sbuf *b, const bl_slurm_opts *o, const bl_sweep *s,
                   const char *what)
{
    char *cmd = strdup(o->command ? o->command : "bindlab slurm");
    /* No value from the sweep file goes into a comment, and the command
     * goes in with its control characters as '?': a newline would end
     * the comment and start a line of shell. */
    for (char *p = cmd; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    put(b, "#!/bin/bash\n");
    put(b, "# %s, written by bindlab %s.\n", what, BINDLAB_VERSION);
    put(b, "# Generated by: %s\n", cmd ? cmd : "?");
    put(b, "# Regenerate it rather than editing it; slurm/README.md explains "
           "each line.\n");
    (void)s;
    free(cmd);
}

static void sbatch_common(sbuf *b, const bl_slurm_opts *o, const bl_sweep *s)
{
    char job[96];
    bl_slurm_job_name(s->name, job, sizeof job);
    put(b, "#SBATCH --job-name=%s\n", job);
    if (o->partition)
        put(b, "#SBATCH --partition=%s\n", o->partition);
    if (o->account)
        put(b, "#SBATCH --account=%s\n", o->account);
    if (o->time_limit)
        put(b, "#SBATCH --time=%s\n", o->time_limit);
}

static void body_common(sbuf *b, const bl_slurm_opts *o, const bl_sweep *s)
{
    put(b, "\nset -uo pipefail\n\n");
    assign(b, "bindlab", o->bindlab);
    assign(b, "app", o->app);
    if (o->app_libomp)
        assign(b, "app_libomp", o->app_libomp);
    if (o->libiomp5)
        assign(b, "libiomp5", o->libiomp5);
    assign(b, "sweep", o->sweep_file);
    assign(b, "results", o->results);
    assign(b, "name", s->name);
    if (o->nmodules > 0)
        put(b, "\n# Only the modules asked for (bindlab slurm --module).\n");
    for (int i = 0; i < o->nmodules; i++) {
        char *q = bl_shell_quote(o->modules[i]);
        if (!q) {
            b->failed = 1;
            return;
        }
        put(b, "module load %s || exit 1\n", q);
        free(q);
    }
}

/* The node as the job saw it: next to the results, for the record. */
static void record_node(sbuf *b, const char *meta_expr)
{
    put(b, "\nmeta=%s\n", meta_expr);
    put(b, "mkdir -p \"$meta\" || exit 1\n");
    put(b, "scontrol show job \"$SLURM_JOB_ID\" >\"$meta/scontrol-show-job."
           "txt\" 2>&1\n");
    put(b, "env | grep '^SLURM_' | sort >\"$meta/slurm-env.txt\"\n");
    put(b, "if command -v lstopo-no-graphics >/dev/null; then\n"
           "    lstopo-no-graphics --of console >\"$meta/lstopo.txt\" 2>&1\n"
           "    lstopo-no-graphics --of xml >\"$meta/lstopo.xml\" 2>&1\n"
           "else\n"
           "    echo 'lstopo-no-graphics not found (hwloc)' >\"$meta/lstopo."
           "txt\"\n"
           "fi\n");
}

/* With several nodes, each node's own topology and the node list: one
 * task per node writes nodes/HOST/lstopo.xml (its hostname as it says it). */
static void record_nodes(sbuf *b, const bl_slurm_opts *o)
{
    if (o->nodes <= 1)
        return;
    put(b, "scontrol show hostnames \"$SLURM_JOB_NODELIST\" >\"$meta/"
           "nodes.txt\" 2>&1\n");
    put(b, "srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 "
           "--cpu-bind=none \\\n"
           "    sh -c 'd=\"$1/nodes/$(hostname)\" && mkdir -p \"$d\" && "
           "lstopo-no-graphics --of xml >\"$d/lstopo.xml\" 2>&1 && "
           "lstopo-no-graphics --of console >\"$d/lstopo.txt\" 2>&1' "
           "sh \"$meta\" ||\n"
           "    echo \"per-node lstopo: srun failed\" >&2\n");
}

/* Before anything is recorded, so that slurm-env.txt shows it. */
static void binding_env(sbuf *b, const bl_slurm_opts *o)
{
    if (o->launcher && strcmp(o->launcher, "srun") == 0)
        put(b, "\n# srun binds each task with the --cpu-bind that bindlab "
               "gives it.\n");
    else
        put(b, "\n# mpirun binds the ranks. Slurm must not bind them too: "
               "without this,\n# the srun that mpirun starts its daemons "
               "with binds them (and so\n# their ranks) by Slurm's rules "
               "first.\nexport SLURM_CPU_BIND=none\n");
}

/* An app: sweep: its program as the sweep file gives it (placeholders
 * filled per run by bindlab sweep), each word shell-quoted, as a comment
 * (a control character there shown as '?', so that no word can end the
 * comment line); then into the directory whose relative paths it names. */
static void app_lines(sbuf *b, const bl_slurm_opts *o, const bl_sweep *s)
{
    if (!s->app)
        return;
    put(b, "\n# Each run launches, under bindlab's probe, the program of the "
           "sweep file's app:\n#  ");
    for (int i = 0; i < s->app->ncommand; i++) {
        char *q = bl_shell_quote(s->app->command[i]);
        if (!q) {
            b->failed = 1;
            return;
        }
        for (char *c = q; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        put(b, " %s", q);
        free(q);
    }
    put(b, "\n");
    if (o->workdir) {
        put(b, "# in the directory bindlab slurm was run in (its relative "
               "paths are from there):\n");
        assign(b, "workdir", o->workdir);
        put(b, "cd \"$workdir\" || exit 1\n");
    }
}

static void sweep_command(sbuf *b, const bl_slurm_opts *o, int array)
{
    int srun = o->launcher && strcmp(o->launcher, "srun") == 0;
    put(b, "\n\"$bindlab\" sweep --results \"$results\" --app \"$app\"");
    if (srun)
        put(b, " --launcher srun");
    if (o->oversubscribe)
        put(b, " --oversubscribe");
    if (o->app_libomp)
        put(b, " --app-libomp \"$app_libomp\"");
    if (o->libiomp5)
        put(b, " --libiomp5 \"$libiomp5\"");
    if (array)
        put(b, " \\\n    --shard \"$SLURM_ARRAY_TASK_ID/%d\" --out "
               "\"$meta/$name.shard-$SLURM_ARRAY_TASK_ID.h5\"", o->array);
    put(b, " \"$sweep\"\nstatus=$?\n");
}

char *bl_slurm_script(const bl_slurm_opts *o, const bl_sweep *s,
                      const bl_slurm_needs *n, bl_err *err)
{
    sbuf b = {0};
    int array = o->array > 0;
    char job[96];
    if (check_opts(o, s, err) < 0)
        return NULL;
    bl_slurm_job_name(s->name, job, sizeof job);
    header(&b, o, s, array ? "Slurm job array: one shard of the sweep per "
                             "task (merge with the .merge script)"
                           : "Slurm job: the whole sweep");
    sbatch_common(&b, o, s);
    put(&b, "#SBATCH --nodes=%d\n", o->nodes);
    put(&b, "#SBATCH --ntasks-per-node=%d\n", n->ntasks_per_node);
    put(&b, "#SBATCH --cpus-per-task=%d\n", n->cpus_per_task);
    put(&b, "#SBATCH --exclusive\n");
    if (array) {
        put(&b, "#SBATCH --array=1-%d\n", o->array);
        put(&b, "#SBATCH --output=%s/slurm/%s-%%A_%%a.out\n", o->results, job);
    } else {
        put(&b, "#SBATCH --output=%s/slurm/%s-%%j.out\n", o->results, job);
    }
    body_common(&b, o, s);
    binding_env(&b, o);
    if (array) {
        record_node(&b, "\"$results/slurm/$name-$SLURM_ARRAY_JOB_ID\"");
    } else {
        record_node(&b, "\"$results/slurm/$name-$SLURM_JOB_ID\"");
    }
    record_nodes(&b, o);
    app_lines(&b, o, s);
    sweep_command(&b, o, array);
    if (array)
        /* Written last and atomically: the merge job reads a shard with no
         * status file as one that never finished. */
        put(&b, "echo \"$status\" >\"$meta/shard-$SLURM_ARRAY_TASK_ID."
                "status.tmp\" &&\n    mv \"$meta/shard-$SLURM_ARRAY_TASK_ID."
                "status.tmp\" \"$meta/shard-$SLURM_ARRAY_TASK_ID.status\"\n");
    put(&b, "exit \"$status\"\n");
    return finish(&b, err);
}

char *bl_slurm_merge_script(const bl_slurm_opts *o, const bl_sweep *s,
                            bl_err *err)
{
    sbuf b = {0};
    char job[96];
    if (check_opts(o, s, err) < 0)
        return NULL;
    if (o->array < 1) {
        bl_err_set(err, "merge script: only an array sweep has one");
        return NULL;
    }
    bl_slurm_job_name(s->name, job, sizeof job);
    header(&b, o, s, "Slurm merge job of an array sweep; submit it with "
                     "sbatch --dependency=afterany:ARRAY_JOB_ID THIS_FILE "
                     "ARRAY_JOB_ID");
    sbatch_common(&b, o, s);
    put(&b, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
    put(&b, "#SBATCH --output=%s/slurm/%s-merge-%%j.out\n", o->results, job);
    body_common(&b, o, s);
    put(&b, "shards=%d\n", o->array);
    put(&b, "\narray_job=${1:-}\n"
            "case $array_job in\n"
            "'' | *[!0-9]*)\n"
            "    echo \"usage: sbatch --dependency=afterany:ARRAY_JOB_ID $0 "
            "ARRAY_JOB_ID (got '$array_job')\" >&2\n"
            "    exit 2 ;;\n"
            "esac\n"
            "meta=\"$results/slurm/$name-$array_job\"\n"
            "report=\"$meta/merge-report.txt\"\n"
            "mkdir -p \"$meta\" || exit 1\n"
            "\n"
            "# A shard that wrote no status never finished: not started, "
            "cancelled,\n# out of time, or its node failed.\n"
            "bad=0\n"
            ": >\"$report\"\n"
            "for i in $(seq 1 \"$shards\"); do\n"
            "    f=\"$meta/shard-$i.status\"\n"
            "    if [ ! -s \"$f\" ]; then\n"
            "        echo \"shard $i/$shards: missing (no exit status: the "
            "task did not finish)\" | tee -a \"$report\"\n"
            "        bad=1\n"
            "    elif [ \"$(cat \"$f\")\" != 0 ]; then\n"
            "        echo \"shard $i/$shards: failed (bindlab sweep: "
            "$(cat \"$f\"))\" | tee -a \"$report\"\n"
            "        bad=1\n"
            "    else\n"
            "        echo \"shard $i/$shards: ok\" >>\"$report\"\n"
            "    fi\n"
            "done\n"
            "\n\"$bindlab\" merge -o \"$results/$name.h5\" "
            "\"$results/$name.d\" || bad=1\n"
            "[ \"$bad\" = 0 ] && echo \"merged: $results/$name.h5\" | tee -a "
            "\"$report\"\n"
            "exit \"$bad\"\n");
    return finish(&b, err);
}

int bl_slurm_merge_path(const char *script_path, char *buf, size_t len,
                        bl_err *err)
{
    size_t n = strlen(script_path);
    int rc;
    if (n > 7 && strcmp(script_path + n - 7, ".sbatch") == 0)
        rc = bl_textf(buf, len, "%.*s.merge.sbatch", (int)(n - 7),
                      script_path);
    else
        rc = bl_textf(buf, len, "%s.merge", script_path);
    return rc < 0 ? bl_err_set(err, "%s: path too long", script_path) : 0;
}
