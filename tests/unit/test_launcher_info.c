/* Launcher detection: the version parsers on captured and transcribed
 * outputs (tests/fixtures/launcher), and detection by running the real
 * mpirun of this machine. */
#include "bl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "launcher/launcher_info.h"

/* A fixture's text without its first line (the note saying where it came
 * from). */
static char *fixture(const char *name)
{
    const char *dir = getenv("BINDLAB_FIXTURES");
    char path[1024];
    snprintf(path, sizeof path, "%s/launcher/%s", dir ? dir : "tests/fixtures",
             name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_memory_equal(buf, "# fixture: ", 11);
    return strchr(buf, '\n') + 1;
}

static void check_mpirun(const char *name, bl_launcher_kind kind,
                         const char *version, int ma, int mi, int pa)
{
    bl_launcher_info li;
    bl_err err = {{0}};
    if (bl_launcher_parse_mpirun_version(fixture(name), &li, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(li.kind, kind);
    assert_string_equal(li.version, version);
    assert_int_equal(li.major, ma);
    assert_int_equal(li.minor, mi);
    assert_int_equal(li.patch, pa);
}

static void launcher_parses_openmpi_4_and_5(void **state)
{
    (void)state;
    check_mpirun("openmpi-4.1.4.txt", BL_LAUNCHER_OPENMPI, "4.1.4", 4, 1, 4);
    check_mpirun("openmpi-5.0.6.txt", BL_LAUNCHER_OPENMPI, "5.0.6", 5, 0, 6);
    /* Open MPI 4's mpiexec calls itself "(OpenRTE)" */
    check_mpirun("openmpi-4.1.4-mpiexec.txt", BL_LAUNCHER_OPENMPI, "4.1.4", 4,
                 1, 4);
}

static void launcher_parses_mpich_hydra(void **state)
{
    (void)state;
    check_mpirun("mpich-4.3.0.txt", BL_LAUNCHER_MPICH, "4.3.0", 4, 3, 0);
    check_mpirun("mpich-3.3.2.txt", BL_LAUNCHER_MPICH, "3.3.2", 3, 3, 2);
}

static void launcher_parses_intel_mpi_year_and_update(void **state)
{
    (void)state;
    check_mpirun("intelmpi-2021.8.txt", BL_LAUNCHER_INTELMPI, "2021.8", 2021,
                 8, 0);
    check_mpirun("intelmpi-2019u2.txt", BL_LAUNCHER_INTELMPI, "2019 Update 2",
                 2019, 2, 0);
}

static void launcher_parses_prerelease_and_old_open_rte(void **state)
{
    (void)state;
    bl_launcher_info li;
    assert_int_equal(bl_launcher_parse_mpirun_version(
                         "mpirun (Open MPI) 5.0.0rc12\n", &li, NULL), 0);
    assert_string_equal(li.version, "5.0.0rc12");
    assert_int_equal(li.patch, 0);
    assert_int_equal(bl_launcher_parse_mpirun_version(
                         "mpirun (Open RTE) 1.6.5\n", &li, NULL), 0);
    assert_int_equal(li.kind, BL_LAUNCHER_OPENMPI);
    assert_int_equal(li.major, 1);
}

static void launcher_rejects_unrecognised_mpirun_output(void **state)
{
    (void)state;
    bl_launcher_info li;
    bl_err err = {{0}};
    const char *bad[] = {
        "prterun (PRRTE) 3.0.0\n",
        "mpirun (Open MPI) \n",              /* truncated: no version */
        "HYDRA build details:\n    Release Date: today\n",
        "Intel(R) MPI Library for Linux* OS\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(bl_launcher_parse_mpirun_version(bad[i], &li, &err),
                         -1);
        assert_int_equal(li.kind, BL_LAUNCHER_UNKNOWN);
    }
    bl_launcher_parse_mpirun_version("prterun (PRRTE) 3.0.0\nmore\n", &li,
                                     &err);
    assert_non_null(strstr(err.msg, "'prterun (PRRTE) 3.0.0'"));
    assert_non_null(strstr(err.msg, "mpirun (Open MPI) 4.1.4"));
}

static void launcher_parses_srun_upstream_and_debian(void **state)
{
    (void)state;
    bl_launcher_info li;
    bl_err err = {{0}};
    assert_int_equal(bl_launcher_parse_srun_version(
                         fixture("slurm-wlm-22.05.8.txt"), &li, &err), 0);
    assert_int_equal(li.kind, BL_LAUNCHER_SLURM);
    assert_string_equal(li.version, "22.05.8");
    assert_int_equal(li.major, 22);
    assert_int_equal(li.minor, 5);
    assert_int_equal(li.patch, 8);
    assert_int_equal(bl_launcher_parse_srun_version(
                         fixture("slurm-24.05.4.txt"), &li, &err), 0);
    assert_string_equal(li.version, "24.05.4");
    assert_int_equal(li.major, 24);
}

static void launcher_rejects_unrecognised_srun_output(void **state)
{
    (void)state;
    bl_launcher_info li;
    bl_err err = {{0}};
    assert_int_equal(bl_launcher_parse_srun_version("slurmd 22.05.8\n", &li,
                                                    &err), -1);
    assert_int_equal(bl_launcher_parse_srun_version("slurm\n", &li, &err), -1);
    assert_int_equal(bl_launcher_parse_srun_version(
                         fixture("openmpi-4.1.4.txt"), &li, &err), -1);
    assert_string_equal(err.msg, "expected 'slurm 22.05.8' "
                        "(or 'slurm-wlm 22.05.8'), got 'mpirun (Open MPI) "
                        "4.1.4'");
}

/* The mpirun on PATH must be the MPI this program is linked with: the
 * library's own version string (MPI_Get_library_version, callable before
 * MPI_Init) is the independent answer. Skips only when PATH has no mpirun. */
static void launcher_detects_this_machines_mpirun(void **state)
{
    (void)state;
    char where[4096], lib[MPI_MAX_LIBRARY_VERSION_STRING], want[32];
    int len = 0;
    bl_launcher_info li;
    bl_err err = {{0}};
    if (!bl_test_find_program("mpirun", where, sizeof where))
        BL_SKIP("no mpirun in PATH, so there is no launcher to detect");
    assert_int_equal(MPI_Get_library_version(lib, &len), MPI_SUCCESS);
    if (bl_launcher_detect_mpirun(NULL, 30, &li, &err) != 0)
        fail_msg("%s", err.msg);
    if (strstr(lib, "Open MPI")) {
        /* "Open MPI v4.1.4, package: ..." */
        assert_int_equal(li.kind, BL_LAUNCHER_OPENMPI);
        snprintf(want, sizeof want, "v%d.%d.%d", li.major, li.minor, li.patch);
    } else if (strstr(lib, "MPICH")) {
        /* "MPICH Version:\t4.0.2\n..." */
        assert_int_equal(li.kind, BL_LAUNCHER_MPICH);
        snprintf(want, sizeof want, "%d.%d.%d", li.major, li.minor, li.patch);
    } else {
        fail_msg("unrecognised MPI library '%.80s': teach this test its "
                 "version string", lib);
    }
    if (!strstr(lib, want))
        fail_msg("mpirun at %s is %s %s, but this program is linked with "
                 "'%.80s'", where, bl_launcher_kind_name(li.kind), li.version,
                 lib);
}

static void write_script(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static void launcher_detect_names_missing_or_wrong_program(void **state)
{
    (void)state;
    bl_launcher_info li;
    bl_err err = {{0}};
    assert_int_equal(bl_launcher_detect_srun("bindlab-no-such-srun", 5, &li,
                                             &err), -1);
    assert_string_equal(err.msg, "finding the launcher: "
                        "'bindlab-no-such-srun': program not found in PATH");
    /* runs, prints something else: the error quotes it */
    char dir[] = "/tmp/bl_launcher_XXXXXX", odd[64], broken[64];
    assert_non_null(mkdtemp(dir));
    snprintf(odd, sizeof odd, "%s/odd-mpirun", dir);
    snprintf(broken, sizeof broken, "%s/broken-mpirun", dir);
    write_script(odd, "echo 'odd launcher 1.0'");
    write_script(broken, "echo 'mpirun: cannot load libopen-rte.so.40' >&2; "
                         "exit 3");
    assert_int_equal(bl_launcher_detect_mpirun(odd, 5, &li, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "'%s --version': cannot tell the MPI from "
             "'odd launcher 1.0'; recognised: ", odd);
    assert_memory_equal(err.msg, want, strlen(want));
    /* fails: the error gives the exit status and its stderr */
    assert_int_equal(bl_launcher_detect_mpirun(broken, 5, &li, &err), -1);
    snprintf(want, sizeof want, "'%s --version' failed: exit status 3: "
             "mpirun: cannot load libopen-rte.so.40", broken);
    assert_string_equal(err.msg, want);
    unlink(odd);
    unlink(broken);
    rmdir(dir);
}

/* Root as /proc says, not as geteuid() says. */
static void launcher_root_matches_proc_status(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    int real = -1, eff = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Uid: %d %d", &real, &eff) == 2)
            break;
    fclose(f);
    assert_true(eff >= 0);
    assert_int_equal(bl_launcher_is_root(), eff == 0);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest parsing[] = {
        cmocka_unit_test(launcher_parses_openmpi_4_and_5),
        cmocka_unit_test(launcher_parses_mpich_hydra),
        cmocka_unit_test(launcher_parses_intel_mpi_year_and_update),
        cmocka_unit_test(launcher_parses_prerelease_and_old_open_rte),
        cmocka_unit_test(launcher_rejects_unrecognised_mpirun_output),
        cmocka_unit_test(launcher_parses_srun_upstream_and_debian),
        cmocka_unit_test(launcher_rejects_unrecognised_srun_output),
        cmocka_unit_test(launcher_detect_names_missing_or_wrong_program),
        cmocka_unit_test(launcher_root_matches_proc_status),
    };
    static const struct CMUnitTest this_machine[] = {
        cmocka_unit_test(launcher_detects_this_machines_mpirun),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("parsing", parsing),
        BL_MACHINE_GROUP("mpirun", this_machine),
    };
    return bl_run_groups(argc, argv, groups);
}
