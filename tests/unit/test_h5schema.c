/* The HDF5 run file: round trip, atomic write, damaged files; the /summary
 * row; merge of an empty sweep file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "results/results_file.h"

static char dir[] = "/tmp/bl_h5test.XXXXXX";

static void sample(bl_h5_machine *m, bl_h5_run *r)
{
    /* Designated: a column added to a row type needs no edit here. */
    static bl_h5_placement place[2] = {
        {.rank = 0, .thread = 0, .host = "nodeA", .rank_cpuset = "0-1",
         .cpuset = "0", .pid = 100},
        {.rank = 0, .thread = 1, .host = "nodeA", .rank_cpuset = "0-1",
         .cpuset = "1", .cpu_first = 1, .cpu_last = 1, .core = 1,
         .migrations = 3, .pid = 100},
    };
    static bl_h5_counter cnt[1] = {
        {.rank = 0, .thread = 1, .name = "cycles", .event = "",
         .note = "PAPI_TOT_CYC: Event does not exist"}};
    static bl_h5_memory mem[2] = {{.rank = 0, .numa_node = 0, .pages = 100},
                                  {.rank = 0, .numa_node = -1, .pages = 2}};
    static bl_h5_rank ranks[1] = {
        {.rank = 0, .host = "nodeA", .median_s = 0.5, .min_s = 0.25,
         .rate = 10.0, .local_page_fraction = 1.0, .pages_local = 100,
         .pages_total = 100}};
    static bl_h5_env env[1] = {{.name = "OMP_PLACES", .value = "cores"}};
    static double timings[3] = {0.5, 0.25, 0.75};

    memset(m, 0, sizeof *m);
    m->hostname = "nodeA";
    m->cpu_model = "Test CPU";
    m->mpi_library_version = "Open MPI v4.1.4";
    m->compiler = "gcc";
    m->omp_runtime = "libgomp.so.1";
    m->kernel_release = "6.1";
    m->topology_xml = "<topology/>";
    m->packages = 2;
    m->numa_nodes = 8;
    m->pus = 128;
    m->numa_balancing = 0;
    memset(r, 0, sizeof *r);
    r->kernel = "triad";
    r->args = "bindlab-app --size 1GiB";
    r->init = "parallel";
    r->status = "ok";
    r->size_bytes = 1LL << 30;
    r->iterations = 3;
    r->ranks = 1;
    r->threads = 2;
    r->timings = timings;
    r->result.median_s = 0.5;
    r->result.rate = 42.0;
    r->result.rate_unit = "GB/s";
    r->result.verified = 1;
    r->result.local_page_fraction = 1.0;
    r->placement = place;
    r->nplacement = 2;
    r->counters = cnt;
    r->ncounters = 1;
    r->memory = mem;
    r->nmemory = 2;
    r->rank_rows = ranks;
    r->nrank_rows = 1;
    r->env = env;
    r->nenv = 1;
}

static void run_file_round_trips(void **state)
{
    bl_h5_machine m, m2;
    bl_h5_run r, r2;
    bl_err err;
    char path[256];
    (void)state;
    snprintf(path, sizeof path, "%s/run.h5", dir);
    sample(&m, &r);
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", &m, 1, &r, &err), 0);
    assert_int_equal(bl_h5_read_run_file(path, &m2, &r2, &err), 0);
    assert_string_equal(m2.hostname, "nodeA");
    assert_int_equal(m2.numa_nodes, 8);
    assert_string_equal(m2.topology_xml, "<topology/>");
    assert_string_equal(r2.kernel, "triad");
    assert_int_equal(r2.size_bytes, 1LL << 30);
    assert_int_equal(r2.nplacement, 2);
    assert_string_equal(r2.placement[1].cpuset, "1");
    assert_string_equal(r2.placement[1].rank_cpuset, "0-1");
    assert_int_equal(r2.placement[1].migrations, 3);
    assert_int_equal(r2.ncounters, 1);
    assert_int_equal(r2.counters[0].available, 0);
    assert_string_equal(r2.counters[0].note,
                        "PAPI_TOT_CYC: Event does not exist");
    assert_int_equal(r2.nmemory, 2);
    assert_int_equal(r2.memory[1].numa_node, -1);
    assert_true(r2.timings[2] == 0.75);
    assert_true(r2.result.rate == 42.0);
    assert_string_equal(r2.result.rate_unit, "GB/s");
    assert_string_equal(r2.env[0].value, "cores");
    assert_int_equal(r2.nmetrics, 0);
    bl_h5_run_free(&r2);
    bl_h5_machine_free(&m2);
}

/* A run over two nodes: both machine records in node order, and the
 * traffic rows as written. */
static void run_file_of_two_nodes_round_trips(void **state)
{
    bl_h5_machine m[2], *back = NULL;
    bl_h5_run r, r2;
    bl_h5_traffic t[2] = {{0, 0, 0.0, 4096.0, 0.0, 1.0, 0, 1},
                          {1, 1, 0.0, 4096.0, 0.0, 1.0, 0, 1}};
    size_t n = 0;
    bl_err err;
    char path[256];
    (void)state;
    snprintf(path, sizeof path, "%s/two.h5", dir);
    sample(&m[0], &r);
    m[1] = m[0];
    m[1].hostname = "nodeB";
    m[1].topology_xml = "<topology><!-- B --></topology>";
    r.traffic = t;
    r.ntraffic = 2;
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", m, 2, &r, &err),
                     0);
    assert_int_equal(bl_h5_read_run_file_nodes(path, &back, &n, &r2, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(back[0].hostname, "nodeA");
    assert_string_equal(back[1].hostname, "nodeB");
    assert_string_equal(back[1].topology_xml, "<topology><!-- B --></topology>");
    assert_int_equal(r2.ntraffic, 2);
    assert_int_equal(r2.traffic[1].node, 1);
    assert_true(r2.traffic[1].bytes_other_nodes == 4096.0);
    assert_int_equal(r2.traffic[1].peers_other_nodes, 1);
    bl_h5_nodes_free(back, n);
    bl_h5_run_free(&r2);
    /* no machine record: refused, nothing written */
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", m, 0, &r, &err),
                     -1);
    assert_non_null(strstr(err.msg, "machine record"));
}

/* The /summary row is built column by column from the member of the same
 * name (harness record first, then the app's result): checked here against
 * values written out by hand, with and without an app result. */
static void summary_row_takes_each_column_from_its_record(void **state)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_h5_harness h;
    bl_h5_summary row;
    (void)state;
    sample(&m, &r);
    memset(&h, 0, sizeof h);
    h.run_id = "r0007";
    h.label = "triad np1";
    h.status = "ok";
    h.repetition = 2;
    h.np = 1;
    h.threads = 4;           /* asked for; the app saw r.threads = 2 */
    h.map_by = "core";
    h.bind_to = "none";      /* rank_by, name, ... left NULL */
    h.flags = "migrated";
    h.wall_s = 3.5;
    h.exit_status = 0;
    h.kernel = "triad";
    r.result.min_s = 0.25;
    r.result.local_page_fraction = 0.75;

    bl_h5_summary_row(&r, &h, &row);
    assert_string_equal(row.run_id, "r0007");
    assert_string_equal(row.label, "triad np1");
    assert_string_equal(row.name, "");
    assert_string_equal(row.kernel, "triad");
    assert_string_equal(row.status, "ok");
    assert_int_equal(row.repetition, 2);
    assert_int_equal(row.np, 1);
    assert_int_equal(row.threads, 2);
    assert_string_equal(row.map_by, "core");
    assert_string_equal(row.bind_to, "none");
    assert_string_equal(row.rank_by, "");
    assert_string_equal(row.init, "");
    assert_true(row.median_s == 0.5);
    assert_true(row.min_s == 0.25);
    assert_true(row.rate == 42.0);
    assert_string_equal(row.rate_unit, "GB/s");
    assert_int_equal(row.verified, 1);
    assert_true(row.local_page_fraction == 0.75);
    assert_string_equal(row.flags, "migrated");
    assert_true(row.wall_s == 3.5);
    assert_int_equal(row.exit_status, 0);

    /* No app file (failed run): no result, the harness's thread count,
     * local page fraction -1 (unknown). */
    h.status = "failed";
    h.exit_status = 137;
    bl_h5_summary_row(NULL, &h, &row);
    assert_string_equal(row.status, "failed");
    assert_int_equal(row.exit_status, 137);
    assert_int_equal(row.threads, 4);
    assert_true(row.median_s == 0.0);
    assert_true(row.rate == 0.0);
    assert_string_equal(row.rate_unit, "");
    assert_int_equal(row.verified, 0);
    assert_true(row.local_page_fraction == -1.0);
}

/* The temporary's name is "NAME.tmp.<pid>" (docs/schema.md), built here by
 * hand: a stale file planted under that name, as a killed writer with the
 * same pid would leave it, must be gone after the write (the writer created
 * the temporary under exactly that name and renamed it), and the directory
 * must hold nothing but the final file. */
static void run_file_write_uses_and_removes_named_temporary(void **state)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    char sub[256], path[300], tmp[400], victim[300], kept[32] = "";
    FILE *f;
    DIR *d;
    struct dirent *e;
    int entries = 0;
    (void)state;
    snprintf(sub, sizeof sub, "%s/atomic", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/atomic.h5", sub);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    snprintf(victim, sizeof victim, "%s/victim", dir);
    /* the stale temporary is a link: it must be removed, never followed */
    f = fopen(victim, "w");
    assert_non_null(f);
    fputs("keep me", f);
    fclose(f);
    assert_int_equal(symlink(victim, tmp), 0);
    sample(&m, &r);
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", &m, 1, &r, &err), 0);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(access(path, F_OK), 0);
    f = fopen(victim, "r");
    assert_non_null(f);
    assert_non_null(fgets(kept, sizeof kept, f));
    fclose(f);
    assert_string_equal(kept, "keep me");
    d = opendir(sub);
    assert_non_null(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            assert_string_equal(e->d_name, "atomic.h5");
            entries++;
        }
    closedir(d);
    assert_int_equal(entries, 1);
    unlink(path);
    rmdir(sub);
    unlink(victim);
}

/* A sweep file whose /summary has no rows (every input empty) merges into
 * an empty sweep file: no qsort(NULL, 0), which UBSan refuses. */
static void merge_of_empty_summary_gives_empty_file(void **state)
{
    char in[300], out[300];
    const char *inputs[1] = {in};
    bl_h5_summary *rows = NULL;
    size_t n = 99;
    int dup = -1, unreadable = -1;
    bl_err err;
    hid_t f;
    (void)state;
    snprintf(in, sizeof in, "%s/empty-in.h5", dir);
    snprintf(out, sizeof out, "%s/empty-out.h5", dir);
    f = H5Fcreate(in, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_int_equal(bl_h5_write_root(f, "sweep", "test", &err), 0);
    assert_int_equal(bl_h5_table_write(f, &bl_h5_summary_def, NULL, 0, &err),
                     0);
    H5Fclose(f);
    assert_int_equal(bl_h5_merge(out, "test", inputs, 1, NULL, NULL, NULL, &dup, &unreadable,
                                 &err), 0);
    assert_int_equal(dup, 0);
    assert_int_equal(unreadable, 0);
    assert_int_equal(bl_h5_read_summary(out, &rows, &n, &err), 0);
    assert_int_equal(n, 0);
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    unlink(in);
    unlink(out);
}

static void run_file_write_to_missing_directory_fails_cleanly(void **state)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    (void)state;
    sample(&m, &r);
    assert_int_equal(bl_h5_write_run_file_nodes("/nonexistent-dir/x.h5", "t", &m, 1, &r,
                                          &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.h5"));
    assert_non_null(strstr(err.msg, "does not exist"));
}

/* Only a regular file is replaced: the writer itself refuses a directory
 * (the app and merge check earlier, but every writer goes through here). */
static void run_file_write_refuses_a_directory(void **state)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    struct stat st;
    (void)state;
    sample(&m, &r);
    assert_int_equal(bl_h5_write_run_file_nodes(dir, "t", &m, 1, &r, &err), -1);
    assert_non_null(strstr(err.msg, "a directory"));
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

static void truncated_run_file_is_named_not_misread(void **state)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    char path[256], cut[256];
    FILE *in, *out;
    char buf[1024];
    size_t n;
    (void)state;
    snprintf(path, sizeof path, "%s/whole.h5", dir);
    snprintf(cut, sizeof cut, "%s/cut.h5", dir);
    sample(&m, &r);
    assert_int_equal(bl_h5_write_run_file_nodes(path, "test", &m, 1, &r, &err), 0);
    in = fopen(path, "rb");
    out = fopen(cut, "wb");
    n = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
    assert_int_equal(bl_h5_read_run_file(cut, &m, &r, &err), -1);
    assert_non_null(strstr(err.msg, "cut.h5"));
    assert_int_equal(bl_h5_read_run_file("/nonexistent.h5", &m, &r, &err), -1);
    assert_non_null(strstr(err.msg, "No such file"));
}

static int cleanup(void **state)
{
    char path[300];
    static const char *const names[] = {"run.h5", "atomic.h5", "whole.h5",
                                        "cut.h5"};
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_file_round_trips),
        cmocka_unit_test(run_file_of_two_nodes_round_trips),
        cmocka_unit_test(summary_row_takes_each_column_from_its_record),
        cmocka_unit_test(run_file_write_uses_and_removes_named_temporary),
        cmocka_unit_test(run_file_write_to_missing_directory_fails_cleanly),
        cmocka_unit_test(run_file_write_refuses_a_directory),
        cmocka_unit_test(merge_of_empty_summary_gives_empty_file),
        cmocka_unit_test(truncated_run_file_is_named_not_misread),
    };
    if (!mkdtemp(dir))
        return 1;
    return cmocka_run_group_tests(tests, NULL, cleanup);
}
