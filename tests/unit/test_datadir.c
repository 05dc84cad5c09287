/* The shipped-data lookup (harness/cli/datadir.c) from a build tree: with no
 * PREFIX/share/bindlab beside the running program, the data is the source
 * tree's configs/ (found here from BINDLAB_SOURCE_DIR, which ctest sets);
 * short names resolve to the files there, and a local file, a path with
 * '/' or an unknown name are left as given. The installed layout is
 * tested end to end by tests/integration/test_install.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/datadir.h"

static char configs[PATH_MAX];  /* realpath of SOURCE/configs */

static int setup(void **state)
{
    const char *src = getenv("BINDLAB_SOURCE_DIR");
    char p[PATH_MAX];
    (void)state;
    if (!src)
        return -1;
    snprintf(p, sizeof p, "%s/configs", src);
    return realpath(p, configs) ? 0 : -1;
}

static void data_dir_is_the_source_configs(void **state)
{
    char dir[PATH_MAX], real[PATH_MAX];
    bl_err err = {""};
    (void)state;
    assert_int_equal(bl_data_dir(dir, sizeof dir, &err), 0);
    assert_non_null(realpath(dir, real));
    assert_string_equal(real, configs);
}

static void short_names_resolve_to_shipped_files(void **state)
{
    char buf[PATH_MAX], want[PATH_MAX + 64], real[PATH_MAX];
    const char *got;
    (void)state;
    snprintf(want, sizeof want, "%s/topologies/qemu-2s.xml", configs);
    got = bl_data_resolve("topologies", ".xml", "qemu-2s", buf, sizeof buf);
    assert_non_null(realpath(got, real));
    assert_string_equal(real, want);
    got = bl_data_resolve("topologies", ".xml", "qemu-2s.xml", buf, sizeof buf);
    assert_non_null(realpath(got, real));
    assert_string_equal(real, want);
    snprintf(want, sizeof want, "%s/sweeps/workshop.yaml", configs);
    got = bl_data_sweep("workshop", buf, sizeof buf);
    assert_non_null(realpath(got, real));
    assert_string_equal(real, want);
}

static void other_names_are_left_as_given(void **state)
{
    char buf[PATH_MAX];
    const char *unknown = "no-such-topology-here";
    const char *slash = "somewhere/qemu-2s";
    const char *synth = "pack:2 core:4";
    (void)state;
    assert_ptr_equal(bl_data_resolve("topologies", ".xml", unknown, buf, sizeof buf), unknown);
    assert_ptr_equal(bl_data_resolve("topologies", ".xml", slash, buf, sizeof buf), slash);
    assert_ptr_equal(bl_data_resolve("topologies", ".xml", synth, buf, sizeof buf), synth);
    assert_string_equal(bl_data_resolve("topologies", ".xml", "", buf, sizeof buf), "");
}

/* A file of that name in the current directory wins over the shipped one
 * (a directory does not),
 * and the default sweep is the local configs/sweeps/default.yaml when
 * there is one, the shipped one otherwise. */
static void local_files_win(void **state)
{
    char tmpl[] = "/tmp/bl_datadir_XXXXXX", old[PATH_MAX], buf[PATH_MAX];
    char want[PATH_MAX + 64], real[PATH_MAX];
    const char *name = "qemu-2s", *got;
    FILE *f;
    (void)state;
    assert_non_null(getcwd(old, sizeof old));
    assert_non_null(mkdtemp(tmpl));
    assert_int_equal(chdir(tmpl), 0);

    snprintf(want, sizeof want, "%s/sweeps/default.yaml", configs);
    got = bl_data_sweep(BL_DEFAULT_SWEEP, buf, sizeof buf);
    assert_non_null(realpath(got, real));
    assert_string_equal(real, want);

    f = fopen(name, "w");
    assert_non_null(f);
    fclose(f);
    assert_ptr_equal(bl_data_resolve("topologies", ".xml", name, buf, sizeof buf), name);

    assert_int_equal(mkdir("configs", 0700) | mkdir("configs/sweeps", 0700), 0);
    f = fopen(BL_DEFAULT_SWEEP, "w");
    assert_non_null(f);
    fclose(f);
    assert_string_equal(bl_data_sweep(BL_DEFAULT_SWEEP, buf, sizeof buf), BL_DEFAULT_SWEEP);

    /* A directory named like a shipped sweep does not hide it. */
    assert_int_equal(mkdir("workshop", 0700), 0);
    snprintf(want, sizeof want, "%s/sweeps/workshop.yaml", configs);
    got = bl_data_sweep("workshop", buf, sizeof buf);
    assert_non_null(realpath(got, real));
    assert_string_equal(real, want);
    rmdir("workshop");

    unlink(BL_DEFAULT_SWEEP);
    rmdir("configs/sweeps");
    rmdir("configs");
    unlink(name);
    assert_int_equal(chdir(old), 0);
    rmdir(tmpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_dir_is_the_source_configs),
        cmocka_unit_test(short_names_resolve_to_shipped_files),
        cmocka_unit_test(other_names_are_left_as_given),
        cmocka_unit_test(local_files_win),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
