/* common/xml_topo_sets.c on a real lstopo XML (an hwloc test topology of
 * 4 packages, offline PUs, 35 objects): whole, it passes; with the
 * complete_cpuset or complete_nodeset of any one object renamed (as the
 * fuzzer's mutation "complete_ccoret" did), the check names that object,
 * and bl_topo_load_xml and bl_topo_load refuse the text with a message
 * instead of handing it to hwloc 2.9, which dies of a null bitmap on it
 * (fuzz_h5_readers found it through report --html). */
#include "bl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bl_test_files.h"
#include "topo.h"
#include "xml_topo_sets.h"

#define TOPO "hwloc-16em64t-4s2c2t-offlines.xml"

static void whole_topology_passes_and_loads(void **state)
{
    char *xml = bl_test_fixture("plan", TOPO), why[160];
    hwloc_topology_t t;
    bl_err err;
    (void)state;
    assert_int_equal(bl_xml_topo_sets_check(xml, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(bl_topo_load_xml(xml, &t, &err), 0);
    assert_int_equal(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE), 4);
    hwloc_topology_destroy(t);
    free(xml);
}

/* The k-th occurrence of attr=" in xml renamed to a same-length name that
 * hwloc ignores; the index of the <object> it sat in, or -1 if none. */
static long rename_nth(char *xml, const char *attr, int k)
{
    char key[64], *p = xml;
    long obj = -1;
    snprintf(key, sizeof key, " %s=\"", attr);
    for (int i = 0; i <= k; i++) {
        if (!(p = strstr(p, key)))
            return -1;
        if (i < k)
            p++;
    }
    for (const char *q = xml; (q = strstr(q, "<object")) && q < p; q++)
        obj++;
    p[strlen(attr)] = 'x'; /* "complete_cpusex": hwloc ignores the name */
    return obj;
}

static void each_missing_complete_set_is_named(void **state)
{
    static const char *const attrs[] = {"complete_cpuset", "complete_nodeset"};
    char *orig = bl_test_fixture("plan", TOPO);
    int tried = 0;
    (void)state;
    for (size_t a = 0; a < 2; a++)
        for (int k = 0;; k++) {
            char *xml = strdup(orig), why[160], want[64];
            hwloc_topology_t t = NULL;
            bl_err err;
            long obj = rename_nth(xml, attrs[a], k);
            if (obj < 0) {
                free(xml);
                break;
            }
            assert_int_equal(bl_xml_topo_sets_check(xml, why, sizeof why), 1);
            snprintf(want, sizeof want, "object %ld (type ", obj);
            assert_non_null(strstr(why, want));
            assert_non_null(strstr(why, attrs[a]));
            assert_int_equal(bl_topo_load_xml(xml, &t, &err), -1);
            assert_null(t);
            assert_non_null(strstr(err.msg, "damaged"));
            free(xml);
            tried++;
        }
    assert_true(tried >= 2 * 35 - 10); /* about every object, each pair */
    free(orig);
}

static void damaged_file_is_refused_with_its_name(void **state)
{
    char *xml = bl_test_fixture("plan", TOPO), path[] = "/tmp/bl-xmlsets-XXXXXX";
    hwloc_topology_t t = NULL;
    bl_err err;
    int fd = mkstemp(path);
    FILE *f;
    (void)state;
    assert_true(fd >= 0);
    assert_true(rename_nth(xml, "complete_cpuset", 0) == 0); /* the Machine */
    f = fdopen(fd, "w");
    fputs(xml, f);
    fclose(f);
    assert_int_equal(bl_topo_load(path, &t, &err), -1);
    assert_null(t);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "object 0 (type \"Machine\"): cpuset "
                                    "without complete_cpuset"));
    assert_non_null(strstr(err.msg, "lstopo --of xml"));
    unlink(path);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_topology_passes_and_loads),
        cmocka_unit_test(each_missing_complete_set_is_named),
        cmocka_unit_test(damaged_file_is_refused_with_its_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
