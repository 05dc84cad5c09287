/* bindlab slurm: needs from layouts, sinfo parsing, the fit check, #SBATCH
 * values, the scripts (bash -n, and run with stub programs to prove that
 * hostile values pass through as plain words), job ids, atomic writes. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweep/sweep_file.h"
#include "proc/launch.h"
#include "slurm/slurm.h"
#include "topo.h"

#include "bl_test_files.h"

static void load(const char *yaml, bl_sweep *s)
{
    bl_err err = {""};
    int rc = bl_sweep_file_load_string(yaml, "test.yaml", s, &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
}

static void needs_on(const char *yaml, const char *topo_spec,
                     bl_slurm_needs *n, int expect_rc, bl_err *err)
{
    bl_sweep s;
    hwloc_topology_t topo;
    load(yaml, &s);
    assert_int_equal(bl_topo_load(topo_spec, &topo, err), 0);
    assert_int_equal(bl_slurm_needs_compute(&s, topo, 1, 0, n, err),
                     expect_rc);
    hwloc_topology_destroy(topo);
    bl_sweep_free(&s);
}

static const char small_yaml[] =
    "name: small\n"
    "kernels: [{name: triad, size: 8MiB, iters: 2}]\n"
    "layouts:\n"
    "  - {np: 1, threads: 1}\n"
    "  - {np: 2, map_by: core, bind_to: core, threads: 1}\n"
    "  - {np: 1, map_by: 'slot:PE=2', threads: fill, repetitions: 3}\n";

static void slurm_needs_take_most_ranks_and_cpus(void **state)
{
    bl_slurm_needs n;
    bl_err err = {""};
    (void)state;
    needs_on(small_yaml, "pack:1 core:2 pu:1", &n, 0, &err);
    assert_int_equal(n.ntasks_per_node, 2);
    assert_int_equal(n.cpus_per_node, 2);
    assert_int_equal(n.cpus_per_task, 1);
    assert_int_equal(n.nruns, 5); /* repetitions counted */
}

static void slurm_needs_count_pe_cpus_even_for_fewer_threads(void **state)
{
    bl_slurm_needs n;
    bl_err err = {""};
    (void)state;
    /* PE=4 keeps 4 cores (8 hyperthreads, Slurm's CPUs) per rank even
     * with 1 thread: 2 ranks need 16 CPUs, so 2 tasks x 8 CPUs. */
    needs_on("kernels: [triad]\nlayouts:\n"
             "  - {np: 2, map_by: 'slot:PE=4', threads: 1}\n"
             "  - {np: 1, map_by: core, bind_to: core, threads: 1}\n",
             "pack:2 core:8 pu:2", &n, 0, &err);
    assert_int_equal(n.ntasks_per_node, 2);
    assert_int_equal(n.cpus_per_node, 16);
    assert_int_equal(n.cpus_per_task, 8);
    assert_int_equal(n.widest, 0);
}

static void slurm_needs_refuse_layout_the_node_cannot_run(void **state)
{
    bl_slurm_needs n;
    bl_err err = {""};
    (void)state;
    needs_on("kernels: [triad]\nlayouts:\n  - {name: four, np: 4}\n",
             "pack:1 core:2 pu:1", &n, -1, &err);
    assert_non_null(strstr(err.msg, "layout r0000 (four "));
    assert_non_null(strstr(err.msg, "np 4 needs 4 slots, but this node has 2"));
}

static void slurm_parse_sinfo_picks_default_partition(void **state)
{
    bl_slurm_partition p;
    bl_err err = {""};
    (void)state;
    assert_int_equal(bl_slurm_parse_sinfo("big|128+|2:32:2\n"
                                          "debug*|2|1:2:1\n"
                                          "big|256|2:64:2\n", NULL, &p, &err),
                     0);
    assert_string_equal(p.name, "debug");
    assert_int_equal(p.cpus, 2);
    assert_int_equal(p.cores, 2);
    /* a named partition with two node shapes: the largest one */
    assert_int_equal(bl_slurm_parse_sinfo("big|128+|2:32:2\ndebug*|2|1:2:1\n"
                                          "big|256|2:64:2\n", "big", &p, &err),
                     0);
    assert_int_equal(p.cpus, 256);
    assert_int_equal(p.sockets, 2);
    assert_int_equal(p.cores, 64);
    assert_int_equal(p.threads, 2);
}

static void slurm_parse_sinfo_names_partitions_of_unknown_one(void **state)
{
    bl_slurm_partition p;
    bl_err err = {""};
    (void)state;
    assert_int_equal(bl_slurm_parse_sinfo("debug*|2|1:2:1\nbig|8|1:8:1\n",
                                          "gpu", &p, &err), -1);
    assert_string_equal(err.msg, "--partition 'gpu': sinfo shows no such "
                        "partition (partitions: debug, big)");
    assert_int_equal(bl_slurm_parse_sinfo("debug|2|1:2:1\nother", NULL, &p,
                                          &err), -1);
    assert_non_null(strstr(err.msg, "unexpected line 'other'"));
}

static void slurm_check_fit_states_the_arithmetic(void **state)
{
    bl_sweep s;
    bl_slurm_needs n;
    bl_slurm_partition p;
    hwloc_topology_t topo;
    bl_err err = {""};
    (void)state;
    load("kernels: [triad]\nlayouts:\n  - {name: wide, np: 4, bind_to: none, "
         "threads: 2}\n",
         &s);
    assert_int_equal(bl_topo_load("pack:2 core:8 pu:1", &topo, &err), 0);
    assert_int_equal(bl_slurm_needs_compute(&s, topo, 1, 0, &n, &err), 0);
    hwloc_topology_destroy(topo);
    assert_int_equal(bl_slurm_parse_sinfo("small*|6|1:6:1\n", NULL, &p, &err),
                     0);
    assert_int_equal(bl_slurm_check_fit(&s, &n, &p, &err), -1);
    assert_non_null(strstr(err.msg, "needs 8 CPUs per node (4 ranks x 2 "
                                    "CPUs), but partition small's largest "
                                    "node has 6 (sinfo)"));
    p.cpus = 8;
    assert_int_equal(bl_slurm_check_fit(&s, &n, &p, &err), 0);
    bl_sweep_free(&s);
}

static void slurm_sbatch_values_refuse_what_sbatch_would_misread(void **state)
{
    bl_err err = {""};
    static const char *const bad[] = {"a b", "x\ny", "it's", "\"q\"",
                                      "$(id)", "`id`", "-x", "", "a;b"};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bl_slurm_check_sbatch_value("--partition", bad[i],
                                                     &err), -1);
    assert_non_null(strstr(err.msg, "--partition: 'a;b' cannot go into an "
                                    "#SBATCH line"));
    assert_int_equal(bl_slurm_check_sbatch_value("--time", "1-00:30:00", &err),
                     0);
    assert_int_equal(bl_slurm_check_sbatch_value("--account", "proj_a.1", &err),
                     0);
}

static void slurm_job_name_replaces_unsafe_characters(void **state)
{
    char buf[64];
    (void)state;
    bl_slurm_job_name("my sweep$(x)\n", buf, sizeof buf);
    assert_string_equal(buf, "bindlab-my_sweep__x__");
}

static void slurm_parse_jobid_reads_parsable_output(void **state)
{
    char id[32];
    bl_err err = {""};
    (void)state;
    assert_int_equal(bl_slurm_parse_jobid("1234\n", id, sizeof id, &err), 0);
    assert_string_equal(id, "1234");
    assert_int_equal(bl_slurm_parse_jobid("77;cluster2\n", id, sizeof id,
                                          &err), 0);
    assert_string_equal(id, "77");
    assert_int_equal(bl_slurm_parse_jobid("Submitted batch job 5\n", id,
                                          sizeof id, &err), -1);
    assert_int_equal(bl_slurm_parse_jobid("", id, sizeof id, &err), -1);
    assert_int_equal(bl_slurm_parse_jobid("12x", id, sizeof id, &err), -1);
}

static void slurm_merge_path_sits_beside_the_script(void **state)
{
    char buf[256];
    bl_err err = {""};
    (void)state;
    assert_int_equal(bl_slurm_merge_path("slurm/x.sbatch", buf, sizeof buf,
                                         &err), 0);
    assert_string_equal(buf, "slurm/x.merge.sbatch");
    assert_int_equal(bl_slurm_merge_path("job.sh", buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "job.sh.merge");
}

/* --- scripts ------------------------------------------------------------ */

static char tmpdir[256];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

/* Runs argv with env; returns the exit status (-1 if it did not exit). */
static int run(char *const *argv, char *const *env, char *out, size_t len)
{
    bl_launch_opts lo = {0};
    bl_launch_result res;
    bl_err err = {""};
    int status;
    lo.argv = argv;
    lo.env = env;
    lo.timeout_s = 30;
    assert_int_equal(bl_launch_run(&lo, &res, &err), 0);
    status = res.exited ? res.exit_status : -1;
    if (out)
        snprintf(out, len, "%s%s", res.out.head, res.errs.head);
    bl_launch_result_free(&res);
    return status;
}

/* The NUL-separated words a stub recorded equal want[]. */
static void expect_words(const char *path, const char *const *want, int n)
{
    size_t len = 0, off = 0;
    char *got = bl_test_read_file(path, &len);
    int i = 0;
    assert_non_null(got);
    for (; off < len && i < n; i++) {
        assert_string_equal(got + off, want[i]);
        off += strlen(got + off) + 1;
    }
    assert_int_equal(i, n);
    assert_int_equal(off, len);
    free(got);
}

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/bl_test_slurm.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    char *argv[] = {"rm", "-rf", tmpdir, NULL};
    (void)state;
    run(argv, NULL, NULL, 0);
    return 0;
}

static const char stub[] = "#!/bin/sh\n"
                           "# records its arguments, NUL-separated\n"
                           "printf '%s\\0' \"$@\" >>\"$STUB_DIR/$(basename "
                           "\"$0\").args\"\n";

/* Values that would run code (or break a line) if the script did not
 * quote them: each tries to create the file $M (MARK in tmpdir). */
static const char hostile_name[] = "x'$(touch $M)`touch $M`\"\n; touch $M #";
static const char hostile_module[] = "gcc/12 $(touch $M) `touch $M`'\"\\";

static void slurm_script_quotes_hostile_values(void **state)
{
    bl_sweep s;
    bl_slurm_needs n = {2, 1, 2, 0, 2, 1, 3, 1};
    bl_slurm_opts o = {0};
    bl_err err = {""};
    char sweepdir[512], sweepfile[768], stubdir[300], bindlab[400];
    char script[300], mark[300], results[300], env_stub[400], env_path[512];
    char env_mark[400], out[4096];
    const char *mods[2];
    char *text;
    (void)state;

    snprintf(sweepdir, sizeof sweepdir, "%s/it's $(dir) `x`", tmpdir);
    assert_int_equal(mkdir(sweepdir, 0755), 0);
    snprintf(sweepfile, sizeof sweepfile, "%s/s\"w;.yaml", sweepdir);
    /* A name that is code or a path is refused by the sweep file, and by
     * the script writer when a sweep made in code carries one. */
    assert_int_equal(bl_sweep_file_load_string(
                         "name: \"x'$(touch $M)`touch $M`\\\"\\n; touch $M #\"\n"
                         "kernels: [triad]\nlayouts:\n  - {np: 1}\n",
                         "test.yaml", &s, &err), -1);
    assert_non_null(strstr(err.msg, "test.yaml:1:7: name 'x'$(touch"));
    load("name: job-1\nkernels: [triad]\nlayouts:\n  - {np: 1}\n", &s);

    path_in(stubdir, sizeof stubdir, "bin");
    assert_int_equal(mkdir(stubdir, 0755), 0);
    for (int i = 0; i < 4; i++) {
        static const char *const names[] = {"bindlab", "module", "scontrol",
                                            "lstopo-no-graphics"};
        char p[400];
        snprintf(p, sizeof p, "%s/%s", stubdir, names[i]);
        write_file(p, stub, 0755);
    }
    snprintf(bindlab, sizeof bindlab, "%s/bindlab", stubdir);
    path_in(results, sizeof results, "res");
    mods[0] = hostile_module;
    mods[1] = "a\nb";
    o.bindlab = bindlab;
    o.app = "/opt/bl app/it's/bindlab-app";
    o.sweep_file = sweepfile;
    o.results = results;
    o.partition = "batch";
    o.modules = mods;
    o.nmodules = 2;
    o.nodes = 1;
    o.command = "bindlab slurm 'x\n#SBATCH --wrap=evil'";
    strcpy(s.name, hostile_name);
    assert_null(bl_slurm_script(&o, &s, &n, &err));
    assert_non_null(strstr(err.msg, "is not one safe path component"));
    strcpy(s.name, "job-1");
    text = bl_slurm_script(&o, &s, &n, &err);
    assert_non_null(text);
    /* the newline of the command became '?': no second #SBATCH line */
    assert_non_null(strstr(text, "x?#SBATCH --wrap=evil"));
    assert_null(strstr(text, "\n#SBATCH --wrap"));
    assert_non_null(strstr(text, "\n#SBATCH --job-name=bindlab-job-1\n"));
    path_in(script, sizeof script, "job.sbatch");
    assert_int_equal(bl_slurm_write_script(script, text, &err), 0);
    free(text);

    {
        char *argv[] = {"bash", "-n", script, NULL};
        assert_int_equal(run(argv, NULL, out, sizeof out), 0);
    }
    /* Run it: the stubs record what they were given. */
    snprintf(env_stub, sizeof env_stub, "STUB_DIR=%s", stubdir);
    snprintf(env_path, sizeof env_path, "PATH=%s:/usr/bin:/bin", stubdir);
    path_in(mark, sizeof mark, "MARK");
    snprintf(env_mark, sizeof env_mark, "M=%s", mark);
    {
        char *argv[] = {"bash", script, NULL};
        char *env[] = {env_stub, env_path, env_mark, "SLURM_JOB_ID=42", NULL};
        assert_int_equal(run(argv, env, out, sizeof out), 0);
    }
    assert_int_equal(access(mark, F_OK), -1);
    {
        char p[400], meta[1024];
        const char *want_sweep[] = {"sweep", "--results", results, "--app",
                                    o.app, sweepfile};
        const char *want_mod[] = {"load", hostile_module, "load", "a\nb"};
        snprintf(p, sizeof p, "%s/bindlab.args", stubdir);
        expect_words(p, want_sweep, 6);
        /* each module one word, the newline included */
        snprintf(p, sizeof p, "%s/module.args", stubdir);
        expect_words(p, want_mod, 4);
        /* the node record went to RESULTS/slurm/NAME-JOBID */
        snprintf(meta, sizeof meta, "%s/slurm/job-1-42/slurm-env.txt",
                 results);
        assert_int_equal(access(meta, F_OK), 0);
    }
    bl_sweep_free(&s);
}

static void slurm_script_refuses_sbatch_values_it_cannot_quote(void **state)
{
    bl_sweep s;
    bl_slurm_needs n = {1, 1, 1, 0, 1, 1, 1, 1};
    bl_slurm_opts o = {0};
    bl_err err = {""};
    (void)state;
    load("kernels: [triad]\nlayouts:\n  - {np: 1}\n", &s);
    o.bindlab = "/b";
    o.app = "/a";
    o.sweep_file = "/s.yaml";
    o.results = "/r";
    o.nodes = 1;
    o.account = "acct\n#SBATCH --uid=0";
    assert_null(bl_slurm_script(&o, &s, &n, &err));
    assert_non_null(strstr(err.msg, "--account: "));
    o.account = NULL;
    o.results = "/home/me/my results";
    assert_null(bl_slurm_script(&o, &s, &n, &err));
    assert_non_null(strstr(err.msg, "--results (it is part of #SBATCH "
                                    "--output)"));
    o.results = "/r";
    o.time_limit = "soon";
    assert_null(bl_slurm_script(&o, &s, &n, &err));
    assert_non_null(strstr(err.msg, "--time: 'soon' is not a Slurm time"));
    bl_sweep_free(&s);
}

static void slurm_script_has_lines_the_layouts_need(void **state)
{
    bl_sweep s;
    bl_slurm_needs n = {4, 2, 8, 0, 4, 2, 6, 1};
    bl_slurm_opts o = {0};
    bl_err err = {""};
    char *text, *cpu_bind, *sweep_cmd;
    (void)state;
    load("name: t\nkernels: [triad]\nlayouts:\n  - {np: 1}\n", &s);
    o.bindlab = "/b/bindlab";
    o.app = "/b/bindlab-app";
    o.sweep_file = "/s.yaml";
    o.results = "/r";
    o.nodes = 2;
    o.time_limit = "00:30:00";
    o.array = 3;
    text = bl_slurm_script(&o, &s, &n, &err);
    assert_non_null(text);
    assert_non_null(strstr(text, "\n#SBATCH --nodes=2\n#SBATCH "
                                 "--ntasks-per-node=4\n#SBATCH "
                                 "--cpus-per-task=2\n#SBATCH --exclusive\n"
                                 "#SBATCH --array=1-3\n#SBATCH "
                                 "--output=/r/slurm/bindlab-t-%A_%a.out\n"));
    assert_non_null(strstr(text, "#SBATCH --time=00:30:00\n"));
    assert_null(strstr(text, "module load")); /* nothing not asked for */
    cpu_bind = strstr(text, "export SLURM_CPU_BIND=none\n");
    sweep_cmd = strstr(text, "\"$bindlab\" sweep");
    assert_non_null(cpu_bind);
    assert_non_null(sweep_cmd);
    assert_true(cpu_bind < sweep_cmd);
    assert_non_null(strstr(sweep_cmd, "--shard \"$SLURM_ARRAY_TASK_ID/3\""));
    free(text);
    o.launcher = "srun";
    o.array = 0;
    text = bl_slurm_script(&o, &s, &n, &err);
    assert_non_null(text);
    assert_null(strstr(text, "SLURM_CPU_BIND=none"));
    assert_non_null(strstr(text, " --launcher srun"));
    assert_null(strstr(text, "--shard"));
    free(text);
    text = bl_slurm_merge_script(&o, &s, &err);
    assert_null(text); /* no array, no merge job */
    bl_sweep_free(&s);
}

/* The merge script, run with a stub bindlab: reports each shard. */
static void slurm_merge_script_reports_missing_and_failed_shards(void **state)
{
    bl_sweep s;
    bl_slurm_opts o = {0};
    bl_err err = {""};
    char stubdir[300], bindlab[400], results[300], script[300], meta[600];
    char p[700], env_stub[400], out[4096];
    char *text;
    (void)state;
    load("name: m\nkernels: [triad]\nlayouts:\n  - {np: 1}\n  - {np: 2}\n"
         "  - {np: 1, threads: 2}\n", &s);
    path_in(stubdir, sizeof stubdir, "mbin");
    assert_int_equal(mkdir(stubdir, 0755), 0);
    snprintf(bindlab, sizeof bindlab, "%s/bindlab", stubdir);
    write_file(bindlab, stub, 0755);
    path_in(results, sizeof results, "mres");
    o.bindlab = bindlab;
    o.app = "/a";
    o.sweep_file = "/s.yaml";
    o.results = results;
    o.nodes = 1;
    o.array = 3;
    text = bl_slurm_merge_script(&o, &s, &err);
    assert_non_null(text);
    path_in(script, sizeof script, "m.merge.sbatch");
    assert_int_equal(bl_slurm_write_script(script, text, &err), 0);
    free(text);
    snprintf(meta, sizeof meta, "%s/slurm/m-99", results);
    {
        char *argv[] = {"mkdir", "-p", meta, NULL};
        assert_int_equal(run(argv, NULL, NULL, 0), 0);
    }
    snprintf(p, sizeof p, "%s/shard-1.status", meta);
    write_file(p, "0\n", 0644);
    snprintf(p, sizeof p, "%s/shard-3.status", meta);
    write_file(p, "1\n", 0644);
    snprintf(env_stub, sizeof env_stub, "STUB_DIR=%s", stubdir);
    {
        char *argv[] = {"bash", script, "99", NULL};
        char *env[] = {env_stub, NULL};
        assert_int_equal(run(argv, env, out, sizeof out), 1);
    }
    assert_non_null(strstr(out, "shard 2/3: missing (no exit status: the "
                                "task did not finish)\n"));
    assert_non_null(strstr(out, "shard 3/3: failed (bindlab sweep: 1)\n"));
    assert_null(strstr(out, "shard 1/3"));
    {
        char want_out[400], want_dir[400];
        const char *want4[4] = {"merge", "-o", want_out, want_dir};
        snprintf(want_out, sizeof want_out, "%s/m.h5", results);
        snprintf(want_dir, sizeof want_dir, "%s/m.d", results);
        snprintf(p, sizeof p, "%s/bindlab.args", stubdir);
        expect_words(p, want4, 4);
    }
    /* a job id that is not a number is refused before anything runs */
    {
        char *argv[] = {"bash", script, "99;touch x", NULL};
        char *env[] = {env_stub, NULL};
        assert_int_equal(run(argv, env, out, sizeof out), 2);
    }
    bl_sweep_free(&s);
}

static void slurm_write_script_is_atomic_and_executable(void **state)
{
    char path[300];
    struct stat st;
    bl_err err = {""};
    char *back;
    (void)state;
    path_in(path, sizeof path, "w.sbatch");
    assert_int_equal(bl_slurm_write_script(path, "#!/bin/bash\necho 1\n", &err),
                     0);
    assert_int_equal(bl_slurm_write_script(path, "#!/bin/bash\necho 2\n", &err),
                     0);
    back = bl_test_read_file(path, NULL);
    assert_string_equal(back, "#!/bin/bash\necho 2\n");
    free(back);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    assert_int_equal(bl_slurm_write_script("/nonexistent-dir/x.sbatch", "x",
                                           &err), -1);
    /* refused before a temporary is made: the message names the path and
     * the missing directory */
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.sbatch: directory "
                                    "'/nonexistent-dir' does not exist"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slurm_needs_take_most_ranks_and_cpus),
        cmocka_unit_test(slurm_needs_count_pe_cpus_even_for_fewer_threads),
        cmocka_unit_test(slurm_needs_refuse_layout_the_node_cannot_run),
        cmocka_unit_test(slurm_parse_sinfo_picks_default_partition),
        cmocka_unit_test(slurm_parse_sinfo_names_partitions_of_unknown_one),
        cmocka_unit_test(slurm_check_fit_states_the_arithmetic),
        cmocka_unit_test(slurm_sbatch_values_refuse_what_sbatch_would_misread),
        cmocka_unit_test(slurm_job_name_replaces_unsafe_characters),
        cmocka_unit_test(slurm_parse_jobid_reads_parsable_output),
        cmocka_unit_test(slurm_merge_path_sits_beside_the_script),
        cmocka_unit_test(slurm_script_quotes_hostile_values),
        cmocka_unit_test(slurm_script_refuses_sbatch_values_it_cannot_quote),
        cmocka_unit_test(slurm_script_has_lines_the_layouts_need),
        cmocka_unit_test(slurm_merge_script_reports_missing_and_failed_shards),
        cmocka_unit_test(slurm_write_script_is_atomic_and_executable),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
