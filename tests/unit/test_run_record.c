/* bindlab run's reading of probe files into a run record's rows, and its
 * own flags (harness/run/run.h), on the captured files of
 * tests/fixtures/probe (two ranks of probe_target bound one per core,
 * the setter library widening each rank's set after MPI_Init), with a
 * made-up node of two NUMA nodes, one core each. Also the ELF check that
 * refuses static programs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bl_test_files.h"
#include "run/run.h"

static void copy_fixture(const char *name, const char *dir)
{
    char path[1024], *text = bl_test_fixture("probe", name);
    FILE *f;
    snprintf(path, sizeof path, "%s/bindlab-probe.%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
}

static void remove_dir(const char *dir)
{
    const char *names[] = {"complete-rank0.probe", "complete-rank1.probe"};
    char path[1024];
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/bindlab-probe.%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static const bl_h5_placement *row(const bl_h5_run *r, int rank, int thread)
{
    for (size_t i = 0; i < r->nplacement; i++)
        if (r->placement[i].rank == rank && r->placement[i].thread == thread)
            return &r->placement[i];
    fail_msg("no placement row %d.%d", rank, thread);
    return NULL;
}

static void two_ranks_become_rows_and_flags(void **state)
{
    char dir[] = "/tmp/bl-run-record-XXXXXX", flags[256] = "";
    hwloc_topology_t t = bl_test_topology("pack:1 numa:2 core:1 pu:1");
    bl_run_outcome out;
    bl_h5_run *r = &out.run;
    bl_err err;
    int drift = 0;
    (void)state;
    memset(&out, 0, sizeof out);
    assert_non_null(mkdtemp(dir));
    copy_fixture("complete-rank0.probe", dir);
    copy_fixture("complete-rank1.probe", dir);
    if (bl_run_record_read(dir, t, r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r->ranks, 2);
    assert_int_equal(r->nprocesses, 2);
    /* main, two MPI threads and one OpenMP thread per rank */
    assert_int_equal(r->nplacement, 8);
    assert_int_equal(r->nthread_rows, 8);
    for (size_t i = 0; i < r->nplacement; i++)
        if (r->placement[i].thread == 0)
            assert_string_equal(r->thread_rows[i].label, "main");
    assert_string_equal(row(r, 0, 0)->rank_cpuset, "0");
    assert_string_equal(row(r, 1, 0)->rank_cpuset, "1");
    /* the setter widened the main threads: their last allowed set */
    assert_string_equal(row(r, 1, 0)->cpuset, "0-1");
    assert_int_equal(row(r, 1, 1)->cpu_last, 1);
    assert_int_equal(row(r, 1, 1)->numa, 1);
    assert_int_equal(r->naffinity, 6 + 6); /* the affinity lines of both */
    /* all pages on NUMA node 0: local to rank 0, remote to rank 1 */
    assert_int_equal(r->nrank_rows, 2);
    assert_true(r->rank_rows[0].local_page_fraction == 1.0);
    assert_true(r->rank_rows[1].local_page_fraction == 0.0);
    assert_int_equal(r->rank_rows[1].pages_total, 2783);
    bl_run_flags(r, flags, sizeof flags, &out);
    assert_string_equal(flags, "drift-after-init,thread-outside-rank");
    for (size_t i = 0; i < out.nnotes; i++)
        drift += strstr(out.notes[i], "drift-after-init: rank") &&
                 strstr(out.notes[i], "libbl_probe_setter.so");
    assert_int_equal(drift, 2);
    bl_run_outcome_free(&out);
    remove_dir(dir);
    hwloc_topology_destroy(t);
}

/* omp-unbound is the sweep's flag for OpenMP threads left unbound: a
 * program without OpenMP threads has none to leave unbound. */
static void omp_unbound_needs_openmp_threads(void **state)
{
    static const char *const cases[][2] = {
        {"omp-unbound", ""},
        {"pu-shared,omp-unbound", "pu-shared"},
        {"omp-unbound,migrated", "migrated"},
        {"a,omp-unbound,b", "a,b"},
    };
    bl_h5_thread main_only = {.label = "main"};
    bl_h5_process one = {.complete = 1};
    bl_h5_run r = {.thread_rows = &main_only, .nthread_rows = 1,
                   .processes = &one, .nprocesses = 1};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bl_run_outcome out;
        char flags[64];
        memset(&out, 0, sizeof out);
        snprintf(flags, sizeof flags, "%s", cases[i][0]);
        bl_run_flags(&r, flags, sizeof flags, &out);
        assert_string_equal(flags, cases[i][1]);
    }
    main_only.label = "openmp";
    {
        bl_run_outcome out;
        char flags[64] = "omp-unbound";
        memset(&out, 0, sizeof out);
        bl_run_flags(&r, flags, sizeof flags, &out);
        assert_string_equal(flags, "omp-unbound");
    }
    /* no process at all: nothing was probed */
    {
        bl_run_outcome out;
        char flags[64] = "";
        memset(&out, 0, sizeof out);
        r.nprocesses = 0;
        bl_run_flags(&r, flags, sizeof flags, &out);
        assert_string_equal(flags, "not-probed");
        assert_int_equal(out.nnotes, 1);
        assert_non_null(strstr(out.notes[0], "no process wrote"));
        free(out.notes[0]);
        free(out.notes);
    }
    /* files written but unreadable: the note says so, not "no file" */
    {
        bl_run_outcome out;
        char flags[64] = "", reason[] = "probe files: d/f:41: cpus: bad";
        memset(&out, 0, sizeof out);
        out.h.reason = reason;
        bl_run_flags(&r, flags, sizeof flags, &out);
        assert_string_equal(flags, "not-probed");
        assert_int_equal(out.nnotes, 1);
        assert_string_equal(out.notes[0], "not-probed: the probe's files could "
                                          "not be read (d/f:41: cpus: bad)");
        free(out.notes[0]);
        free(out.notes);
    }
}

/* A thread bound to each CPU in turn and restored after init (a library
 * detecting the CPUs) is not drift; a thread left on another set is. */
static void undone_changes_are_not_drift(void **state)
{
    bl_h5_affinity rows[] = {
        {.rank = 0, .t = 0.1, .target = 10, .phase = "after-init",
         .call = "sched_setaffinity", .old_cpus = "0", .new_cpus = "1",
         .caller = "/lib/libdetect.so", .changed = 1, .ok = 1},
        {.rank = 0, .t = 0.2, .target = 11, .phase = "after-init",
         .call = "pthread_setaffinity_np", .old_cpus = "0-1",
         .new_cpus = "1", .caller = "/lib/libpin.so", .changed = 1, .ok = 1},
        {.rank = 0, .t = 0.3, .target = 10, .phase = "after-init",
         .call = "sched_setaffinity", .old_cpus = "1", .new_cpus = "0",
         .caller = "/lib/libdetect.so", .changed = 1, .ok = 1},
        /* thread 11 detected first, then pinned: only the pin is drift */
        {.rank = 0, .t = 0.4, .target = 11, .phase = "after-init",
         .call = "pthread_setaffinity_np", .old_cpus = "1",
         .new_cpus = "0-1", .caller = "/lib/libdetect.so", .changed = 1,
         .ok = 1},
        {.rank = 0, .t = 0.5, .target = 11, .phase = "after-init",
         .call = "pthread_setaffinity_np", .old_cpus = "0-1",
         .new_cpus = "0", .caller = "/lib/libpin.so", .changed = 1, .ok = 1},
    };
    bl_h5_process one = {.complete = 1};
    bl_h5_run r = {.affinity = rows, .naffinity = 5, .processes = &one,
                   .nprocesses = 1};
    bl_run_outcome out;
    char flags[64] = "";
    (void)state;
    memset(&out, 0, sizeof out);
    bl_run_flags(&r, flags, sizeof flags, &out);
    assert_string_equal(flags, "drift-after-init");
    assert_int_equal(out.nnotes, 3);
    assert_non_null(strstr(out.notes[0], "affinity-restored: rank 0 tid 10: "
                                         "2 changes"));
    assert_non_null(strstr(out.notes[1], "affinity-restored: rank 0 tid 11: "
                                         "2 changes"));
    assert_non_null(strstr(out.notes[2], "drift-after-init: rank 0 tid 11: "
                                         "0-1 -> 0 at t=0.500 s by "
                                         "/lib/libpin.so"));
    /* with the lasting change gone, only the notes are left */
    rows[4].phase = "finalize";
    bl_run_outcome_free(&out);
    memset(&out, 0, sizeof out);
    flags[0] = '\0';
    bl_run_flags(&r, flags, sizeof flags, &out);
    assert_string_equal(flags, "");
    assert_int_equal(out.nnotes, 2);
    bl_run_outcome_free(&out);
}

/* pu-shared: one note per PU, naming up to 8 threads and counting the
 * rest (a program may have thousands: one note per pair was quadratic). */
static void pu_shared_notes_are_one_per_pu(void **state)
{
    enum { N = 13 };
    bl_h5_placement p[N];
    bl_h5_thread th[N];
    bl_h5_process one = {.complete = 1};
    bl_h5_run r = {.placement = p, .nplacement = N, .thread_rows = th,
                   .nthread_rows = N, .processes = &one, .nprocesses = 1};
    bl_run_outcome out;
    char flags[64] = "pu-shared";
    (void)state;
    memset(p, 0, sizeof p);
    memset(th, 0, sizeof th);
    for (int i = 0; i < N; i++) {
        /* 10 threads on CPU 0, 2 on CPU 1, one mpi helper on CPU 1 */
        p[i] = (bl_h5_placement){.rank = 0, .thread = i, .host = "h",
                                 .rank_cpuset = "0-1", .cpuset = "0-1",
                                 .cpu_first = i < 10 ? 0 : 1,
                                 .cpu_last = i < 10 ? 0 : 1};
        th[i] = (bl_h5_thread){.rank = 0, .thread = i,
                               .label = i == N - 1 ? "mpi" : "openmp"};
    }
    memset(&out, 0, sizeof out);
    bl_run_flags(&r, flags, sizeof flags, &out);
    assert_int_equal(out.nnotes, 2);
    assert_string_equal(out.notes[0], "pu-shared: 0.0, 0.1, 0.2, 0.3, 0.4, "
                        "0.5, 0.6, 0.7 and 2 more ran only on CPU 0 of h");
    assert_string_equal(out.notes[1], "pu-shared: 0.10, 0.11 ran only on "
                        "CPU 1 of h");
    bl_run_outcome_free(&out);
}

/* The probe cannot enter a static program: refused before launching. */
static void static_programs_are_refused(void **state)
{
    char path[1024];
    bl_err err;
    (void)state;
    assert_int_equal(bl_run_program_check("/bin/sh", &err), 0);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
    assert_int_equal(bl_run_program_check(path, &err), 0);
    /* ctest runs unit tests in the build tree's tests/, beside it */
    assert_int_equal(bl_run_program_check("probe_static", &err), -1);
    assert_non_null(strstr(err.msg, "statically linked"));
    assert_int_equal(bl_run_program_check("/etc/hostname", &err), -1);
    assert_int_equal(bl_run_program_find("no-such-program-here", path,
                                         sizeof path, &err), -1);
    assert_non_null(strstr(err.msg, "not found in PATH"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_ranks_become_rows_and_flags),
        cmocka_unit_test(omp_unbound_needs_openmp_threads),
        cmocka_unit_test(undone_changes_are_not_drift),
        cmocka_unit_test(pu_shared_notes_are_one_per_pu),
        cmocka_unit_test(static_programs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
