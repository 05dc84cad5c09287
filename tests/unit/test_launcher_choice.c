/* The launcher a sweep names (launcher_choice.h): the accepted values, the
 * PATH lookup, and the whole choice against stand-in launchers that print
 * the captured --version texts of tests/fixtures/launcher (the real MPIs
 * are run by tests/integration/test_sweep_launcher.sh). */
#include "bl_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/launcher_choice.h"

static char dir[PATH_MAX];
static char *saved_path;

static void fixture_path(const char *name, char *buf, size_t len)
{
    const char *fx = getenv("BINDLAB_FIXTURES");
    snprintf(buf, len, "%s/launcher/%s", fx ? fx : "tests/fixtures", name);
}

/* DIR/name: a script that prints the fixture (its first line, the note on
 * where it came from, left out) */
static void stand_in(const char *name, const char *fixture)
{
    char path[PATH_MAX + 64], fx[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fixture_path(fixture, fx, sizeof fx);
    assert_int_equal(access(fx, R_OK), 0);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\nexec /usr/bin/tail -n +2 '%s'\n", fx);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static int setup(void **state)
{
    const char *p = getenv("PATH");
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/bl_choice_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    saved_path = strdup(p ? p : "");
    setenv("PATH", dir, 1);
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    (void)state;
    setenv("PATH", saved_path, 1);
    free(saved_path);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void want_accepts_families_and_paths(void **state)
{
    bl_launcher_want w;
    bl_err err;
    (void)state;
    assert_int_equal(bl_launcher_want_parse("ompi5", &w, &err), 0);
    assert_int_equal(w.kind, BL_LAUNCHER_OPENMPI);
    assert_int_equal(w.major, 5);
    assert_string_equal(bl_launcher_want_program(&w), "mpirun");
    assert_int_equal(bl_launcher_want_parse("mpich", &w, &err), 0);
    assert_int_equal(w.kind, BL_LAUNCHER_MPICH);
    assert_string_equal(bl_launcher_want_program(&w), "mpiexec");
    assert_int_equal(bl_launcher_want_parse("impi", &w, &err), 0);
    assert_int_equal(w.kind, BL_LAUNCHER_INTELMPI);
    assert_string_equal(bl_launcher_want_program(&w), "mpiexec");
    assert_int_equal(bl_launcher_want_parse("srun", &w, &err), 0);
    assert_string_equal(bl_launcher_want_program(&w), "srun");
    assert_int_equal(bl_launcher_want_parse("mpirun", &w, &err), 0);
    assert_int_equal(w.kind, BL_LAUNCHER_UNKNOWN);
    assert_int_equal(bl_launcher_want_parse("/opt/mpich/bin/mpiexec", &w,
                                            &err), 0);
    assert_string_equal(w.value, "path");
    assert_int_equal(w.kind, BL_LAUNCHER_UNKNOWN);
    assert_string_equal(bl_launcher_want_program(&w),
                        "/opt/mpich/bin/mpiexec");
    /* srun by its path is still srun: it takes srun's options */
    assert_int_equal(bl_launcher_want_parse("/usr/bin/srun", &w, &err), 0);
    assert_int_equal(w.kind, BL_LAUNCHER_SLURM);
}

static void want_refuses_unknown_names(void **state)
{
    bl_launcher_want w;
    bl_err err;
    (void)state;
    static const char *const bad[] = {"", "OpenMPI", "mpiexec", "intel",
                                      "ompi6", "hydra"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bl_launcher_want_parse(bad[i], &w, &err), -1);
        assert_non_null(strstr(err.msg, "accepted: openmpi, ompi4, ompi5, "
                                        "mpich, impi, srun, mpirun"));
    }
}

static void find_program_walks_path_in_order(void **state)
{
    char sub[PATH_MAX + 8], buf[PATH_MAX], want[PATH_MAX + 16];
    (void)state;
    stand_in("mpiexec", "mpich-5.0.2.txt");
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    /* the first PATH entry that has it wins; a missing entry is skipped */
    char path[3 * PATH_MAX];
    snprintf(path, sizeof path, "/nonexistent-bl:%s:%s", dir, sub);
    setenv("PATH", path, 1);
    assert_int_equal(bl_find_program("mpiexec", buf, sizeof buf), 0);
    snprintf(want, sizeof want, "%s/mpiexec", dir);
    assert_string_equal(buf, want);
    assert_int_equal(bl_find_program("no-such-launcher", buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    /* a directory of that name is not a program */
    assert_int_equal(bl_find_program("sub", buf, sizeof buf), -1);
    /* a path is taken as it is */
    assert_int_equal(bl_find_program(want, buf, sizeof buf), 0);
    assert_int_equal(bl_find_program(sub, buf, sizeof buf), -1);
    setenv("PATH", dir, 1);
    rmdir(sub);
}

static void choose_checks_the_family_it_finds(void **state)
{
    bl_launcher_want w;
    bl_launcher_info li;
    bl_err err;
    char prog[PATH_MAX];
    (void)state;
    stand_in("mpiexec", "mpich-5.0.2.txt");
    stand_in("mpirun", "openmpi-4.1.4.txt");
    /* no launcher named: mpirun, whatever it is */
    assert_int_equal(bl_launcher_choose(NULL, NULL, NULL, prog, sizeof prog,
                                        &w, &li, &err), 0);
    assert_string_equal(prog, "mpirun");
    assert_int_equal(li.kind, BL_LAUNCHER_OPENMPI);
    /* mpich: mpiexec, MPICH 5.0.2; the name is kept as it is for execvp */
    assert_int_equal(bl_launcher_choose("mpich", "sweep.yaml:2:11: launcher",
                                        NULL, prog, sizeof prog, &w, &li,
                                        &err), 0);
    assert_string_equal(prog, "mpiexec");
    assert_int_equal(li.kind, BL_LAUNCHER_MPICH);
    assert_string_equal(li.version, "5.0.2");
    /* ompi5 finds Open MPI 4.1.4: refused, saying both */
    assert_int_equal(bl_launcher_choose("ompi5", "sweep.yaml:2:11: launcher",
                                        NULL, prog, sizeof prog, &w, &li,
                                        &err), -1);
    assert_string_equal(err.msg,
        "sweep.yaml:2:11: launcher: ompi5 asks for Open MPI 5, but mpirun "
        "is Open MPI 4.1.4; put that MPI's bin directory first in PATH "
        "(module load, spack load), or give its mpirun with --mpirun PATH "
        "(or as launcher: PATH in the sweep file)");
    /* impi finds MPICH's mpiexec */
    assert_int_equal(bl_launcher_choose("impi", "--launcher", NULL, prog,
                                        sizeof prog, &w, &li, &err), -1);
    assert_non_null(strstr(err.msg, "--launcher: impi asks for Intel MPI, "
                                    "but mpiexec is MPICH (Hydra) 5.0.2"));
    /* --mpirun PATH is checked against the family too */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/mpirun", dir);
    assert_int_equal(bl_launcher_choose("mpich", "--launcher", path, prog,
                                        sizeof prog, &w, &li, &err), -1);
    assert_non_null(strstr(err.msg, "but "));
    assert_non_null(strstr(err.msg, "/mpirun is Open MPI 4.1.4"));
    assert_int_equal(bl_launcher_choose("openmpi", "--launcher", path, prog,
                                        sizeof prog, &w, &li, &err), 0);
    assert_string_equal(prog, path);
    unlink(path);
}

static void choose_says_when_the_program_is_missing(void **state)
{
    bl_launcher_want w;
    bl_launcher_info li;
    bl_err err;
    char prog[PATH_MAX];
    (void)state;
    unlink(strcat(strcpy(prog, dir), "/mpiexec"));
    assert_int_equal(bl_launcher_choose("impi", "sweep.yaml:4:11: launcher",
                                        NULL, prog, sizeof prog, &w, &li,
                                        &err), -1);
    assert_string_equal(err.msg,
        "sweep.yaml:4:11: launcher impi: no mpiexec in PATH; load the MPI "
        "(module load, spack load) or give the path of its mpiexec with "
        "--mpirun PATH (or launcher: PATH in the sweep file)");
    assert_int_equal(bl_launcher_choose("/nonexistent/bin/mpiexec",
                                        "sweep.yaml:4:11: launcher", NULL,
                                        prog, sizeof prog, &w, &li, &err),
                     -1);
    assert_string_equal(err.msg, "sweep.yaml:4:11: launcher: the launcher "
                        "'/nonexistent/bin/mpiexec' is not an executable "
                        "file");
    assert_int_equal(bl_launcher_choose("intel", "--launcher", NULL, prog,
                                        sizeof prog, &w, &li, &err), -1);
    assert_memory_equal(err.msg, "--launcher: 'intel' is not a launcher", 37);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test(want_accepts_families_and_paths),
        cmocka_unit_test(want_refuses_unknown_names),
        cmocka_unit_test_setup_teardown(find_program_walks_path_in_order,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(choose_checks_the_family_it_finds,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            choose_says_when_the_program_is_missing, setup, teardown),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
    };
    return bl_run_groups(argc, argv, groups);
}
