/* Layouts translated for MPICH's Hydra and Intel MPI (harness/
 * layout_hydra.c). Expected spellings come from real launches on the
 * Skylake 2-socket topology and this VM (tests/fixtures/bindreport/
 * hydra-skylake-*.txt; docs/launchers.md), e.g. Hydra's "-bind-to core:2
 * -map-by core" overlaps its groups (rank 1 on cores 1-2), so core:PE=2
 * must be "-map-by core:2"; refusals name the launcher and the reason. */
#include "bl_test.h"

#include "launcher/launcher_info.h"
#include "launcher/layout_hydra.h"
#include "topo.h"

static const bl_launcher_info MPICH = {BL_LAUNCHER_MPICH, 5, 0, 2, "5.0.2"};
static const bl_launcher_info IMPI = {BL_LAUNCHER_INTELMPI, 2021, 19, 0,
                                      "2021.19.0"};

static void layout(bl_layout *l, int np, const char *map, const char *bind,
                   const char *rank_by)
{
    bl_err err;
    char buf[16];
    bl_layout_defaults(l);
    snprintf(buf, sizeof buf, "%d", np);
    snprintf(l->run_id, sizeof l->run_id, "r0000");
    assert_int_equal(bl_layout_set(l, BL_F_NP, buf, &err), 0);
    assert_int_equal(bl_layout_set(l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(l, BL_F_BIND_TO, bind, &err), 0);
    if (rank_by)
        assert_int_equal(bl_layout_set(l, BL_F_RANK_BY, rank_by, &err), 0);
}

static hwloc_topology_t topo(const char *synthetic)
{
    hwloc_topology_t t;
    bl_err err;
    assert_int_equal(bl_topo_load(synthetic, &t, &err), 0);
    return t;
}

/* translate and expect the *_launcher fields */
static void ok(const bl_launcher_info *li, const char *topo_spec, int np,
               const char *map, const char *bind, const char *want_map,
               const char *want_bind)
{
    bl_layout l;
    bl_err err;
    hwloc_topology_t t = topo(topo_spec);
    layout(&l, np, map, bind, NULL);
    if (bl_layout_translate_for(&l, li, t, &err) != 0)
        fail_msg("%s / %s: %s", map, bind, err.msg);
    assert_string_equal(l.map_by_launcher, want_map);
    assert_string_equal(l.bind_to_launcher, want_bind);
    hwloc_topology_destroy(t);
}

/* translate and expect a refusal whose message holds each needle */
static void refused(const bl_launcher_info *li, const char *map,
                    const char *bind, const char *rank_by, const char *n1,
                    const char *n2)
{
    bl_layout l;
    bl_err err;
    hwloc_topology_t t = topo("pack:2 core:4 pu:2");
    layout(&l, 2, map, bind, rank_by);
    assert_int_equal(bl_layout_translate_for(&l, li, t, &err), -1);
    if (!strstr(err.msg, n1) || (n2 && !strstr(err.msg, n2)))
        fail_msg("%s / %s: '%s' lacks '%s' / '%s'", map, bind, err.msg, n1,
                 n2 ? n2 : "");
    hwloc_topology_destroy(t);
}

static void mpich_spellings(void **state)
{
    (void)state;
    const char *smt = "pack:2 core:4 pu:2";
    ok(&MPICH, smt, 2, "core", "core", "core", "core");
    ok(&MPICH, smt, 2, "slot:PE=2", "core", "core:2", "core:2");
    ok(&MPICH, smt, 2, "core:PE=4", "core", "core:4", "core:4");
    ok(&MPICH, smt, 2, "package:PE=2", "core", "socket", "core:2");
    ok(&MPICH, smt, 4, "package", "core", "socket", "core");
    ok(&MPICH, smt, 2, "package", "package", "socket", "socket");
    ok(&MPICH, smt, 3, "core", "package", "core", "socket");
    ok(&MPICH, smt, 4, "hwthread", "hwthread", "hwthread", "hwthread");
    ok(&MPICH, smt, 2, "numa", "numa", "numa", "numa");
    ok(&MPICH, smt, 2, "l3cache", "l3cache", "l3cache", "l3cache");
    ok(&MPICH, smt, 2, "core", "none", "core", "none");
    ok(&MPICH, smt, 4, "ppr:4:node", "core", "core", "core");
}

static void mpich_refusals(void **state)
{
    (void)state;
    refused(&MPICH, "ppr:2:package", "core", NULL, "MPICH has no ppr over "
            "package", "ppr:N:node");
    refused(&MPICH, "ppr:1:l3cache", "core", NULL, "no ppr over l3cache",
            NULL);
    refused(&MPICH, "core", "core", "package", "rank_by 'package'",
            "no --rank-by");
    refused(&MPICH, "package:PE=2", "package", NULL, "bind_to core", NULL);
    refused(&MPICH, "hwthread:PE=2", "core", NULL, "mapped by hwthread",
            NULL);
    refused(&MPICH, "package:span", "core", NULL, ":span", NULL);
    refused(&MPICH, "node", "core", NULL, "map_by node", NULL);
}

/* Intel MPI: domains of the binding level; core:PE=P is P cores' PUs. */
static void impi_spellings(void **state)
{
    (void)state;
    ok(&IMPI, "pack:1 core:2 pu:1", 2, "core", "core",
       "I_MPI_PIN_ORDER=compact", "I_MPI_PIN_DOMAIN=core");
    ok(&IMPI, "pack:1 core:2 pu:1", 1, "slot:PE=2", "core",
       "I_MPI_PIN_ORDER=compact", "I_MPI_PIN_DOMAIN=2:compact");
    /* two PUs per core: 4 cores are 8 logical CPUs */
    ok(&IMPI, "pack:2 core:4 pu:2", 2, "core:PE=4", "core",
       "I_MPI_PIN_ORDER=compact", "I_MPI_PIN_DOMAIN=8:compact");
    ok(&IMPI, "pack:2 core:4 pu:2", 2, "package", "package",
       "I_MPI_PIN_ORDER=range", "I_MPI_PIN_DOMAIN=socket");
    ok(&IMPI, "pack:2 core:4 pu:2", 2, "numa", "numa",
       "I_MPI_PIN_ORDER=range", "I_MPI_PIN_DOMAIN=numa");
    ok(&IMPI, "pack:2 core:4 pu:2", 2, "l3cache", "l3cache",
       "I_MPI_PIN_ORDER=range", "I_MPI_PIN_DOMAIN=cache3");
    ok(&IMPI, "pack:1 core:2 pu:1", 2, "core", "none", "-", "I_MPI_PIN=0");
}

static void impi_refusals(void **state)
{
    (void)state;
    refused(&IMPI, "package", "core", NULL, "Intel MPI gives each rank its "
            "own core domain", "map_by core");
    refused(&IMPI, "core", "package", NULL, "own socket domain", NULL);
    refused(&IMPI, "package:PE=2", "core", NULL, "consecutive cores", NULL);
    refused(&IMPI, "hwthread", "hwthread", NULL, "bind_to hwthread",
            "I_MPI_PIN_PROCESSOR_LIST");
    refused(&IMPI, "ppr:2:numa", "core", NULL, "Intel MPI has no ppr over "
            "numa", NULL);
    refused(&IMPI, "core", "core", "core", "Intel MPI has no --rank-by",
            NULL);
}

/* Open MPI keeps its own translation (4.1: socket, 5: package). */
static void openmpi_unchanged(void **state)
{
    static const bl_launcher_info o4 = {BL_LAUNCHER_OPENMPI, 4, 1, 4, "4.1.4"};
    static const bl_launcher_info o5 = {BL_LAUNCHER_OPENMPI, 5, 0, 11,
                                        "5.0.11"};
    (void)state;
    ok(&o4, "pack:2 core:4 pu:2", 4, "ppr:2:package:PE=2", "core",
       "ppr:2:socket:PE=2", "core");
    ok(&o5, "pack:2 core:4 pu:2", 4, "ppr:2:package:PE=2", "core",
       "ppr:2:package:PE=2", "core");
}

/* The command lines: Hydra's debug variable in mpiexec's environment
 * (its proxy binds), Intel's pinning as -genv, no --allow-run-as-root. */
static void command_lines(void **state)
{
    bl_layout l;
    bl_err err;
    bl_kernel_spec k = {.name = "triad"};
    bl_layout_argv_opts o = {.launcher = "mpiexec", .app = "app",
                             .out_file = "o.h5", .is_root = 1, .threads = 2};
    hwloc_topology_t t = topo("pack:1 core:4 pu:1");
    char **argv;
    char line[1024] = "";
    (void)state;

    layout(&l, 2, "core:PE=2", "core", NULL);
    assert_int_equal(bl_layout_translate_for(&l, &MPICH, t, &err), 0);
    argv = bl_layout_hydra_argv(&l, &k, &o, &MPICH, &err);
    assert_non_null(argv);
    for (char **a = argv; *a; a++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s|", *a);
    assert_non_null(strstr(line, "env|HYDRA_TOPO_DEBUG=1|mpiexec|-np|2|"
                           "-bind-to|core:2|-map-by|core:2|"));
    assert_non_null(strstr(line, "-genv|OMP_NUM_THREADS|2|"));
    assert_null(strstr(line, "allow-run-as-root"));
    bl_argv_free(argv);

    line[0] = '\0';
    assert_int_equal(bl_layout_translate_for(&l, &IMPI, t, &err), 0);
    argv = bl_layout_hydra_argv(&l, &k, &o, &IMPI, &err);
    assert_non_null(argv);
    for (char **a = argv; *a; a++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s|", *a);
    assert_non_null(strstr(line, "mpiexec|-np|2|-genv|I_MPI_PIN_DOMAIN|"
                           "2:compact|-genv|I_MPI_PIN_ORDER|compact|-genv|"
                           "I_MPI_DEBUG|4|"));
    assert_null(strstr(line, "HYDRA_TOPO_DEBUG"));
    assert_null(strstr(line, "-bind-to"));
    bl_argv_free(argv);
    hwloc_topology_destroy(t);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest mpich[] = {
        cmocka_unit_test(mpich_spellings),
        cmocka_unit_test(mpich_refusals),
    };
    static const struct CMUnitTest impi[] = {
        cmocka_unit_test(impi_spellings),
        cmocka_unit_test(impi_refusals),
    };
    static const struct CMUnitTest other[] = {
        cmocka_unit_test(openmpi_unchanged),
        cmocka_unit_test(command_lines),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("mpich", mpich),
        BL_GROUP("impi", impi),
        BL_GROUP("other", other),
    };
    return bl_run_groups(argc, argv, groups);
}
