/* The OpenMP places model: OMP_PLACES parsing and ordering, OMP_PROC_BIND,
 * the close/spread/primary team algorithm (against the OpenMP examples
 * document's own cases), and one rank's rows in a plan. The same model is
 * checked against the real libgomp by tests/integration/
 * test_omp_places_libgomp.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "plan/plan_omp.h"

static hwloc_topology_t synthetic(const char *desc)
{
    hwloc_topology_t t;
    assert_int_equal(hwloc_topology_init(&t), 0);
    assert_int_equal(hwloc_topology_set_synthetic(t, desc), 0);
    assert_int_equal(hwloc_topology_load(t), 0);
    return t;
}

static hwloc_bitmap_t set_of(const char *list)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_err err;
    assert_int_equal(bl_cpuset_parse_list(list, s, &err), 0);
    return s;
}

/* The places as "0-1;2-3;..." for one comparison. */
static char *places_text(hwloc_topology_t topo, const char *rank, const char *omp_places)
{
    static char out[2048];
    hwloc_bitmap_t mask = set_of(rank), *pl;
    int n;
    bl_err err;
    int rc = bl_omp_places(topo, mask, omp_places, &pl, &n, &err);
    if (rc < 0)
        fail_msg("bl_omp_places('%s'): %s", omp_places, err.msg);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char buf[256];
        bl_cpuset_format_list(pl[i], buf, sizeof buf);
        strcat(out, i ? ";" : "");
        strcat(out, buf);
    }
    bl_omp_places_free(pl, n);
    hwloc_bitmap_free(mask);
    return out;
}

static void places_error(hwloc_topology_t topo, const char *omp_places,
                         const char *needle1, const char *needle2)
{
    hwloc_bitmap_t mask = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo)), *pl;
    int n = 7;
    bl_err err = {""};
    assert_int_equal(bl_omp_places(topo, mask, omp_places, &pl, &n, &err), -1);
    assert_null(pl);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, needle1) || !strstr(err.msg, needle2))
        fail_msg("'%s': message '%s' lacks '%s' or '%s'", omp_places, err.msg, needle1, needle2);
    hwloc_bitmap_free(mask);
}

/* ---- the OpenMP examples document -------------------------------------
 * OpenMP Application Programming Interface Examples (5.x), section
 * "proc_bind Clause" (source: github.com/OpenMP/Examples,
 * affinity/affinity.tex, examples affinity.1 to affinity.5): a machine of
 * 2 sockets x 4 cores x 2 hardware threads, eight places p0..p7 given as
 * OMP_PLACES="{0,1},{2,3},...,{14,15}" or "{0:2}:8:2", and each example
 * with the primary thread first on p0, then on p2. */

typedef struct expect {
    int place, off, len;
} expect;

static void check_team(bl_omp_bind bind, int T, int parent, const expect *want)
{
    bl_omp_slot got[16];
    bl_err err;
    /* T <= P or P | T in every example, where the specification's reading
     * and libgomp's agree: both must give the document's answer. */
    for (int f = 0; f < 2; f++) {
        assert_int_equal(bl_omp_team(bind, f ? BL_OMP_LIBGOMP : BL_OMP_SPEC, T,
                                     parent, 0, 8, got, &err), 0);
        for (int i = 0; i < T; i++) {
            if (got[i].place != want[i].place || got[i].part_off != want[i].off ||
                got[i].part_len != want[i].len)
                fail_msg("thread %d: p%d partition %d+%d, expected p%d partition %d+%d",
                         i, got[i].place, got[i].part_off, got[i].part_len,
                         want[i].place, want[i].off, want[i].len);
        }
    }
}

static void spec_example_places_both_spellings_give_eight_places(void **state)
{
    hwloc_topology_t t = synthetic("pack:2 core:4 pu:2");
    const char *want = "0-1;2-3;4-5;6-7;8-9;10-11;12-13;14-15";
    (void)state;
    assert_string_equal(places_text(t, "0-15", "{0,1},{2,3},{4,5},{6,7},{8,9},{10,11},"
                                               "{12,13},{14,15}"), want);
    assert_string_equal(places_text(t, "0-15", "{0:2}:8:2"), want);
    hwloc_topology_destroy(t);
}

/* affinity.1: spread, 4 threads, 8 places: first place of each
 * two-place subpartition. */
static void spec_example_spread_four_threads_over_eight_places(void **state)
{
    static const expect from_p0[] = {{0, 0, 2}, {2, 2, 2}, {4, 4, 2}, {6, 6, 2}};
    static const expect from_p2[] = {{2, 2, 2}, {4, 4, 2}, {6, 6, 2}, {0, 0, 2}};
    (void)state;
    check_team(BL_OMP_BIND_SPREAD, 4, 0, from_p0);
    check_team(BL_OMP_BIND_SPREAD, 4, 2, from_p2);
}

/* affinity.2: spread, 16 threads, 8 places: two consecutive threads per
 * place, each place its own subpartition. */
static void spec_example_spread_sixteen_threads_over_eight_places(void **state)
{
    /* Written out from the example's text, not computed. */
    static const expect from_p0[] = {
        {0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {1, 1, 1}, {2, 2, 1}, {2, 2, 1},
        {3, 3, 1}, {3, 3, 1}, {4, 4, 1}, {4, 4, 1}, {5, 5, 1}, {5, 5, 1},
        {6, 6, 1}, {6, 6, 1}, {7, 7, 1}, {7, 7, 1}};
    static const expect from_p2[] = {
        {2, 2, 1}, {2, 2, 1}, {3, 3, 1}, {3, 3, 1}, {4, 4, 1}, {4, 4, 1},
        {5, 5, 1}, {5, 5, 1}, {6, 6, 1}, {6, 6, 1}, {7, 7, 1}, {7, 7, 1},
        {0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {1, 1, 1}};
    (void)state;
    check_team(BL_OMP_BIND_SPREAD, 16, 0, from_p0);
    check_team(BL_OMP_BIND_SPREAD, 16, 2, from_p2);
}

/* affinity.3: close, 4 threads, 8 places: consecutive places, the
 * partition p0-p7 unchanged. */
static void spec_example_close_four_threads_over_eight_places(void **state)
{
    static const expect from_p0[] = {{0, 0, 8}, {1, 0, 8}, {2, 0, 8}, {3, 0, 8}};
    static const expect from_p2[] = {{2, 0, 8}, {3, 0, 8}, {4, 0, 8}, {5, 0, 8}};
    (void)state;
    check_team(BL_OMP_BIND_CLOSE, 4, 0, from_p0);
    check_team(BL_OMP_BIND_CLOSE, 4, 2, from_p2);
}

/* affinity.4: close, 16 threads, 8 places: threads 2k,2k+1 on the k-th
 * place from the primary's, with wrap around (12,13 on p0 from p2). */
static void spec_example_close_sixteen_threads_over_eight_places(void **state)
{
    /* Written out from the example's text, not computed. */
    static const expect from_p0[] = {
        {0, 0, 8}, {0, 0, 8}, {1, 0, 8}, {1, 0, 8}, {2, 0, 8}, {2, 0, 8},
        {3, 0, 8}, {3, 0, 8}, {4, 0, 8}, {4, 0, 8}, {5, 0, 8}, {5, 0, 8},
        {6, 0, 8}, {6, 0, 8}, {7, 0, 8}, {7, 0, 8}};
    static const expect from_p2[] = {
        {2, 0, 8}, {2, 0, 8}, {3, 0, 8}, {3, 0, 8}, {4, 0, 8}, {4, 0, 8},
        {5, 0, 8}, {5, 0, 8}, {6, 0, 8}, {6, 0, 8}, {7, 0, 8}, {7, 0, 8},
        {0, 0, 8}, {0, 0, 8}, {1, 0, 8}, {1, 0, 8}};
    (void)state;
    check_team(BL_OMP_BIND_CLOSE, 16, 0, from_p0);
    check_team(BL_OMP_BIND_CLOSE, 16, 2, from_p2);
}

/* affinity.5: primary, 4 threads: all on the primary's place. */
static void spec_example_primary_keeps_all_threads_on_the_primary_place(void **state)
{
    static const expect from_p0[] = {{0, 0, 8}, {0, 0, 8}, {0, 0, 8}, {0, 0, 8}};
    static const expect from_p2[] = {{2, 0, 8}, {2, 0, 8}, {2, 0, 8}, {2, 0, 8}};
    (void)state;
    check_team(BL_OMP_BIND_PRIMARY, 4, 0, from_p0);
    check_team(BL_OMP_BIND_PRIMARY, 4, 2, from_p2);
}

/* A nested close team inside a spread subpartition stays inside it: the
 * examples' "place partition p2,p3" of thread 1 above. */
static void spread_subpartition_bounds_a_nested_close_team(void **state)
{
    bl_omp_slot outer[4], inner[3];
    bl_err err;
    (void)state;
    assert_int_equal(bl_omp_team(BL_OMP_BIND_SPREAD, BL_OMP_LIBGOMP, 4, 0, 0, 8, outer, &err), 0);
    assert_int_equal(bl_omp_team(BL_OMP_BIND_CLOSE, BL_OMP_LIBGOMP, 3, outer[1].place,
                                 outer[1].part_off, outer[1].part_len, inner, &err), 0);
    assert_int_equal(inner[0].place, 2);
    assert_int_equal(inner[1].place, 3);
    assert_int_equal(inner[2].place, 2); /* wraps inside p2,p3 */
}

/* ---- where the specification leaves room ------------------------------ */

static void close_more_threads_than_places_libgomp_deals_the_extra_ones_last(void **state)
{
    bl_omp_slot s[7];
    bl_err err;
    static const int spec[] = {0, 0, 0, 1, 1}, gomp[] = {0, 0, 1, 1, 0};
    (void)state;
    assert_int_equal(bl_omp_team(BL_OMP_BIND_CLOSE, BL_OMP_SPEC, 5, 0, 0, 2, s, &err), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(s[i].place, spec[i]);
    assert_int_equal(bl_omp_team(BL_OMP_BIND_CLOSE, BL_OMP_LIBGOMP, 5, 0, 0, 2, s, &err), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(s[i].place, gomp[i]);
    /* 7 threads on 3 places from place 1: libgomp 1,1,2,2,0,0 then 1. */
    static const int gomp7[] = {1, 1, 2, 2, 0, 0, 1}, spec7[] = {1, 1, 1, 2, 2, 0, 0};
    assert_int_equal(bl_omp_team(BL_OMP_BIND_SPREAD, BL_OMP_LIBGOMP, 7, 1, 0, 3, s, &err), 0);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(s[i].place, gomp7[i]);
        assert_int_equal(s[i].part_off, gomp7[i]);
        assert_int_equal(s[i].part_len, 1);
    }
    assert_int_equal(bl_omp_team(BL_OMP_BIND_TRUE, BL_OMP_SPEC, 7, 1, 0, 3, s, &err), 0);
    for (int i = 0; i < 7; i++)
        assert_int_equal(s[i].place, spec7[i]);
}

static void spread_uneven_subpartitions_put_the_larger_ones_first(void **state)
{
    bl_omp_slot s[3];
    bl_err err;
    (void)state;
    /* 5 places, 2 threads: subpartitions p0-p2 and p3-p4. */
    assert_int_equal(bl_omp_team(BL_OMP_BIND_SPREAD, BL_OMP_LIBGOMP, 2, 0, 0, 5, s, &err), 0);
    assert_int_equal(s[0].place, 0);
    assert_int_equal(s[0].part_len, 3);
    assert_int_equal(s[1].place, 3);
    assert_int_equal(s[1].part_off, 3);
    assert_int_equal(s[1].part_len, 2);
    /* The primary on p1 keeps p1 in the first subpartition. */
    assert_int_equal(bl_omp_team(BL_OMP_BIND_SPREAD, BL_OMP_LIBGOMP, 2, 1, 0, 5, s, &err), 0);
    assert_int_equal(s[0].place, 1);
    assert_int_equal(s[0].part_off, 0);
    assert_int_equal(s[1].place, 3);
    /* On p4 it is in the second; the next thread wraps to p0. */
    assert_int_equal(bl_omp_team(BL_OMP_BIND_SPREAD, BL_OMP_LIBGOMP, 3, 4, 0, 5, s, &err), 0);
    assert_int_equal(s[0].place, 4); /* subpartitions p0-1, p2-3, p4 */
    assert_int_equal(s[0].part_off, 4);
    assert_int_equal(s[0].part_len, 1);
    assert_int_equal(s[1].place, 0);
    assert_int_equal(s[2].place, 2);
}

static void team_rejects_parent_outside_partition(void **state)
{
    bl_omp_slot s[2];
    bl_err err;
    (void)state;
    assert_int_equal(bl_omp_team(BL_OMP_BIND_CLOSE, BL_OMP_SPEC, 2, 5, 0, 4, s, &err), -1);
    assert_non_null(strstr(err.msg, "place 5"));
    assert_int_equal(bl_omp_team(BL_OMP_BIND_FALSE, BL_OMP_SPEC, 2, 0, 0, 4, s, &err), -1);
}

/* ---- OMP_PLACES -------------------------------------------------------- */

static void places_abstract_names_follow_the_topology(void **state)
{
    hwloc_topology_t t = synthetic("pack:2 l3:2 core:2 pu:2");
    (void)state;
    assert_string_equal(places_text(t, "0-15", "cores"),
                        "0-1;2-3;4-5;6-7;8-9;10-11;12-13;14-15");
    assert_string_equal(places_text(t, "0-15", "sockets"), "0-7;8-15");
    assert_string_equal(places_text(t, "0-15", "ll_caches"), "0-3;4-7;8-11;12-15");
    assert_string_equal(places_text(t, "0-15", "numa_domains"), "0-15");
    assert_string_equal(places_text(t, "0-3", "threads"), "0;1;2;3");
    assert_string_equal(places_text(t, "0-15", "cores(3)"), "0-1;2-3;4-5");
    assert_string_equal(places_text(t, "0-15", "  Sockets ( 1 ) "), "0-7");
    /* unset: one place per PU */
    assert_string_equal(places_text(t, "4-6", NULL), "4;5;6");
    assert_string_equal(places_text(t, "4-6", ""), "4;5;6");
    hwloc_topology_destroy(t);
}

static void places_threads_go_core_by_core_not_by_number(void **state)
{
    /* PU numbers interleaved as on many Intel nodes: core 0 = {0,4}. */
    hwloc_topology_t t = synthetic("pack:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
    (void)state;
    assert_string_equal(places_text(t, "0-7", "threads"), "0;4;1;5;2;6;3;7");
    assert_string_equal(places_text(t, "0-7", "cores"), "0,4;1,5;2,6;3,7");
    assert_string_equal(places_text(t, "0-7", "sockets"), "0-1,4-5;2-3,6-7");
    hwloc_topology_destroy(t);
}

static void places_numa_domains_come_in_node_number_order(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 numa:2(indexes=1,0) core:2 pu:1");
    (void)state;
    assert_string_equal(places_text(t, "0-3", "numa_domains"), "2-3;0-1");
    hwloc_topology_destroy(t);
}

static void places_are_cut_to_the_rank_cpuset(void **state)
{
    hwloc_topology_t t = synthetic("pack:2 l3:2 core:2 pu:2");
    (void)state;
    assert_string_equal(places_text(t, "3-9", "cores"), "3;4-5;6-7;8-9");
    assert_string_equal(places_text(t, "3-9", "sockets"), "3-7;8-9");
    /* explicit places: cut, and the empty ones dropped */
    assert_string_equal(places_text(t, "2-5", "{0:2},{2:2},{4:4},{8}"), "2-3;4-5");
    /* none left: no places (libgomp then ignores OMP_PLACES) */
    assert_string_equal(places_text(t, "2-5", "{8:4}"), "");
    hwloc_topology_destroy(t);
}

static void places_explicit_lists_strides_intervals_and_exclusions(void **state)
{
    hwloc_topology_t t = synthetic("pack:2 core:8 pu:1");
    (void)state;
    assert_string_equal(places_text(t, "0-15", "{0:4},{4:4}"), "0-3;4-7");
    assert_string_equal(places_text(t, "0-15", "{0,1,2,3}"), "0-3");
    assert_string_equal(places_text(t, "0-15", "{0:4:2}"), "0,2,4,6");
    assert_string_equal(places_text(t, "0-15", "{0:4}:2:8"), "0-3;8-11");
    assert_string_equal(places_text(t, "0-15", "{0}:4"), "0;1;2;3");
    assert_string_equal(places_text(t, "0-15", "{7:3:-2}"), "3,5,7");
    assert_string_equal(places_text(t, "0-15", "1,3:2:4"), "1;3;7");
    assert_string_equal(places_text(t, "0-15", " { 0 : 4 , !2 } , { 4 } "), "0-1,3;4");
    assert_string_equal(places_text(t, "0-15", "{0},{1},{2},!{1}"), "0;2");
    /* a place named twice is two places */
    assert_string_equal(places_text(t, "0-15", "{0},{1},{0}"), "0;1;0");
    hwloc_topology_destroy(t);
}

static void places_reject_unknown_names_and_bad_lists(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 core:4 pu:1");
    (void)state;
    places_error(t, "corez", "'corez'", "threads, cores, ll_caches, numa_domains or sockets");
    places_error(t, "hwthreads", "unknown name", "{0:4},{4:4}");
    places_error(t, "cores(0)", "'cores(0)'", "at least 1");
    places_error(t, "cores(2", "expected ')'", "accepted");
    places_error(t, "cores x", "unexpected text", "character 7");
    places_error(t, "{0:4", "'{0:4'", "expected ',' or '}'");
    places_error(t, "{0:0}", "count must be at least 1", "'{0:0}'");
    places_error(t, "{a}", "expected a CPU number", "character 2");
    places_error(t, "{0},,{1}", "expected '{' or a CPU number", "character 5");
    places_error(t, "{0,!5}", "CPU 5 is excluded", "not in its place");
    places_error(t, "{0},!{3}", "excluded place {3}", "not in the list");
    places_error(t, "{!1:2}", "takes no count", "'{!1:2}'");
    places_error(t, "{70000}", "CPU 70000", "out of range");
    places_error(t, "{1:2:-2}", "CPU -1", "out of range");
    places_error(t, "{0}:70000", "more than 65536 places", "'{0}:70000'");
    hwloc_topology_destroy(t);
}

/* ---- OMP_PROC_BIND ----------------------------------------------------- */

static void bind_parses_first_level_of_a_list(void **state)
{
    bl_omp_bind b;
    bl_err err;
    (void)state;
    static const struct {
        const char *text;
        bl_omp_bind want;
    } ok[] = {{NULL, BL_OMP_BIND_UNSET},   {"", BL_OMP_BIND_UNSET},
              {"false", BL_OMP_BIND_FALSE}, {" TRUE ", BL_OMP_BIND_TRUE},
              {"primary", BL_OMP_BIND_PRIMARY}, {"master", BL_OMP_BIND_PRIMARY},
              {"close", BL_OMP_BIND_CLOSE}, {"Spread", BL_OMP_BIND_SPREAD},
              {"spread, close", BL_OMP_BIND_SPREAD}, {"close,spread,master", BL_OMP_BIND_CLOSE}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(bl_omp_parse_bind(ok[i].text, &b, &err), 0);
        assert_int_equal(b, ok[i].want);
    }
    static const char *const bad[] = {"yes", "spread,", "true,close", "close,false", "closer", "spread;close"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bl_omp_parse_bind(bad[i], &b, &err), -1);
        assert_non_null(strstr(err.msg, bad[i]));
        assert_non_null(strstr(err.msg, "false, true, primary, master, close or spread"));
    }
}

/* ---- one rank in a plan ------------------------------------------------ */

static void assign_check(const bl_plan *p, size_t row, int rank, int thread, int place,
                         const char *pus)
{
    char buf[256];
    assert_true(row < p->nthreads);
    assert_int_equal(p->threads[row].rank, rank);
    assert_int_equal(p->threads[row].thread, thread);
    assert_int_equal(p->threads[row].place, place);
    bl_cpuset_format_list(p->threads[row].pus, buf, sizeof buf);
    assert_string_equal(buf, pus);
}

static void assign_spread_cores_appends_rows_for_each_rank(void **state)
{
    hwloc_topology_t t = synthetic("pack:2 l3:2 core:2 pu:2");
    hwloc_bitmap_t r0 = set_of("0-7"), r1 = set_of("8-15");
    bl_plan p;
    bl_err err;
    (void)state;
    memset(&p, 0, sizeof p);
    assert_int_equal(bl_omp_assign(t, 0, r0, "cores", "spread", 2, &p, &err), 0);
    assert_int_equal(bl_omp_assign(t, 1, r1, "cores", "spread", 2, &p, &err), 0);
    assert_string_equal(p.runtime, "libgomp");
    assert_int_equal(p.nthreads, 4);
    assign_check(&p, 0, 0, 0, 0, "0-1");
    assign_check(&p, 1, 0, 1, 2, "4-5");
    assign_check(&p, 2, 1, 0, 0, "8-9");
    assign_check(&p, 3, 1, 1, 2, "12-13");
    bl_plan_free(&p);
    hwloc_bitmap_free(r0);
    hwloc_bitmap_free(r1);
    hwloc_topology_destroy(t);
}

static void assign_unbound_cases_give_the_rank_cpuset_and_no_place(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 core:4 pu:1");
    hwloc_bitmap_t r = set_of("1-2");
    bl_plan p;
    bl_err err;
    (void)state;
    memset(&p, 0, sizeof p);
    /* both unset, false, and OMP_PLACES naming none of the rank's CPUs */
    assert_int_equal(bl_omp_assign(t, 0, r, NULL, NULL, 2, &p, &err), 0);
    assert_int_equal(bl_omp_assign(t, 1, r, "cores", "false", 1, &p, &err), 0);
    assert_int_equal(bl_omp_assign(t, 2, r, "{3}", NULL, 1, &p, &err), 0);
    assign_check(&p, 0, 0, 0, -1, "1-2");
    assign_check(&p, 1, 0, 1, -1, "1-2");
    assign_check(&p, 2, 1, 0, -1, "1-2");
    assign_check(&p, 3, 2, 0, -1, "1-2");
    bl_plan_free(&p);
    hwloc_bitmap_free(r);
    hwloc_topology_destroy(t);
}

static void assign_places_alone_bind_like_true_and_bind_alone_uses_threads(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 core:2 pu:2");
    hwloc_bitmap_t r = set_of("0-3");
    bl_plan p;
    bl_err err;
    (void)state;
    memset(&p, 0, sizeof p);
    /* OMP_PLACES=cores alone: libgomp binds (close), 3 threads on 2 places */
    assert_int_equal(bl_omp_assign(t, 0, r, "cores", NULL, 3, &p, &err), 0);
    assign_check(&p, 0, 0, 0, 0, "0-1");
    assign_check(&p, 1, 0, 1, 1, "2-3");
    assign_check(&p, 2, 0, 2, 0, "0-1");
    /* OMP_PROC_BIND=close alone: one place per PU */
    assert_int_equal(bl_omp_assign(t, 1, r, "", "close", 2, &p, &err), 0);
    assign_check(&p, 3, 1, 0, 0, "0");
    assign_check(&p, 4, 1, 1, 1, "1");
    /* explicit places naming no CPU of the rank, binding asked: defaults */
    assert_int_equal(bl_omp_assign(t, 2, r, "{9}", "primary", 2, &p, &err), 0);
    assign_check(&p, 6, 2, 1, 0, "0");
    bl_plan_free(&p);
    hwloc_bitmap_free(r);
    hwloc_topology_destroy(t);
}

static void assign_more_threads_than_places_follows_libgomp(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 core:2 pu:1");
    hwloc_bitmap_t r = set_of("0-1");
    bl_plan p;
    bl_err err;
    static const int want[] = {0, 0, 1, 1, 0};
    (void)state;
    memset(&p, 0, sizeof p);
    assert_int_equal(bl_omp_assign(t, 0, r, "cores", "close", 5, &p, &err), 0);
    for (int i = 0; i < 5; i++)
        assign_check(&p, (size_t)i, 0, i, want[i], want[i] ? "1" : "0");
    bl_plan_free(&p);
    hwloc_bitmap_free(r);
    hwloc_topology_destroy(t);
}

static void assign_errors_leave_the_plan_unchanged(void **state)
{
    hwloc_topology_t t = synthetic("pack:1 core:2 pu:1");
    hwloc_bitmap_t r = set_of("0-1"), empty = hwloc_bitmap_alloc();
    bl_plan p;
    bl_err err;
    (void)state;
    memset(&p, 0, sizeof p);
    assert_int_equal(bl_omp_assign(t, 0, r, "cores", "close", 1, &p, &err), 0);
    assert_int_equal(bl_omp_assign(t, 1, r, "sockets_", "close", 2, &p, &err), -1);
    assert_non_null(strstr(err.msg, "'sockets_'"));
    assert_int_equal(bl_omp_assign(t, 1, r, "cores", "sideways", 2, &p, &err), -1);
    assert_non_null(strstr(err.msg, "'sideways'"));
    /* a bad OMP_PLACES is an error even when OMP_PROC_BIND=false */
    assert_int_equal(bl_omp_assign(t, 1, r, "{0", "false", 2, &p, &err), -1);
    assert_int_equal(bl_omp_assign(t, 1, r, "cores", "close", 0, &p, &err), -1);
    assert_non_null(strstr(err.msg, "1 or more"));
    assert_int_equal(bl_omp_assign(t, 1, empty, "cores", "close", 2, &p, &err), -1);
    assert_non_null(strstr(err.msg, "empty cpuset"));
    assert_int_equal(p.nthreads, 1);
    bl_plan_free(&p);
    hwloc_bitmap_free(r);
    hwloc_bitmap_free(empty);
    hwloc_topology_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_example_places_both_spellings_give_eight_places),
        cmocka_unit_test(spec_example_spread_four_threads_over_eight_places),
        cmocka_unit_test(spec_example_spread_sixteen_threads_over_eight_places),
        cmocka_unit_test(spec_example_close_four_threads_over_eight_places),
        cmocka_unit_test(spec_example_close_sixteen_threads_over_eight_places),
        cmocka_unit_test(spec_example_primary_keeps_all_threads_on_the_primary_place),
        cmocka_unit_test(spread_subpartition_bounds_a_nested_close_team),
        cmocka_unit_test(close_more_threads_than_places_libgomp_deals_the_extra_ones_last),
        cmocka_unit_test(spread_uneven_subpartitions_put_the_larger_ones_first),
        cmocka_unit_test(team_rejects_parent_outside_partition),
        cmocka_unit_test(places_abstract_names_follow_the_topology),
        cmocka_unit_test(places_threads_go_core_by_core_not_by_number),
        cmocka_unit_test(places_numa_domains_come_in_node_number_order),
        cmocka_unit_test(places_are_cut_to_the_rank_cpuset),
        cmocka_unit_test(places_explicit_lists_strides_intervals_and_exclusions),
        cmocka_unit_test(places_reject_unknown_names_and_bad_lists),
        cmocka_unit_test(bind_parses_first_level_of_a_list),
        cmocka_unit_test(assign_spread_cores_appends_rows_for_each_rank),
        cmocka_unit_test(assign_unbound_cases_give_the_rank_cpuset_and_no_place),
        cmocka_unit_test(assign_places_alone_bind_like_true_and_bind_alone_uses_threads),
        cmocka_unit_test(assign_more_threads_than_places_follows_libgomp),
        cmocka_unit_test(assign_errors_leave_the_plan_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
