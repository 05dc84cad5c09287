/* The binding-report and version parsers on REAL captures of Open MPI 5
 * (PRRTE), MPICH 5 (Hydra) and Intel MPI 2021 (tests/fixtures/bindreport/
 * and tests/fixtures/launcher/; scripts/capture-launcher-fixtures.sh makes
 * them, each file's first line names the command).
 *
 * Expected sets are derived by hand from the command that was run and the
 * node it ran on, never from the parser:
 *   - the VM captures ran on 1 package, 2 cores, no SMT;
 *   - the Skylake captures ran against Intel-Skylake-2xXeon6140.xml
 *     (2 x 18 cores x 2 PUs). `hwloc-calc --physical-output --intersect pu`
 *     on that file gives: logical core c of package 0 = PUs 2c and 2c+36,
 *     core 18+c (package 1) = PUs 2c+1 and 2c+37; package 0 = the even PUs
 *     0-70, package 1 the odd ones. */
#include "bl_test.h"

#include "bindreport/bindreport.h"
#include "cpuset.h"
#include "launcher/launcher_info.h"
#include "topo.h"

#include "bl_test_files.h"

#define VM_TOPO "pack:1 core:2 pu:1"
#define SKYLAKE "Intel-Skylake-2xXeon6140.xml"

/* A real capture: its first line says so (and names the command). */
static char *read_fixture(const char *sub, const char *name)
{
    char *text = bl_test_fixture(sub, name);
    assert_non_null(strstr(text, "captured"));
    assert_true(strchr(text, '\n') > strstr(text, "captured"));
    return text;
}

/* Parses a fixture with AUTO detection and checks: the format found, no
 * rejected line, and rank i bound to want[i] (a CPU list; "" ends). */
static void check(const char *name, const char *topo_spec,
                  bl_report_format fmt, int bound, const char *const *want)
{
    bl_binding_report r;
    bl_err err;
    hwloc_topology_t t = bl_test_topology(topo_spec);
    char *text = read_fixture("bindreport", name);
    size_t n = 0;
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, t, &r, &err),
                     0);
    for (size_t i = 0; i < r.nrejected; i++)
        print_error("%s:%d rejected: %s\n", name, r.rejected[i].line,
                    r.rejected[i].reason);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.format, fmt);
    while (want[n])
        n++;
    assert_int_equal(r.count, n);
    for (size_t i = 0; i < n; i++) {
        char buf[512];
        bl_cpuset_format_list(r.items[i].cpus, buf, sizeof buf);
        assert_int_equal(r.items[i].rank, (int)i);
        if (strcmp(buf, want[i]) != 0)
            fail_msg("%s rank %zu: cpus %s, expected %s", name, i, buf,
                     want[i]);
        assert_int_equal(r.items[i].bound, bound);
    }
    bl_bindreport_free(&r);
    hwloc_topology_destroy(t);
    free(text);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__, NULL})
#define EVEN "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42," \
             "44,46,48,50,52,54,56,58,60,62,64,66,68,70"
#define ODD "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,43," \
            "45,47,49,51,53,55,57,59,61,63,65,67,69,71"

/* ---- PRRTE's job map (mpirun --display map) --------------------------
 * The EPYC 9654 captures ran against AMD-19h-Zen4-2xEpyc-9654.xml (2 x 96
 * cores x 2 PUs). hwloc-calc --physical-output --intersect pu on that file:
 * logical core c = PUs c and c+192 (both packages); L3 i = cores 8i..8i+7;
 * package 0 = cores 0-95, package 1 = cores 96-191. */
#define EPYC9654 "AMD-19h-Zen4-2xEpyc-9654.xml"

/* -np 2 --map-by core --bind-to core --display map, launched. */
static void map_vm_core(void **state)
{
    (void)state;
    check("ompi5-vm-map.txt", VM_TOPO, BL_REPORT_PRRTE_MAP, 1,
          WANT("0", "1"));
}

/* --bind-to none --do-not-launch: "Binding: UNBOUND", the whole node. */
static void map_vm_unbound(void **state)
{
    (void)state;
    check("ompi5-vm-map-none.txt", VM_TOPO, BL_REPORT_PRRTE_MAP, 0,
          WANT("0-1", "0-1"));
}

/* ppr:2:package:pe=4 --bind-to core --do-not-launch on Skylake: the
 * same sets as the launched --report-bindings capture of that layout. */
static void map_skylake_plan(void **state)
{
    (void)state;
    check("ompi5-skylake-plan.txt", SKYLAKE, BL_REPORT_PRRTE_MAP, 1,
          WANT("0,2,4,6,36,38,40,42", "8,10,12,14,44,46,48,50",
               "1,3,5,7,37,39,41,43", "9,11,13,15,45,47,49,51"));
}

/* ppr:2:package:pe=2 --bind-to hwthread: 2 hwthreads = one whole core
 * ("core:L0" on an SMT node), two ranks per package. */
static void map_epyc_pe2_hwthread(void **state)
{
    (void)state;
    check("ompi5-epyc9654-map-pe2-hwthread.txt", EPYC9654,
          BL_REPORT_PRRTE_MAP, 1,
          WANT("0,192", "1,193", "96,288", "97,289"));
}

/* --map-by hwthread --bind-to hwthread: both PUs of core 0, then of
 * core 1 ("hwt:L192" names the PU's OS index). */
static void map_epyc_hwthread(void **state)
{
    (void)state;
    check("ompi5-epyc9654-map-hwthread.txt", EPYC9654, BL_REPORT_PRRTE_MAP,
          1, WANT("0", "192", "1", "193"));
}

/* ppr:1:l3cache:pe=8 --bind-to core: each rank one whole L3 (8 cores). */
static void map_epyc_l3(void **state)
{
    (void)state;
    check("ompi5-epyc9654-map-l3.txt", EPYC9654, BL_REPORT_PRRTE_MAP, 1,
          WANT("0-7,192-199", "8-15,200-207", "16-23,208-215"));
}

/* --display map --report-bindings, launched: the map and the Rank lines
 * say the same, so each rank is read once and nothing is rejected. */
static void map_epyc_with_rank_lines(void **state)
{
    (void)state;
    check("ompi5-epyc9654-map-launched.txt", EPYC9654, BL_REPORT_PRRTE_MAP,
          1, WANT("0-95,192-287", "96-191,288-383"));
}

/* ---- Open MPI 5.0.11 (PRRTE) ---------------------------------------- */

/* -np 2 --map-by core --bind-to core: one core each, in order. */
static void ompi5_vm_core(void **state)
{
    (void)state;
    check("ompi5-vm-core.txt", VM_TOPO, BL_REPORT_OMPI5, 1, WANT("0", "1"));
}

/* --bind-to package on a 1-package node: both ranks get the node. */
static void ompi5_vm_package(void **state)
{
    (void)state;
    check("ompi5-vm-package.txt", VM_TOPO, BL_REPORT_OMPI5, 1,
          WANT("0-1", "0-1"));
}

/* --bind-to none: "is not bound", read as the whole node, bound = 0. */
static void ompi5_vm_none(void **state)
{
    (void)state;
    check("ompi5-vm-none.txt", VM_TOPO, BL_REPORT_OMPI5, 0,
          WANT("0-1", "0-1"));
}

/* ppr:2:package:pe=4 --bind-to core: ranks 0,1 on cores 0-3 and 4-7 of
 * package 0, ranks 2,3 on the first 8 cores of package 1 (cores 18-25). */
static void ompi5_skylake_ppr2_pe4(void **state)
{
    (void)state;
    check("ompi5-skylake-ppr2pe4.txt", SKYLAKE, BL_REPORT_OMPI5, 1,
          WANT("0,2,4,6,36,38,40,42", "8,10,12,14,44,46,48,50",
               "1,3,5,7,37,39,41,43", "9,11,13,15,45,47,49,51"));
}

/* --map-by hwthread --bind-to hwthread: consecutive ranks on the two PUs
 * of core 0 (PUs 0 and its sibling 36), then core 1 (2 and 38). */
static void ompi5_skylake_hwthread(void **state)
{
    (void)state;
    check("ompi5-skylake-hwthread.txt", SKYLAKE, BL_REPORT_OMPI5, 1,
          WANT("0", "36", "2", "38"));
}

/* ppr:2:package --bind-to package: two ranks per whole package. */
static void ompi5_skylake_package(void **state)
{
    (void)state;
    check("ompi5-skylake-package.txt", SKYLAKE, BL_REPORT_OMPI5, 1,
          WANT(EVEN, EVEN, ODD, ODD));
}

/* ppr:1:package:pe=2 --bind-to hwthread: two hwthreads per rank = the
 * first core of each package, printed as one core. */
static void ompi5_skylake_pe2_hwthread(void **state)
{
    (void)state;
    check("ompi5-skylake-pe2-hwthread.txt", SKYLAKE, BL_REPORT_OMPI5, 1,
          WANT("0,36", "1,37"));
}

/* ---- MPICH 5.0.2 Hydra (HYDRA_TOPO_DEBUG=1) ------------------------- */

static void hydra_vm_core(void **state)
{
    (void)state;
    check("hydra-vm-core.txt", VM_TOPO, BL_REPORT_HYDRA, 1, WANT("0", "1"));
}

static void hydra_vm_socket(void **state)
{
    (void)state;
    check("hydra-vm-socket.txt", VM_TOPO, BL_REPORT_HYDRA, 1,
          WANT("0-1", "0-1"));
}

/* -bind-to core -map-by core: cores 0-3 of package 0, both PUs each. */
static void hydra_skylake_core(void **state)
{
    (void)state;
    check("hydra-skylake-core.txt", SKYLAKE, BL_REPORT_HYDRA, 1,
          WANT("0,36", "2,38", "4,40", "6,42"));
}

/* -bind-to socket -map-by socket: round robin over the two packages. */
static void hydra_skylake_socket(void **state)
{
    (void)state;
    check("hydra-skylake-socket.txt", SKYLAKE, BL_REPORT_HYDRA, 1,
          WANT(EVEN, ODD, EVEN, ODD));
}

/* -bind-to core:2 -map-by socket: two cores per rank, packages taken in
 * turn: rank 0 cores 0-1, rank 1 cores 18-19, rank 2 cores 2-3, rank 3
 * cores 20-21. */
static void hydra_skylake_core2(void **state)
{
    (void)state;
    check("hydra-skylake-core2.txt", SKYLAKE, BL_REPORT_HYDRA, 1,
          WANT("0,2,36,38", "1,3,37,39", "4,6,40,42", "5,7,41,43"));
}

static void hydra_skylake_hwthread(void **state)
{
    (void)state;
    check("hydra-skylake-hwthread.txt", SKYLAKE, BL_REPORT_HYDRA, 1,
          WANT("0", "36", "2", "38"));
}

/* ---- Intel MPI 2021.19 (I_MPI_DEBUG=4) ------------------------------ */

static void impi_domain_core(void **state)
{
    (void)state;
    check("impi-vm-pin-domain-core.txt", VM_TOPO, BL_REPORT_IMPI, 1,
          WANT("0", "1"));
}

static void impi_domain_socket(void **state)
{
    (void)state;
    check("impi-vm-pin-domain-socket.txt", VM_TOPO, BL_REPORT_IMPI, 1,
          WANT("0-1", "0-1"));
}

/* I_MPI_PIN_PROCESSOR_LIST=1,0: rank 0 on CPU 1, rank 1 on CPU 0. */
static void impi_processor_list(void **state)
{
    (void)state;
    check("impi-vm-pin-processor-list-1-0.txt", VM_TOPO, BL_REPORT_IMPI, 1,
          WANT("1", "0"));
}

/* I_MPI_PIN=0: the table lists the inherited mask (the whole VM). */
static void impi_no_pinning(void **state)
{
    (void)state;
    check("impi-vm-pin-0.txt", VM_TOPO, BL_REPORT_IMPI, 1,
          WANT("0-1", "0-1"));
}

/* Table rows that cannot be read are rejected with the reason; header
 * and other startup lines are not report lines. Made by hand from the
 * capture above. */
static void impi_rejects_broken_rows(void **state)
{
    static const char text[] =
        "[0] MPI startup(): ===== CPU pinning =====\n"
        "[0] MPI startup(): Rank    Pid      Node name  Pin cpu\n"
        "[0] MPI startup(): 0       21752    vm         {0}\n"
        "[0] MPI startup(): 1       21753    vm         {1\n"
        "[0] MPI startup(): 2       21754\n"
        "[0] MPI startup(): 3       21755    vm         {7}\n"
        "[0] MPI startup(): 4       21756    vm         {x}\n";
    bl_binding_report r;
    bl_err err;
    hwloc_topology_t t = bl_test_topology(VM_TOPO);
    (void)state;
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, t, &r, &err),
                     0);
    assert_int_equal(r.format, BL_REPORT_IMPI);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.items[0].rank, 0);
    assert_int_equal(r.items[0].pid, 21752);
    assert_string_equal(r.items[0].host, "vm");
    assert_int_equal(r.nrejected, 4);
    assert_int_equal(r.rejected[0].line, 4);
    assert_non_null(strstr(r.rejected[0].reason, "{CPUS}"));
    assert_int_equal(r.rejected[1].line, 5);
    assert_int_equal(r.rejected[2].line, 6); /* CPU 7 not on a 2-PU node */
    assert_non_null(strstr(r.rejected[2].reason, "CPU 7"));
    assert_int_equal(r.rejected[3].line, 7);
    bl_bindreport_free(&r);
    hwloc_topology_destroy(t);
}

/* ---- launcher versions ---------------------------------------------- */

static void version_of(const char *name, bl_launcher_kind kind, int major,
                       int minor, int patch)
{
    bl_launcher_info li;
    bl_err err;
    char *text = read_fixture("launcher", name);
    if (bl_launcher_parse_mpirun_version(text, &li, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(li.kind, kind);
    assert_int_equal(li.major, major);
    assert_int_equal(li.minor, minor);
    assert_int_equal(li.patch, patch);
    free(text);
}

static void versions_of_real_launchers(void **state)
{
    (void)state;
    version_of("openmpi-5.0.11.txt", BL_LAUNCHER_OPENMPI, 5, 0, 11);
    version_of("mpich-5.0.2.txt", BL_LAUNCHER_MPICH, 5, 0, 2);
    version_of("intelmpi-2021.19.txt", BL_LAUNCHER_INTELMPI, 2021, 19, 0);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest ompi5[] = {
        cmocka_unit_test(ompi5_vm_core),
        cmocka_unit_test(ompi5_vm_package),
        cmocka_unit_test(ompi5_vm_none),
        cmocka_unit_test(ompi5_skylake_ppr2_pe4),
        cmocka_unit_test(ompi5_skylake_hwthread),
        cmocka_unit_test(ompi5_skylake_package),
        cmocka_unit_test(ompi5_skylake_pe2_hwthread),
    };
    static const struct CMUnitTest ompi5map[] = {
        cmocka_unit_test(map_vm_core),
        cmocka_unit_test(map_vm_unbound),
        cmocka_unit_test(map_skylake_plan),
        cmocka_unit_test(map_epyc_pe2_hwthread),
        cmocka_unit_test(map_epyc_hwthread),
        cmocka_unit_test(map_epyc_l3),
        cmocka_unit_test(map_epyc_with_rank_lines),
    };
    static const struct CMUnitTest hydra[] = {
        cmocka_unit_test(hydra_vm_core),
        cmocka_unit_test(hydra_vm_socket),
        cmocka_unit_test(hydra_skylake_core),
        cmocka_unit_test(hydra_skylake_socket),
        cmocka_unit_test(hydra_skylake_core2),
        cmocka_unit_test(hydra_skylake_hwthread),
    };
    static const struct CMUnitTest impi[] = {
        cmocka_unit_test(impi_domain_core),
        cmocka_unit_test(impi_domain_socket),
        cmocka_unit_test(impi_processor_list),
        cmocka_unit_test(impi_no_pinning),
        cmocka_unit_test(impi_rejects_broken_rows),
    };
    static const struct CMUnitTest versions[] = {
        cmocka_unit_test(versions_of_real_launchers),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("ompi5", ompi5),
        BL_GROUP("ompi5map", ompi5map),
        BL_GROUP("hydra", hydra),
        BL_GROUP("impi", impi),
        BL_GROUP("versions", versions),
    };
    return bl_run_groups(argc, argv, groups);
}
