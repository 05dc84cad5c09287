/* The sweep's merged file grown in place (bl_h5_append): run counts, the
 * /summary rows against a full rebuild by bl_h5_merge of the same records
 * (a second method), duplicates, and a writer killed at random moments in
 * the middle of appends: the file stays readable with every run whose
 * append had returned. */
#include "bl_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "results/results_file.h"

#define NREC 40

static char dir[] = "/tmp/bl_append_test.XXXXXX";
static char records[NREC][512];
static const char *recs[NREC];

static bl_h5_machine machine = {
    .hostname = "node-a", .cpu_model = "Test CPU", .mpi_library_version =
    "Open MPI v4.1.4", .compiler = "gcc", .omp_runtime = "libgomp.so.1",
    .kernel_release = "6.1.0", .topology_xml = "<topology/>", .packages = 1,
    .numa_nodes = 1, .l3_domains = 1, .cores = 2, .pus = 2,
    .virtualization = ""};

/* Record i: every 7th invalid (never ran, no machine), the others ok with
 * a rate of i GB/s on node-a. */
static int write_record(int i)
{
    char id[32], label[64];
    bl_h5_harness h = {0};
    bl_h5_run app = {0};
    bl_h5_rank rank = {0};
    int ran = i % 7 != 3;
    bl_err err;
    snprintf(id, sizeof id, "r%04d", i);
    snprintf(label, sizeof label, "triad layout %d", i);
    h.run_id = id;
    h.label = label;
    h.status = ran ? "ok" : "invalid";
    h.reason = ran ? "" : "does not fit";
    h.np = 1;
    h.threads = 1;
    h.kernel = "triad";
    if (ran) {
        app.kernel = "triad";
        app.status = "ok";
        app.ranks = 1;
        app.threads = 1;
        app.result.rate = i;
        app.result.rate_unit = "GB/s";
        app.result.verified = 1;
        rank.host = "node-a";
        app.rank_rows = &rank;
        app.nrank_rows = 1;
    }
    snprintf(records[i], sizeof records[i], "%s/%s.h5", dir, id);
    recs[i] = records[i];
    if (bl_h5_write_sweep_run(AT_FDCWD, records[i], "test",
                              ran ? &machine : NULL, 1,
                              ran ? &app : NULL, &h, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void paths(const char *name, char *main_path, char *twin, size_t len)
{
    snprintf(main_path, len, "%s/%s.h5", dir, name);
    snprintf(twin, len, "%s/.%s.twin", dir, name);
    unlink(main_path);
    unlink(twin);
}

/* Every /summary row of a and b equal, column by column, in run-id order. */
static void assert_same_summaries(const char *a, const char *b)
{
    bl_h5_summary *x, *y;
    size_t nx, ny;
    bl_err err;
    const bl_h5_table_def *def = &bl_h5_summary_def;
    assert_int_equal(bl_h5_read_summary(a, &x, &nx, &err), 0);
    assert_int_equal(bl_h5_read_summary(b, &y, &ny, &err), 0);
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        /* appended rows come in append order: find the same run */
        size_t j = 0;
        while (j < ny && strcmp(x[i].run_id, y[j].run_id))
            j++;
        assert_true(j < ny);
        for (size_t f = 0; f < def->nfields; f++) {
            const char *p = (const char *)&x[i] + def->fields[f].offset;
            const char *q = (const char *)&y[j] + def->fields[f].offset;
            if (def->fields[f].type == BL_H5_STR) {
                const char *s = *(char *const *)p, *t = *(char *const *)q;
                assert_string_equal(s ? s : "", t ? t : "");
            } else if (def->fields[f].type == BL_H5_F64) {
                assert_true(*(const double *)p == *(const double *)q);
            } else {
                size_t size = def->fields[f].type == BL_H5_I8    ? 1
                              : def->fields[f].type == BL_H5_I32 ? 4
                                                                 : 8;
                assert_memory_equal(p, q, size);
            }
        }
    }
    bl_h5_table_free(def, x, nx);
    bl_h5_table_free(def, y, ny);
}

static size_t summary_rows(const char *path)
{
    bl_h5_summary *x;
    size_t n;
    bl_err err;
    assert_int_equal(bl_h5_read_summary(path, &x, &n, &err), 0);
    bl_h5_table_free(&bl_h5_summary_def, x, n);
    return n;
}

/* Rows of a file that may not exist yet. */
static size_t summary_rows_or_zero(const char *path)
{
    return access(path, F_OK) == 0 ? summary_rows(path) : 0;
}

static void one_at_a_time_equals_a_full_rebuild(void **state)
{
    char main_path[600], twin[600], full[600];
    int dup, bad;
    bl_err err;
    (void)state;
    paths("one", main_path, twin, sizeof main_path);
    for (int i = 0; i < NREC; i++) {
        assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[i], 1,
                                      &dup, &bad, &err), 0);
        assert_int_equal(dup, 0);
        assert_int_equal(bad, 0);
        /* i + 1 runs after the (i + 1)th append */
        assert_int_equal(summary_rows(main_path), (size_t)i + 1);
    }
    snprintf(full, sizeof full, "%s/full.h5", dir);
    assert_int_equal(bl_h5_merge(full, "test", recs, NREC, NULL, NULL, NULL, &dup, &bad, &err),
                     0);
    assert_same_summaries(main_path, full);
    {
        /* one machine record, runs that ran point at it */
        bl_err e;
        hid_t f = bl_h5_open_read(main_path, &e);
        assert_true(f >= 0);
        assert_int_equal(bl_h5_count_nodes(f), 1);
        assert_true(H5Lexists(f, "runs/r0010", H5P_DEFAULT) > 0);
        H5Fclose(f);
    }
    /* a record appended again is a duplicate: nothing added */
    assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[5], 1, &dup,
                                  &bad, &err), 0);
    assert_int_equal(dup, 1);
    assert_int_equal(summary_rows(main_path), NREC);
}

static void twin_lost_or_damaged_is_made_again(void **state)
{
    char main_path[600], twin[600], full[600];
    int dup, bad;
    bl_err err;
    FILE *f;
    (void)state;
    paths("twin", main_path, twin, sizeof main_path);
    for (int i = 0; i < 10; i++)
        assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[i], 1,
                                      &dup, &bad, &err), 0);
    unlink(twin); /* lost */
    assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[10], 1,
                                  &dup, &bad, &err), 0);
    f = fopen(twin, "r+"); /* damaged: its first bytes overwritten */
    assert_non_null(f);
    fputs("garbage garbage garbage", f);
    fclose(f);
    assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[11], 2,
                                  &dup, &bad, &err), 0);
    assert_int_equal(summary_rows(main_path), 13);
    snprintf(full, sizeof full, "%s/full13.h5", dir);
    assert_int_equal(bl_h5_merge(full, "test", recs, 13, NULL, NULL, NULL, &dup, &bad, &err),
                     0);
    assert_same_summaries(main_path, full);
}

/* A child appends the records one at a time and says which returned; it
 * is killed after a random delay. The merged file must read and hold
 * every run reported done (plus at most the one in flight, whose rename
 * may have happened just before the kill). */
static void killed_in_the_middle_keeps_every_completed_run(void **state)
{
    char main_path[600], twin[600], full[600];
    int dup, bad, kills = 0;
    bl_err err;
    const char *given = getenv("BINDLAB_TEST_SEED");
    unsigned seed = given ? (unsigned)strtoul(given, NULL, 10) : 12345;
    (void)state;
    printf("seed: %u (replay: BINDLAB_TEST_SEED=%u)\n", seed, seed);
    paths("kill", main_path, twin, sizeof main_path);
    for (int round = 0; round < 25; round++) {
        int fds[2], go[2], status, done = -1, start;
        char line[32];
        FILE *in;
        pid_t pid;
        size_t have;
        start = (int)summary_rows_or_zero(main_path);
        if (start >= NREC)
            break;
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(pipe(go), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char c;
            close(fds[0]);
            close(go[1]);
            for (int i = start; i < NREC; i++) {
                if (bl_h5_append(main_path, twin, "test", &recs[i], 1, &dup,
                                 &bad, &err) < 0)
                    _exit(2);
                dprintf(fds[1], "%d\n", i);
            }
            /* done: wait for the parent, so that its kill always lands
             * on a live process, however fast this machine appends */
            (void)!read(go[0], &c, 1);
            _exit(0);
        }
        close(fds[1]);
        close(go[0]);
        {
            struct timespec ts = {0, (long)(rand_r(&seed) % 20000) * 1000};
            nanosleep(&ts, NULL);
        }
        /* kill() also succeeds on a child that exited and is not reaped
         * yet: only its wait status says the kill landed (exit 2: an
         * append failed). */
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        close(go[1]);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
            fail_msg("round %d: the writer was not killed: %s %d", round,
                     WIFEXITED(status) ? "exit" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        kills++;
        in = fdopen(fds[0], "r");
        while (fgets(line, sizeof line, in))
            done = atoi(line);
        fclose(in);
        /* readable, with every completed run */
        have = summary_rows_or_zero(main_path);
        assert_true(done < 0 || have >= (size_t)done + 1);
        assert_true(have <= (size_t)(done < start ? start : done + 1) + 1);
        for (size_t i = 0; i < have; i++) {
            char group[64];
            bl_err e;
            hid_t f = bl_h5_open_read(main_path, &e);
            assert_true(f >= 0);
            snprintf(group, sizeof group, "runs/r%04zu", i);
            assert_true(H5Lexists(f, group, H5P_DEFAULT) > 0);
            H5Fclose(f);
        }
    }
    assert_true(kills > 0);
    /* finished by this process: the same as a full rebuild */
    for (int i = (int)summary_rows_or_zero(main_path); i < NREC; i++)
        assert_int_equal(bl_h5_append(main_path, twin, "test", &recs[i], 1,
                                      &dup, &bad, &err), 0);
    snprintf(full, sizeof full, "%s/fullkill.h5", dir);
    assert_int_equal(bl_h5_merge(full, "test", recs, NREC, NULL, NULL, NULL, &dup, &bad, &err),
                     0);
    assert_same_summaries(main_path, full);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest append[] = {
        cmocka_unit_test(one_at_a_time_equals_a_full_rebuild),
        cmocka_unit_test(twin_lost_or_damaged_is_made_again),
        cmocka_unit_test(killed_in_the_middle_keeps_every_completed_run),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("append", append),
    };
    int rc;
    if (setup(NULL) < 0)
        return 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (int i = 0; i < NREC; i++)
        if (write_record(i) < 0)
            return 1;
    rc = bl_run_groups(argc, argv, groups);
    teardown(NULL);
    return rc;
}
