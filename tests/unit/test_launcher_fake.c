/* A new launcher is one file and one table entry: the test-only fake
 * launcher (launcher_fake.c, registered here) is detected, named by
 * --launcher, spells layouts or refuses them, gets its run and plan
 * commands from the one builder, and its binding report is read by the
 * format it names. */
#include "bl_test.h"

#include <string.h>

#include "bindreport/bindreport.h"
#include "launcher/launcher.h"
#include "launcher/launcher_choice.h"
#include "topo.h"

extern const bl_launcher_ops bl_launcher_fake;

static int setup(void **state)
{
    (void)state;
    return bl_launcher_ops_named("fake") ? 0
                                         : bl_launcher_register(
                                               &bl_launcher_fake);
}

static bl_layout layout(const char *np, const char *map, const char *bind)
{
    bl_layout l;
    bl_err err;
    bl_layout_defaults(&l);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, np, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_BIND_TO, bind, &err), 0);
    return l;
}

static void assert_words(char **argv, const char *const *want)
{
    size_t i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
}

static void fake_is_detected_and_named(void **state)
{
    bl_launcher_info li;
    bl_launcher_want w;
    bl_err err;
    (void)state;
    assert_int_equal(bl_launcher_parse_mpirun_version(
                         "fakerun version 1.2.3\n", &li, &err), 0);
    assert_int_equal(li.kind, BL_LAUNCHER_REGISTERED);
    assert_string_equal(li.version, "1.2.3");
    assert_ptr_equal(bl_launcher_ops_of(&li), &bl_launcher_fake);
    assert_string_equal(bl_launcher_kind_name(li.kind), "Fake MPI");
    /* --launcher fake: its program, checked against what it answered */
    assert_int_equal(bl_launcher_want_parse("fake", &w, &err), 0);
    assert_string_equal(bl_launcher_want_program(&w), "fakerun");
    assert_int_equal(bl_launcher_want_check(&w, &li, "fakerun", &err), 0);
    /* the built-in launchers are still what they were */
    assert_int_equal(bl_launcher_parse_mpirun_version(
                         "mpirun (Open MPI) 4.1.4\n", &li, &err), 0);
    assert_int_equal(li.kind, BL_LAUNCHER_OPENMPI);
    assert_int_equal(bl_launcher_want_check(&w, &li, "mpirun", &err), -1);
    assert_non_null(strstr(err.msg, "fake asks for Fake MPI, but mpirun is "
                                    "Open MPI 4.1.4"));
    /* and a word it does not know lists it */
    assert_int_equal(bl_launcher_want_parse("fakerun", &w, &err), -1);
    assert_non_null(strstr(err.msg, ", srun, fake, mpirun"));
}

static void fake_spells_or_refuses_layouts(void **state)
{
    bl_launcher_info li = {.kind = BL_LAUNCHER_REGISTERED, .major = 1};
    bl_layout l = layout("2", "package", "core");
    bl_err err;
    (void)state;
    assert_int_equal(bl_launcher_translate(&l, &li, NULL, &err), 0);
    assert_string_equal(l.map_by_launcher, "package");
    assert_string_equal(l.bind_to_launcher, "core");
    l = layout("2", "core:PE=2", "core");
    assert_int_equal(bl_launcher_translate(&l, &li, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "not map_by 'core:PE=2'"));
    assert_true(bl_launcher_ops_of(&li)->translate_refuses);
}

static void fake_run_and_plan_commands(void **state)
{
    static const char *const run[] = {
        "fakerun", "-n", "2", "--map", "package", "--bind", "core",
        "--env", "OMP_NUM_THREADS=3", "app", "--kernel", "triad", "--init",
        "parallel", "--out", "o.h5", NULL};
    static const char *const plan[] = {
        "fakerun", "-n", "2", "--map", "package", "--bind", "core",
        "--dry", "--env", "OMP_NUM_THREADS=3", "/bin/true", NULL};
    static const char *const env[] = {"HWLOC_XMLFILE=node.xml",
                                      "HWLOC_THISSYSTEM=1", NULL};
    bl_launcher_info li = {.kind = BL_LAUNCHER_REGISTERED, .major = 1};
    bl_layout l = layout("2", "package", "core");
    bl_kernel_spec k = {.name = "triad"};
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 3};
    bl_plan_mode m = {.program = "/bin/true", .xml = "node.xml"};
    bl_command c;
    bl_err err;
    (void)state;
    assert_int_equal(bl_launcher_translate(&l, &li, NULL, &err), 0);
    assert_int_equal(bl_launcher_command(&li, &l, &k, &o, NULL, &c, &err), 0);
    assert_words(c.argv, run);
    assert_null(c.env);
    assert_int_equal(c.nplanned, 0);
    bl_command_free(&c);
    assert_int_equal(bl_launcher_command(&li, &l, &k, &o, &m, &c, &err), 0);
    assert_words(c.argv, plan);
    assert_words(c.env, env);
    assert_int_equal(c.nplanned, 1);
    assert_int_equal(c.planned[0], 7);
    assert_int_equal(c.app_at, 10);
    bl_command_free(&c);
}

/* What fakerun prints for -n 2 --map package --bind core on a node of 2
 * packages of 2 cores: each rank on the first core of its package. */
static void fake_report_is_read_by_its_format(void **state)
{
    const char *text = "fakerun: starting 2 ranks\n"
                       "process 0 binding: 1000\n"
                       "process 1 binding: 0010\n";
    bl_report_format fmt;
    bl_binding_report rep;
    hwloc_topology_t t;
    bl_err err;
    char set[32];
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 core:2 pu:1", &t, &err), 0);
    assert_int_equal(bl_bindreport_format_parse(
                         bl_launcher_fake.report_format, &fmt, &err), 0);
    assert_int_equal(bl_bindreport_parse(text, fmt, t, &rep, &err), 0);
    assert_int_equal(rep.nrejected, 0);
    assert_int_equal(rep.count, 2);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(rep.items[r].rank, r);
        hwloc_bitmap_list_snprintf(set, sizeof set, rep.items[r].cpus);
        assert_string_equal(set, r == 0 ? "0" : "2");
    }
    bl_bindreport_free(&rep);
    hwloc_topology_destroy(t);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest fake[] = {
        cmocka_unit_test_setup(fake_is_detected_and_named, setup),
        cmocka_unit_test_setup(fake_spells_or_refuses_layouts, setup),
        cmocka_unit_test_setup(fake_run_and_plan_commands, setup),
        cmocka_unit_test_setup(fake_report_is_read_by_its_format, setup),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("fake", fake),
    };
    return bl_run_groups(argc, argv, groups);
}
