/* The probe file reader (harness/results/probe_file.c) on real files the
 * probe wrote (tests/fixtures/probe/, README there): a complete file of a
 * rank, the .part file of a process killed mid-run, and malformed input
 * with the file:line it is refused at. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "results/probe_file.h"

static void fixture_path(const char *name, char *path, size_t len)
{
    const char *dir = getenv("BINDLAB_FIXTURES");
    assert_non_null(dir);
    snprintf(path, len, "%s/probe/%s", dir, name);
}

static void read_ok(const char *name, bl_probe_file *f)
{
    char path[1024];
    bl_err err = {{0}};
    fixture_path(name, path, sizeof path);
    if (bl_probe_file_read(path, f, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
}

/* The error message of text as a file named "t.probe". */
static const char *parse_error(const char *text, bl_err *err)
{
    bl_probe_file f;
    int rc = bl_probe_file_parse(text, strlen(text), "t.probe", &f, err);
    bl_probe_file_free(&f);
    return rc == 0 ? NULL : err->msg;
}

static void complete_rank_file_is_read_whole(void **state)
{
    bl_probe_file f;
    size_t openmp = 0, setter = 0;
    (void)state;
    read_ok("complete-rank0.probe", &f);
    assert_int_equal(f.complete, 1);
    assert_int_equal(f.version, 1);
    assert_int_equal(f.rank, 0);
    assert_int_equal(f.size, 2);
    assert_string_equal(f.rank_from, "OMPI_COMM_WORLD_RANK");
    assert_string_equal(f.host, "vm");
    assert_string_equal(f.cpus[BL_PROBE_START], "0");
    for (int m = 0; m < BL_PROBE_MOMENTS; m++)
        assert_non_null(f.cpus[m]);
    assert_int_equal(f.mpi_init, 1);
    assert_int_equal(f.mpi_finalize, 1);
    for (size_t i = 0; i < f.nthreads; i++) {
        assert_int_equal(f.threads[i].ended, 1);
        assert_non_null(f.threads[i].seen_cpus);
        openmp += strcmp(f.threads[i].label, "openmp") == 0;
    }
    assert_int_equal(openmp, 1);
    assert_string_equal(f.threads[0].label, "main");
    for (size_t i = 0; i < f.nchanges; i++) {
        const bl_probe_change *a = &f.changes[i];
        if (!strstr(a->caller, "libbl_probe_setter"))
            continue;
        setter++;
        assert_string_equal(a->phase, "after-init");
        assert_string_equal(a->call, "sched_setaffinity");
        assert_string_equal(a->new_cpus, "0-1");
        assert_int_equal(a->changed, 1);
    }
    assert_int_equal(setter, 1);
    assert_true(f.npages >= 1);
    assert_string_equal(f.pages[0].at, "finalize");
    assert_int_equal(f.pages[0].page_kb, 4);
    assert_true(f.pages[0].pages > 0);
    bl_probe_file_free(&f);
}

static void killed_process_part_file_is_incomplete(void **state)
{
    bl_probe_file f;
    (void)state;
    read_ok("killed.probe.part", &f);
    assert_int_equal(f.complete, 0);
    assert_int_equal(f.rank, -1); /* a singleton: no launcher variable */
    assert_non_null(f.cpus[BL_PROBE_INIT]);
    assert_null(f.cpus[BL_PROBE_FINALIZE]);
    assert_null(f.cpus[BL_PROBE_EXIT]);
    assert_int_equal(f.npages, 0);
    assert_true(f.nthreads >= 2);
    for (size_t i = 0; i < f.nthreads; i++) {
        assert_int_equal(f.threads[i].ended, 0);
        assert_null(f.threads[i].end_cpus);
    }
    bl_probe_file_free(&f);
}

static void malformed_cpu_list_names_file_and_line(void **state)
{
    bl_probe_file f;
    char path[1024];
    bl_err err = {{0}};
    (void)state;
    fixture_path("malformed-cpus.probe", path, sizeof path);
    assert_int_equal(bl_probe_file_read(path, &f, &err), -1);
    bl_probe_file_free(&f);
    assert_non_null(strstr(err.msg, "malformed-cpus.probe:13: cpus"));
}

static void cut_last_line_of_part_file_is_dropped(void **state)
{
    bl_probe_file f;
    bl_err err = {{0}};
    const char *text = "bindlab-probe 1\n"
                       "process pid=5 ppid=1 host=h exe=/x argv0=x rank=- rank_from=- "
                       "size=- size_from=- period_ms=5 start_unix=1.5\n"
                       "thread tid=5 label=main object=- t=0.1 phase=before-ini";
    (void)state;
    assert_int_equal(bl_probe_file_parse(text, strlen(text), "t", &f, &err), 0);
    assert_int_equal(f.complete, 0);
    assert_int_equal(f.nthreads, 0);
    bl_probe_file_free(&f);
}

static void malformed_records_are_refused_at_their_line(void **state)
{
    bl_err err;
    const char *proc = "bindlab-probe 1\nprocess pid=5 ppid=1 host=h exe=%2Fx argv0=x "
                       "rank=0 rank_from=PMI_RANK size=2 size_from=PMI_SIZE period_ms=5 "
                       "start_unix=1\n";
    char text[1024];
    (void)state;
    assert_non_null(strstr(parse_error("not a probe\n", &err), "t.probe:1: not a bindlab"));
    assert_non_null(strstr(parse_error("bindlab-probe 2\n", &err), "t.probe:1: format version"));
    assert_non_null(strstr(parse_error("", &err), "empty"));
    snprintf(text, sizeof text, "%sthread_end tid=9 t=1 cpus=0 seen=0 samples=1 "
             "migrations=0 vcsw=0 ivcsw=0\n", proc);
    assert_non_null(strstr(parse_error(text, &err), "t.probe:3: thread_end of a thread"));
    snprintf(text, sizeof text, "%sthread tid=5 label=main object=- t=0 phase=x\n", proc);
    assert_non_null(strstr(parse_error(text, &err), "t.probe:3: 'thread' has no cpus="));
    snprintf(text, sizeof text, "%send t=1\nnote what=x\n", proc);
    assert_non_null(strstr(parse_error(text, &err), "t.probe:4: a record after 'end'"));
    snprintf(text, sizeof text, "%sthread tid=5 label=m%%4 object=- t=0 phase=x cpus=0\n", proc);
    assert_non_null(strstr(parse_error(text, &err), "t.probe:3: bad %XX"));
    snprintf(text, sizeof text, "%scpus moment=later t=0 tid=5 cpus=0\n", proc);
    assert_non_null(strstr(parse_error(text, &err), "t.probe:3: unknown moment"));
    /* what is well formed: escapes decoded, unknown records skipped */
    bl_probe_file f;
    snprintf(text, sizeof text, "%sfuture x=1\nend t=2\n", proc);
    assert_int_equal(bl_probe_file_parse(text, strlen(text), "t", &f, &err), 0);
    assert_string_equal(f.exe, "/x");
    assert_int_equal(f.rank, 0);
    assert_int_equal(f.complete, 1);
    bl_probe_file_free(&f);
}

/* The visible-device variables a process started with: set empty ("",
 * not unset), set, unset (NULL). */
static void visible_devices_are_read(void **state)
{
    bl_probe_file f;
    (void)state;
    read_ok("visible.probe", &f);
    assert_true(f.visible_recorded);
    assert_non_null(bl_probe_visible_get(&f, "CUDA_VISIBLE_DEVICES"));
    assert_string_equal(bl_probe_visible_get(&f, "CUDA_VISIBLE_DEVICES"), "");
    assert_null(bl_probe_visible_get(&f, "ROCR_VISIBLE_DEVICES"));
    assert_string_equal(bl_probe_visible_get(&f, "ZE_AFFINITY_MASK"), "0.1");
    assert_string_equal(bl_probe_visible_get(&f, "BINDLAB_GPUS"),
                        "0000:01:00.0");
    assert_null(bl_probe_visible_get(&f, "HIP_VISIBLE_DEVICES"));
    assert_true(f.complete);
    bl_probe_file_free(&f);
    read_ok("complete-rank0.probe", &f); /* an older probe: not recorded */
    assert_false(f.visible_recorded);
    assert_null(bl_probe_visible_get(&f, "CUDA_VISIBLE_DEVICES"));
    bl_probe_file_free(&f);
}

/* Copies fixture name into dir. */
/* "-" for a set the kernel would not give (a thread already gone) is
 * read as unknown, not refused. */
static void unknown_sets_are_read(void **state)
{
    const char *text =
        "bindlab-probe 1\n"
        "process pid=9 ppid=1 host=h exe=/x argv0=x rank=0 "
        "rank_from=OMPI_COMM_WORLD_RANK size=1 size_from=OMPI_COMM_WORLD_SIZE "
        "period_ms=5 start_unix=1.0\n"
        "cpus moment=start t=0 tid=9 cpus=-\n"
        "thread tid=12 label=unknown object=- t=1 phase=after-init cpus=-\n"
        "thread_end tid=12 t=1 cpus=- seen=- samples=0 migrations=-1 "
        "vcsw=-1 ivcsw=-1\n";
    bl_probe_file f;
    bl_err err = {{0}};
    (void)state;
    if (bl_probe_file_parse(text, strlen(text), "t.probe", &f, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(f.cpus[BL_PROBE_START], "-");
    assert_int_equal(f.nthreads, 1);
    assert_string_equal(f.threads[0].start_cpus, "-");
    assert_string_equal(f.threads[0].end_cpus, "-");
    bl_probe_file_free(&f);
}

static void copy_fixture(const char *name, const char *dir)
{
    char from[1024], to[1024], buf[4096];
    size_t n;
    fixture_path(name, from, sizeof from);
    snprintf(to, sizeof to, "%s/bindlab-probe.%s", dir, name);
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

static void run_directory_is_read_in_rank_order(void **state)
{
    char dir[] = "/tmp/bl-probe-dir-XXXXXX", path[1024];
    bl_probe_set set;
    bl_err err = {{0}};
    (void)state;
    assert_non_null(mkdtemp(dir));
    copy_fixture("killed.probe.part", dir);
    copy_fixture("complete-rank1.probe", dir);
    copy_fixture("complete-rank0.probe", dir);
    snprintf(path, sizeof path, "%s/unrelated.txt", dir);
    fclose(fopen(path, "w"));
    if (bl_probe_dir_read(dir, &set, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(set.n, 3);
    assert_int_equal(set.files[0].rank, 0);
    assert_int_equal(set.files[1].rank, 1);
    assert_int_equal(set.files[2].rank, -1);
    assert_int_equal(set.files[2].complete, 0);
    bl_probe_set_free(&set);
    copy_fixture("malformed-cpus.probe", dir);
    assert_int_equal(bl_probe_dir_read(dir, &set, &err), -1);
    assert_non_null(strstr(err.msg, "malformed-cpus.probe:13:"));
    bl_probe_set_free(&set);
    const char *names[] = {"killed.probe.part", "complete-rank1.probe",
                           "complete-rank0.probe", "malformed-cpus.probe"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/bindlab-probe.%s", dir, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/unrelated.txt", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(complete_rank_file_is_read_whole),
        cmocka_unit_test(killed_process_part_file_is_incomplete),
        cmocka_unit_test(malformed_cpu_list_names_file_and_line),
        cmocka_unit_test(cut_last_line_of_part_file_is_dropped),
        cmocka_unit_test(malformed_records_are_refused_at_their_line),
        cmocka_unit_test(unknown_sets_are_read),
        cmocka_unit_test(visible_devices_are_read),
        cmocka_unit_test(run_directory_is_read_in_rank_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
