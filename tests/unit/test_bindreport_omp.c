/* The OpenMP runtimes' placement lines (harness/bindreport/bindreport_omp.c)
 * on real captures of libgomp, LLVM libomp and Intel's runtime
 * (tests/fixtures/omp/): OMP_DISPLAY_AFFINITY's default formats and
 * KMP_AFFINITY=verbose, with the topology lines and warnings around them
 * passed over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bindreport/bindreport.h"
#include "cpuset.h"
#include "topo.h"

#include "bl_test_files.h"

static void parse(const char *name, bl_binding_report *r, hwloc_topology_t *topo)
{
    bl_err err;
    char *text = strstr(name, ".txt") ? bl_test_fixture("omp", name) : strdup(name);
    *topo = bl_test_topology("pack:1 core:2 pu:1");
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, *topo, r, &err), 0);
    free(text);
}

/* "thread:cpus thread:cpus ..." of the report, in its order. */
static void expect_threads(const bl_binding_report *r, const char *want)
{
    char got[512] = "", set[64];
    for (size_t i = 0; i < r->count; i++) {
        bl_cpuset_format_list(r->items[i].cpus, set, sizeof set);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d:%s",
                 i ? " " : "", r->items[i].thread, set);
    }
    assert_string_equal(got, want);
}

static void check(const char *name, const char *want)
{
    bl_binding_report r;
    hwloc_topology_t t;
    parse(name, &r, &t);
    assert_int_equal(r.format, BL_REPORT_OMP_AFFINITY);
    assert_int_equal(r.nrejected, 0);
    expect_threads(&r, want);
    for (size_t i = 0; i < r.count; i++)
        assert_true(r.items[i].pid > 0 && r.items[i].bound);
    bl_bindreport_free(&r);
    hwloc_topology_destroy(t);
}

/* Intel's default format is LLVM's: "OMP: pid P tid T thread N bound to
 * OS proc set {LIST}"; scatter over 2 cores, 3 threads. */
static void display_default_formats(void **state)
{
    (void)state;
    check("display-intel.txt", "0:0 1:1 2:0");
    check("display-libomp.txt", "0:0 1:1 2:0");
    /* libgomp pinned the initial thread first: libomp sees one CPU */
    check("display-libomp-two-runtimes.txt", "0:0 1:0 2:0");
}

/* "OMP: Info #255: KMP_AFFINITY: pid P tid T thread N bound to OS proc set
 * LIST" (Intel 2026; #254 in libomp 14, whose N is the global thread id,
 * 9, 10, ... after eight hidden helper threads, except in balanced's). */
static void kmp_verbose_lines(void **state)
{
    (void)state;
    check("kmp-intel-compact.txt", "0:0 1:1 2:0");
    check("kmp-intel-scatter-fine.txt", "0:0 1:1 2:0 3:1");
    check("kmp-intel-balanced-core.txt", "0:0 1:0 2:1");
    check("kmp-intel-explicit-invalid.txt", "0:1 1:0 2:1");
    check("kmp-intel-hw-subset.txt", "0:0 1:0");
    check("kmp-libomp-compact.txt", "0:0 9:1 10:0");
    /* balanced's own message prints the OpenMP thread number */
    check("kmp-libomp-balanced-core.txt", "0:0 1:0 2:1");
    check("kmp-libomp-explicit-invalid.txt", "0:1 9:0 10:1");
}

static void verbose_lines_cut_or_wrong_are_rejected(void **state)
{
    bl_binding_report r;
    hwloc_topology_t t;
    (void)state;
    parse("OMP: Info #255: KMP_AFFINITY: pid 5 tid 5 thread 0 bound to OS proc set 0\n"
          "OMP: Info #255: KMP_AFFINITY: pid 5 tid 6 thread 1 bound to OS proc set\n"
          "OMP: Info #255: KMP_AFFINITY: pid 5 tid 7 thread 2 bound to OS proc set 9\n"
          "OMP: Info #255: OMP_PROC_BIND: pid 5 tid x thread 3 bound to OS proc set 1\n"
          "OMP: Info #155: KMP_AFFINITY: Initial OS proc set respected: 0,1\n"
          "OMP: Info #255: KMP_AFFINITY: pid 5 tid 8 thread 4 bound to OS proc set 0-1\n",
          &r, &t);
    assert_int_equal(r.count, 2);
    expect_threads(&r, "0:0 4:0-1");
    assert_int_equal(r.nrejected, 3);
    assert_int_equal(r.rejected[0].line, 2);
    assert_non_null(strstr(r.rejected[0].reason, "OMP: Info #N: VAR: pid"));
    assert_non_null(strstr(r.rejected[1].reason, "CPU 9"));
    assert_int_equal(r.rejected[2].line, 4);
    bl_bindreport_free(&r);
    hwloc_topology_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(display_default_formats),
        cmocka_unit_test(kmp_verbose_lines),
        cmocka_unit_test(verbose_lines_cut_or_wrong_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
