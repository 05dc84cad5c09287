/* Binding-report parsers on captured and transcribed fixtures
 * (tests/fixtures/bindreport/), plus malformed and truncated lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bindreport/bindreport.h"
#include "cpuset.h"
#include "topo.h"

#include "bl_test_files.h"

/* Parses a fixture (or literal text when name has no '.txt'). */
static void parse(const char *name, const char *topo_spec,
                  bl_report_format fmt, bl_binding_report *r,
                  hwloc_topology_t *topo)
{
    bl_err err;
    char *text = strstr(name, ".txt") ? bl_test_fixture("bindreport", name)
                                      : strdup(name);
    *topo = bl_test_topology(topo_spec);
    assert_int_equal(bl_bindreport_parse(text, fmt, *topo, r, &err), 0);
    free(text);
}

static void done(bl_binding_report *r, hwloc_topology_t topo)
{
    bl_bindreport_free(r);
    hwloc_topology_destroy(topo);
}

static void expect(const bl_binding *b, int rank, int thread,
                   const char *cpus, int bound)
{
    char buf[512];
    bl_cpuset_format_list(b->cpus, buf, sizeof buf);
    assert_int_equal(b->rank, rank);
    assert_int_equal(b->thread, thread);
    assert_string_equal(buf, cpus);
    assert_int_equal(b->bound, bound);
}

/* The reason of the rejected line number `line`, or NULL. */
static const char *rejected(const bl_binding_report *r, int line)
{
    for (size_t i = 0; i < r->nrejected; i++)
        if (r->rejected[i].line == line)
            return r->rejected[i].reason;
    return NULL;
}

static void ompi4_vm_capture_reads_every_rank(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-vm-core.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_OMPI4);
    assert_int_equal(r.count, 4);
    assert_int_equal(r.nrejected, 0);
    expect(&r.items[0], 0, -1, "0", 1);
    expect(&r.items[1], 1, -1, "1", 1);
    expect(&r.items[2], 2, -1, "0", 1);
    expect(&r.items[3], 3, -1, "1", 1);
    assert_string_equal(r.items[0].host, "vm");
    assert_int_equal(r.items[3].line, 3); /* rank 3 printed second */
    done(&r, t);
}

static void ompi4_not_bound_gets_whole_topology(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-vm-notbound.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r,
          &t);
    assert_int_equal(r.count, 2);
    expect(&r.items[0], 0, -1, "0-1", 0);
    expect(&r.items[1], 1, -1, "0-1", 0);
    done(&r, t);
}

/* Skylake numbers PUs 0,2,4.. on package 0 and 36,38.. as their SMT
 * siblings: logical core 1 is PUs 2 and 38, not 2-3. */
static void ompi4_skylake_converts_logical_to_os_indexes(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-skylake-2s.txt", "Intel-Skylake-2xXeon6140.xml",
          BL_REPORT_OMPI4, &r, &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 6);
    expect(&r.items[0], 0, -1, "0,2,4,6,36,38,40,42", 1);
    expect(&r.items[1], 1, -1, "1,3,5,7,37,39,41,43", 1);
    expect(&r.items[2], 10, -1, "0", 1);
    expect(&r.items[3], 11, -1, "2", 1);
    done(&r, t);
}

static void ompi4_epyc_numa_binding(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-epyc7451-numa.txt", "AMD-17h-Zen-2xEpyc-7451.xml",
          BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 4);
    expect(&r.items[1], 1, -1, "6-11,54-59", 1);
    expect(&r.items[3], 3, -1, "18-23,66-71", 1);
    done(&r, t);
}

/* Open MPI cuts the text of this 1600-character line; the map decides. */
static void ompi4_cut_text_is_read_from_the_map(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-zen4-socket-cut.txt", "AMD-19h-Zen4-2xEpyc-9654.xml",
          BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 2);
    expect(&r.items[0], 0, -1, "0-95,192-287", 1);
    expect(&r.items[1], 1, -1, "96-191,288-383", 1);
    done(&r, t);
}

/* On a topology without packages (Group objects under the machine) Open
 * MPI 4.1 draws no map at all: the text is read, and its "socket 0" is
 * the whole machine. Real captures. */
static void ompi4_no_package_reads_the_text(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-groups-nopackage.txt", "group:2 core:2 pu:1",
          BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 2);
    expect(&r.items[0], 0, -1, "0", 1);
    expect(&r.items[1], 1, -1, "1", 1);
    done(&r, t);
    parse("ompi4-numa-groups-nopackage.txt", "numa:2 group:2 core:2 pu:2",
          BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 2);
    expect(&r.items[0], 0, -1, "0-7", 1);
    expect(&r.items[1], 1, -1, "8-15", 1);
    done(&r, t);
}

/* A map with empty brackets (packages whose cores Open MPI's map walk did
 * not find; the map quoted from a report on a topology with Group
 * objects, the line made by hand around it): the complete text decides;
 * a cut text with such a map is still refused. */
static void ompi4_empty_brackets_read_the_text(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("[vm:1] MCW rank 0 bound to socket 0[core 1[hwt 0]]: "
          "[./B/./.][./././.][][][]\n"
          "[vm:1] MCW rank 1 bound to socket 1[core 4[hwt 0]], socket 1[co: "
          "[./././.][B/././.][][][]\n",
          "pack:2 group:2 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 0, -1, "1", 1);
    assert_int_equal(r.nrejected, 1);
    done(&r, t);
}

static void ompi4_rejects_malformed_and_truncated_lines(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-malformed.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r,
          &t);
    assert_int_equal(r.count, 2); /* rank 1 and the unbound rank 7 */
    expect(&r.items[0], 1, -1, "1", 1);
    expect(&r.items[1], 7, -1, "0-1", 0);
    assert_int_equal(r.nrejected, 7);
    assert_non_null(strstr(rejected(&r, 2), "missing ']'"));
    assert_non_null(strstr(rejected(&r, 4), "no ': [B./..]' map"));
    assert_null(rejected(&r, 5)); /* the wrapped "[./B]" alone is no report */
    assert_non_null(strstr(rejected(&r, 6), "the map has 4 PUs"));
    assert_non_null(strstr(rejected(&r, 7), "the text names CPUs 1"));
    assert_non_null(strstr(rejected(&r, 8), "unexpected 'X'"));
    assert_non_null(strstr(rejected(&r, 9), "after rank 6"));
    assert_non_null(strstr(rejected(&r, 10), "no rank number"));
    done(&r, t);
}

static void ompi4_rejects_report_of_another_machine(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-skylake-2s.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r,
          &t);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.nrejected, 6);
    assert_non_null(strstr(r.rejected[0].reason, "72 PUs"));
    done(&r, t);
}

static void ompi5_prrte_docs_examples(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi5-prrte-docs.txt", "pack:2 core:10 pu:8", BL_REPORT_AUTO, &r,
          &t);
    assert_int_equal(r.format, BL_REPORT_OMPI5);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 20);
    expect(&r.items[1], 1, -1, "8-15", 1);      /* core:1, 8 hwts */
    expect(&r.items[5], 11, -1, "80-159", 1);   /* package[1][core:10-19] */
    expect(&r.items[9], 21, -1, "80-95", 1);    /* core:10-11 */
    expect(&r.items[13], 31, -1, "8-9", 1);     /* hwt: are PU indexes */
    expect(&r.items[16], 40, -1, "0-159", 0);
    done(&r, t);
}

static void ompi5_rank_lines_and_two_packages(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi5-issues.txt", "pack:2 core:24 pu:2", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_OMPI5);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 4);
    expect(&r.items[0], 0, -1, "4-5", 1);
    expect(&r.items[2], 7, -1, "26-27", 1);
    expect(&r.items[3], 28, -1, "0-95", 1);
    assert_string_equal(r.items[0].host, "node701.hydra.os");
    done(&r, t);
}

static void ompi5_rejects_core_outside_its_package(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("[n:1] Rank 0 bound to package[1][core:2]\n"
          "[n:1] Rank 1 bound to package[0][core:2-\n"
          "[n:1] Rank 2 bound to package[0][core:2] package[1][core:50]\n"
          "[n:1] Rank 3 bound to package[0][core:3]\n",
          "pack:2 core:24 pu:2", BL_REPORT_OMPI5, &r, &t);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 3, -1, "6-7", 1);
    assert_int_equal(r.nrejected, 3);
    assert_non_null(strstr(rejected(&r, 1), "not in package 1"));
    assert_non_null(rejected(&r, 2));
    assert_non_null(rejected(&r, 3));
    done(&r, t);
}

static void slurm_docs_lines(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("slurm-docs.txt", "pack:2 core:14 pu:2", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_SLURM);
    assert_int_equal(r.nrejected, 0); /* rishon1's repeated line is kept once */
    assert_int_equal(r.count, 9);
    expect(&r.items[2], 2, -1, "0", 1);
    assert_string_equal(r.items[2].host, "aion-0220");
    assert_int_equal(r.items[2].local_rank, 0);
    assert_int_equal(r.items[2].pid, 2549677);
    expect(&r.items[5], 5, -1, "1,3,5,7,9,11,13,15,17,19,21,23,25,27", 1);
    expect(&r.items[6], 6, -1, "0,32", 1);
    expect(&r.items[7], 7, -1, "0-1", 1); /* cpu_bind= spelling */
    expect(&r.items[8], 8, -1, "0-27", 0); /* NONE */
    done(&r, t);
}

static void slurm_rejects_failed_and_truncated_masks(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("slurm-malformed.txt", "pack:2 core:14 pu:2", BL_REPORT_SLURM, &r,
          &t);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 5, -1, "1", 1);
    assert_int_equal(r.nrejected, 5);
    assert_non_null(strstr(rejected(&r, 2), "FAILED"));
    assert_non_null(strstr(rejected(&r, 3), "0 hexadecimal digits"));
    assert_non_null(strstr(rejected(&r, 4), "'g'"));
    assert_non_null(strstr(rejected(&r, 5), "no CPU set"));
    assert_non_null(rejected(&r, 6));
    done(&r, t);
}

static void slurm_rejects_cpu_outside_topology(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("cpu-bind=MASK - n1, task  0  0 [7]: mask 0x100 set\n",
          "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.nrejected, 1);
    assert_non_null(strstr(r.rejected[0].reason, "CPU 8 is not a PU"));
    done(&r, t);
}

static void hydra_bitstrings(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("hydra-mpich.txt", "pack:1 core:16 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_HYDRA);
    assert_int_equal(r.count, 7);
    expect(&r.items[0], 0, -1, "0", 1);
    expect(&r.items[3], 3, -1, "2-4,8", 1);
    expect(&r.items[6], 6, -1, "14-15", 1); /* older spaced form */
    assert_int_equal(r.nrejected, 3);
    assert_non_null(strstr(rejected(&r, 9), "17 positions"));
    assert_non_null(strstr(rejected(&r, 10), "binds no PU"));
    assert_non_null(strstr(rejected(&r, 11), "5 positions"));
    done(&r, t);
}

/* Across nodes mpiexec -l labels each proxy's line with the rank it is
 * about; the index after "process" is the rank's index on its node
 * (lines as MPICH 5.0.2 printed them, -ppn 1 -np 3 on two hosts). */
static void hydra_labelled_lines_name_the_rank(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("[2] process 1 binding: 0100\n[1] process 0 binding: 1000\n"
          "[0] process 0 binding: 1000\n[x] process 0 binding: 1000\n",
          "pack:1 core:4 pu:1", BL_REPORT_HYDRA, &r, &t);
    assert_int_equal(r.count, 3);
    expect(&r.items[0], 0, -1, "0", 1);
    expect(&r.items[1], 1, -1, "0", 1);
    expect(&r.items[2], 2, -1, "1", 1);
    assert_int_equal(r.nrejected, 0);
    done(&r, t);
}

static void omp_libgomp_bindlab_format(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("omp-libgomp-vm.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_OMP_AFFINITY);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 8);
    /* Ranked lines first (rank 0, 1), then the rank-less process. */
    expect(&r.items[0], -1, 0, "0", 1);
    assert_int_equal(r.items[0].pid, 8314);
    expect(&r.items[2], 0, 0, "0", 1);
    expect(&r.items[3], 0, 1, "1", 1);
    expect(&r.items[5], 1, 1, "0", 1);
    expect(&r.items[7], 1, 3, "1", 1);
    assert_string_equal(r.items[7].host, "vm");
    done(&r, t);
}

static void omp_llvm_default_and_bindlab_format(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("omp-llvm-vm.txt", "pack:1 core:2 pu:1", BL_REPORT_OMP_AFFINITY, &r,
          &t);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 6);
    expect(&r.items[0], -1, 0, "0-1", 1);
    expect(&r.items[3], -1, 1, "1", 1);
    assert_int_equal(r.items[3].pid, 8324);
    done(&r, t);
}

static void omp_libgomp_default_is_rejected_not_numbered(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("omp-libgomp-default.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r,
          &t);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.nrejected, 2);
    assert_non_null(strstr(r.rejected[0].reason, BL_OMP_AFFINITY_FORMAT));
    done(&r, t);
}

static void omp_rejects_truncated_and_unknown_fields(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("bindlab-omp host=vm pid=1 thread=0 affinity=0\n"
          "bindlab-omp host=vm pid=1 thread=1 affin\n"
          "bindlab-omp host=vm pid=1 thread=2 affinity=0-\n"
          "bindlab-omp host=vm pid=x thread=3 affinity=0\n"
          "bindlab-omp host=vm pid=1 thread=4 affinity=0 colour=red\n"
          "OMP: pid 5 tid 6 thread 0 bound to OS proc set {0,1\n",
          "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.nrejected, 5);
    for (int line = 2; line <= 6; line++)
        assert_non_null(rejected(&r, line));
    assert_non_null(strstr(rejected(&r, 5), "unknown field 'colour'"));
    done(&r, t);
}

/* A mpirun capture holds both the launcher's and the threads' lines. */
static void auto_reads_omp_lines_beside_the_launcher(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
          "hello from the app\n"
          "bindlab-omp rank=0 host=vm pid=9 thread=1 affinity=1\n"
          "bindlab-omp rank=0 host=vm pid=9 thread=0 affinity=0\n",
          "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_OMPI4);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 3);
    expect(&r.items[0], 0, -1, "0", 1);
    expect(&r.items[1], 0, 0, "0", 1);
    expect(&r.items[2], 0, 1, "1", 1);
    done(&r, t);
}

static void rank_repeated_with_other_cpus_is_rejected(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
          "[vm:1] MCW rank 0 bound to socket 0[core 1[hwt 0]]: [./B]\n"
          "cpu-bind=MASK - vm, task  0  0 [3]: mask 0x1 set\n",
          "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 0, -1, "0", 1);
    assert_int_equal(r.nrejected, 2);
    assert_non_null(strstr(rejected(&r, 2), "reported again"));
    assert_non_null(strstr(rejected(&r, 3), "a slurm line in a ompi4"));
    done(&r, t);
}

/* Two ranks printing at the same moment: both bindings in one line (the
 * second with the same map, so reading the first alone would look fine),
 * and a line whose head went into the line before. Each format's
 * interleaving is refused at its line, and no rank is kept from it. */
static void interleaved_lines_are_rejected_not_half_read(void **state)
{
    static const struct {
        const char *text;
        bl_report_format fmt;
        int line;
    } cases[] = {
        {"[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]"
         "[vm:1] MCW rank 1 bound to socket 0[core 0[hwt 0]]: [B/.]\n",
         BL_REPORT_OMPI4, 1},
        {"[vm:1] MCW rank 0 is not bound (or bound to all available "
         "processors)[vm:1] MCW rank 1 is not bound (or bound to all "
         "available processors)\n", BL_REPORT_OMPI4, 1},
        {"[vm:1] Rank 0 bound to package[0][core:0]"
         "[vm:1] Rank 1 bound to package[0][core:0]\n", BL_REPORT_OMPI5, 1},
        {"[vm:1] MCW rank 2 bound to socket 0[core 1[hwt 0]]: [./B]\n"
         "0 bound to socket 0[core 0[hwt 0]]: [B/.]\n", BL_REPORT_OMPI4, 2},
        {"cpu-bind=MASK - vm, task  0  0 [1]: mask 0x1 set"
         "cpu-bind=MASK - vm, task  1  1 [2]: mask 0x1 set\n",
         BL_REPORT_SLURM, 1},
        {"process 0 binding: 10process 1 binding: 10\n", BL_REPORT_HYDRA, 1},
        {"bindlab-omp rank=0 host=vm pid=1 thread=0 affinity=0"
         "bindlab-omp rank=0 host=vm pid=1 thread=1 affinity=0\n",
         BL_REPORT_OMP_AFFINITY, 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bl_binding_report r;
        hwloc_topology_t t;
        parse(cases[i].text, "pack:1 core:2 pu:1", cases[i].fmt, &r, &t);
        if (!rejected(&r, cases[i].line))
            fail_msg("case %zu: line %d not rejected", i, cases[i].line);
        for (size_t k = 0; k < r.count; k++)
            if (r.items[k].line == cases[i].line)
                fail_msg("case %zu: a binding kept from line %d", i,
                         cases[i].line);
        done(&r, t);
    }
}

static void overlong_line_is_rejected_unread(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    size_t n = BL_BINDREPORT_LINE_MAX + 100;
    char *text = malloc(n + 80);
    (void)state;
    assert_non_null(text);
    strcpy(text, "[vm:1] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n");
    size_t head = strlen(text);
    memset(text + head, ' ', n);
    strcpy(text + head + n - 1, "x\n"); /* also ends the spaces' string */
    parse(text, "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.nrejected, 1);
    assert_int_equal(r.rejected[0].line, 2);
    assert_non_null(strstr(r.rejected[0].reason, "over the 65536 a report "
                                                 "line may have"));
    done(&r, t);
    free(text);
}

static void explicit_format_ignores_other_formats(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi4-vm-core.txt", "pack:1 core:2 pu:1", BL_REPORT_SLURM, &r, &t);
    assert_int_equal(r.format, BL_REPORT_SLURM);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.nrejected, 0);
    done(&r, t);
}

/* The hand-made map (its first line lists the faults): each fault rejected
 * at its own line, the two good records read. Line numbers counted in the
 * file: 8 the cut list, 12 the record's second Binding:, 15 the head that
 * follows rank 2's record without a Binding:, 16 core 7 on a 2-core node,
 * 19 the cut head, 20 rank 5 left without a Binding: at the end. */
static void prrte_map_rejects_each_broken_record(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("ompi5-map-malformed.txt", "pack:1 core:2 pu:1", BL_REPORT_AUTO,
          &r, &t);
    assert_int_equal(r.format, BL_REPORT_PRRTE_MAP);
    assert_int_equal(r.count, 2);
    expect(&r.items[0], 1, -1, "1", 1);
    assert_string_equal(r.items[0].host, "vm");
    assert_int_equal(r.items[0].pid, -1);
    expect(&r.items[1], 4, -1, "0-1", 0);
    assert_int_equal(r.nrejected, 6);
    assert_non_null(strstr(rejected(&r, 8), "bad range"));
    assert_non_null(strstr(rejected(&r, 12), "outside a 'Data for proc'"));
    assert_non_null(strstr(rejected(&r, 15), "rank 2 (line 13) has no "
                                             "'Binding:'"));
    assert_non_null(strstr(rejected(&r, 16), "CPU 7 is not in package 0"));
    assert_non_null(strstr(rejected(&r, 19), "expected 'Data for proc: "
                                             "[JOB,RANK]'"));
    assert_non_null(strstr(rejected(&r, 20), "rank 5 has no 'Binding:'"));
    done(&r, t);
}

/* A map and --report-bindings lines of one launch that disagree: the
 * second claim for rank 0 is rejected, not merged. */
static void prrte_map_and_rank_lines_must_agree(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("Data for node: vm\tState: 3\n"
          "        Data for proc: [prterun-vm-1@1,0]\n"
          "        \tBinding: package[0][core:L0]\n"
          "[vm:1] Rank 0 bound to package[0][core:L1]\n",
          "pack:1 core:2 pu:1", BL_REPORT_AUTO, &r, &t);
    assert_int_equal(r.format, BL_REPORT_PRRTE_MAP);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 0, -1, "0", 1);
    assert_int_equal(r.nrejected, 1);
    assert_non_null(strstr(rejected(&r, 4), "rank 0 reported again"));
    done(&r, t);
}

/* A report of two nodes of different shapes: bl1 one package of 2 cores x
 * 2 PUs (core 1 = PUs 2-3), bl2 two packages of 2 cores x 1 PU (core 1 =
 * PU 1, in package 0). Each line is read with its own node's topology;
 * a host with no record (bl3) with the fallback (bl1's shape). The bracket
 * maps are drawn by hand from those shapes, as Open MPI 4 prints them. */
static void nodes_each_line_read_with_its_nodes_topology(void **state)
{
    static const char text[] =
        "[bl1:6] MCW rank 0 bound to socket 0[core 1[hwt 0-1]]: [../BB]\n"
        "[bl2:7] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B][./.]\n"
        "[bl3:8] MCW rank 2 bound to socket 0[core 0[hwt 0]]: [B./..]\n";
    hwloc_topology_t a = bl_test_topology("pack:1 core:2 pu:2");
    hwloc_topology_t b = bl_test_topology("pack:2 core:2 pu:1");
    const char *hosts[] = {"bl1", "bl2.cluster"};
    const hwloc_topology_t topos[] = {a, b};
    bl_report_topos t = {a, 2, hosts, topos};
    bl_binding_report r;
    bl_err err;
    (void)state;
    assert_int_equal(bl_bindreport_parse_nodes(text, BL_REPORT_AUTO, &t, &r,
                                               &err), 0);
    assert_int_equal(r.nrejected, 0);
    assert_int_equal(r.count, 3);
    expect(&r.items[0], 0, -1, "2-3", 1);
    assert_int_equal(r.items[0].node, 0);
    expect(&r.items[1], 1, -1, "1", 1);
    assert_int_equal(r.items[1].node, 1);
    expect(&r.items[2], 2, -1, "0", 1);
    assert_int_equal(r.items[2].node, -1);
    bl_bindreport_free(&r);
    /* with bl1's topology for every line, bl2's does not fit and is
     * rejected, not misread */
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, a, &r, &err),
                     0);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.nrejected, 1);
    assert_int_equal(r.rejected[0].line, 2);
    bl_bindreport_free(&r);
    /* Slurm names the node too: CPU 3 of bl2 is core 3 of package 1 */
    assert_int_equal(bl_bindreport_parse_nodes(
                         "cpu-bind=MASK - bl2, task  1  0 [7]: mask 0x8 set\n",
                         BL_REPORT_AUTO, &t, &r, &err), 0);
    assert_int_equal(r.count, 1);
    expect(&r.items[0], 1, -1, "3", 1);
    assert_int_equal(r.items[0].node, 1);
    bl_bindreport_free(&r);
    hwloc_topology_destroy(a);
    hwloc_topology_destroy(b);
}

static void format_names_round_trip(void **state)
{
    bl_report_format f;
    bl_err err;
    (void)state;
    for (int i = BL_REPORT_AUTO; i <= BL_REPORT_PRRTE_MAP; i++) {
        assert_int_equal(bl_bindreport_format_parse(
                             bl_bindreport_format_name((bl_report_format)i),
                             &f, &err), 0);
        assert_int_equal(f, i);
    }
    assert_int_equal(bl_bindreport_format_parse("mpich", &f, &err), -1);
    assert_non_null(strstr(err.msg, "'mpich'"));
    assert_non_null(strstr(err.msg, "hydra"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ompi4_vm_capture_reads_every_rank),
        cmocka_unit_test(ompi4_not_bound_gets_whole_topology),
        cmocka_unit_test(ompi4_skylake_converts_logical_to_os_indexes),
        cmocka_unit_test(ompi4_epyc_numa_binding),
        cmocka_unit_test(ompi4_cut_text_is_read_from_the_map),
        cmocka_unit_test(ompi4_no_package_reads_the_text),
        cmocka_unit_test(ompi4_empty_brackets_read_the_text),
        cmocka_unit_test(ompi4_rejects_malformed_and_truncated_lines),
        cmocka_unit_test(ompi4_rejects_report_of_another_machine),
        cmocka_unit_test(ompi5_prrte_docs_examples),
        cmocka_unit_test(ompi5_rank_lines_and_two_packages),
        cmocka_unit_test(ompi5_rejects_core_outside_its_package),
        cmocka_unit_test(slurm_docs_lines),
        cmocka_unit_test(slurm_rejects_failed_and_truncated_masks),
        cmocka_unit_test(slurm_rejects_cpu_outside_topology),
        cmocka_unit_test(hydra_bitstrings),
        cmocka_unit_test(hydra_labelled_lines_name_the_rank),
        cmocka_unit_test(omp_libgomp_bindlab_format),
        cmocka_unit_test(omp_llvm_default_and_bindlab_format),
        cmocka_unit_test(omp_libgomp_default_is_rejected_not_numbered),
        cmocka_unit_test(omp_rejects_truncated_and_unknown_fields),
        cmocka_unit_test(auto_reads_omp_lines_beside_the_launcher),
        cmocka_unit_test(rank_repeated_with_other_cpus_is_rejected),
        cmocka_unit_test(interleaved_lines_are_rejected_not_half_read),
        cmocka_unit_test(overlong_line_is_rejected_unread),
        cmocka_unit_test(explicit_format_ignores_other_formats),
        cmocka_unit_test(prrte_map_rejects_each_broken_record),
        cmocka_unit_test(prrte_map_and_rank_lines_must_agree),
        cmocka_unit_test(nodes_each_line_read_with_its_nodes_topology),
        cmocka_unit_test(format_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
