/* Showing a placement plan: table, TSV, node map and warnings, on plans
 * built by hand (the planner's own tests cover how plans are made). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "plan/plan_output.h"
#include "plan/plan_picture.h"
#include "topo.h"

#include "bl_test_cpus.h"
#include "bl_test_files.h"

/* A plan of nranks ranks bound to rank_pus[r] (NULL: unbound, all of
 * node), each running threads_per_rank threads; thread t of rank r gets
 * pus[r * threads_per_rank + t] (NULL: unbound, the rank's set). */
static void plan_make(bl_plan *p, hwloc_topology_t topo, int nranks,
                      const char *const *rank_pus, int threads_per_rank,
                      const char *const *pus)
{
    size_t nr = nranks > 0 ? (size_t)nranks : 1;
    memset(p, 0, sizeof *p);
    p->nranks = nranks;
    p->rank_pus = calloc(nr, sizeof *p->rank_pus);
    p->rank_bound = calloc(nr, sizeof *p->rank_bound);
    p->nthreads = nr * (size_t)(threads_per_rank > 0 ? threads_per_rank : 0);
    p->threads = calloc(p->nthreads ? p->nthreads : 1, sizeof *p->threads);
    for (int r = 0; r < nranks; r++) {
        p->rank_bound[r] = rank_pus[r] != NULL;
        p->rank_pus[r] = rank_pus[r]
            ? bl_test_set_of(rank_pus[r])
            : hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo));
        for (int t = 0; t < threads_per_rank; t++) {
            bl_plan_thread *th = &p->threads[r * threads_per_rank + t];
            const char *s = pus ? pus[r * threads_per_rank + t] : NULL;
            th->rank = r;
            th->thread = t;
            th->place = s ? t : -1;
            th->pus = s ? bl_test_set_of(s) : hwloc_bitmap_dup(p->rank_pus[r]);
        }
    }
    snprintf(p->launcher, sizeof p->launcher, "hand-made");
}

/* What a writer printed, in a malloc'ed string. */
typedef int (*writer)(FILE *, hwloc_topology_t, const bl_plan *);
static char *capture(writer w, hwloc_topology_t topo, const bl_plan *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(w(f, topo, p), 0);
    fclose(f);
    return buf;
}

static char *capture_map(hwloc_topology_t topo, const bl_plan *p, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(bl_plan_write_map(f, topo, p, width), 0);
    fclose(f);
    return buf;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int has_warning(const bl_plan_warning *w, size_t n,
                       bl_plan_warning_kind k)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].kind == k)
            return 1;
    return 0;
}

static const bl_plan_warning *get_warning(const bl_plan_warning *w, size_t n,
                                          bl_plan_warning_kind k)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].kind == k)
            return &w[i];
    fail_msg("warning kind %d missing", (int)k);
    return NULL;
}

/* Plans built by hand and what each writer prints for them, worked out
 * from the topology. Each row: the topology, the ranks' PUs (NULL:
 * unbound), threads per rank and their PUs (none given: each thread
 * floats over its rank's set), and the writer's whole output. */
enum { OUT_TSV, OUT_TABLE, OUT_MAP80 };
static const struct {
    const char *what, *topo;
    int nranks;
    const char *ranks[2];
    int tpr;
    const char *threads[4];
    int wide_place0; /* thread 0 bound to its place of several cores */
    int format;
    const char *out;
} outputs[] = {
    /* Skylake numbers PUs across packages: core 0 is PUs 0 and 36, package
     * 0 holds the even PUs. The TSV names PUs by OS index, the rest
     * logically. */
    {"tsv: PUs by OS index, levels logically", "Intel-Skylake-2xXeon6140.xml",
     2, {"0,36", "1,37"}, 2, {"0", "36", "1", "37"}, 0, OUT_TSV,
     "rank\tthread\tpus\tcore\tl3\tnuma\tpackage\n"
     "0\t0\t0\t0\t0\t0\t0\n"
     "0\t1\t36\t0\t0\t0\t0\n"
     "1\t0\t1\t18\t1\t0\t1\n"
     "1\t1\t37\t18\t1\t0\t1\n"},
    /* A rank over a whole package: list forms in every column. */
    {"tsv: spanning sets as lists", "pack:2 numa:2 l3:2 core:2 pu:2",
     2, {"0-15", "16-31"}, 1, {NULL}, 0, OUT_TSV,
     "rank\tthread\tpus\tcore\tl3\tnuma\tpackage\n"
     "0\t0\t0-15\t0-7\t0-3\t0-1\t0\n"
     "1\t0\t16-31\t8-15\t4-7\t2-3\t1\n"},
    {"table: an unbound thread has no place", "pack:1 core:2 pu:1",
     1, {"0-1"}, 2, {NULL}, 0, OUT_TABLE,
     "rank  thread  place  PUs  core  L3  NUMA  package\n"
     "   0       0      -  0-1  0-1   -   0     0\n"
     "   0       1      -  0-1  0-1   -   0     0\n"},
    /* One package line per package, a cell per core: pinned threads, SMT
     * sharing, idle cores. Rank 0: one thread per core; rank 1: two
     * threads on core 4 (SMT). */
    {"map: threads per core, idle cores", "pack:2 l3:2 core:2 pu:2",
     2, {"0-3", "8-11"}, 2, {"0-1", "2-3", "8", "9"}, 0, OUT_MAP80,
     "package 0: 4 cores, NUMA 0, L3 0-1\n"
     "  L3 0 [  0.0   0.1] L3 1 [    .     .]\n"
     "package 1: 4 cores, NUMA 0, L3 2-3\n"
     "  L3 2 [1.0+1     .] L3 3 [    .     .]\n"
     "(r.t: thread t of rank r; +n: n more share the core; "
     "~: bound to a wider place;\n"
     " r.*: rank r's threads are not bound; .: idle)\n"},
    /* rank 0's thread bound to its place of 2 cores, rank 1 unbound. */
    {"map: floating and wide places", "pack:1 numa:2 core:2 pu:1",
     2, {"0-1", NULL}, 1, {NULL}, 1, OUT_MAP80,
     "package 0: 4 cores, NUMA 0-1\n"
     "  NUMA 0 [0.0~+1 0.0~+1] NUMA 1 [   1.*    1.*]\n"
     "(r.t: thread t of rank r; +n: n more share the core; "
     "~: bound to a wider place;\n"
     " r.*: rank r's threads are not bound; .: idle)\n"},
};

static void plan_writers_print_the_hand_worked_output(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        hwloc_topology_t topo = bl_test_topology(outputs[i].topo);
        bl_plan p;
        char *out;
        print_message("%s\n", outputs[i].what);
        plan_make(&p, topo, outputs[i].nranks, outputs[i].ranks,
                  outputs[i].tpr, outputs[i].threads[0] ? outputs[i].threads
                                                        : NULL);
        if (outputs[i].wide_place0)
            p.threads[0].place = 0;
        out = outputs[i].format == OUT_TSV
                  ? capture(bl_plan_write_tsv, topo, &p)
              : outputs[i].format == OUT_TABLE
                  ? capture(bl_plan_write_table, topo, &p)
                  : capture_map(topo, &p, 80);
        assert_string_equal(out, outputs[i].out);
        free(out);
        bl_plan_free(&p);
        hwloc_topology_destroy(topo);
    }
}

/* Columns line up: every row starts its PUs column at the same offset. */
static void plan_table_aligns_columns(void **state)
{
    hwloc_topology_t topo = bl_test_topology("pack:2 core:8 pu:2");
    static const char *const ranks[] = {"0-1", "2-3", "4-5", "6-7", "8-9",
                                        "10-11", "12-13", "14-15", "16-17",
                                        "18-19", "20-31"};
    bl_plan p;
    char *out, *line, *save = NULL;
    long col = -1;
    int rows = 0;
    (void)state;
    plan_make(&p, topo, 11, ranks, 1, NULL);
    p.threads[0].place = -1;
    out = capture(bl_plan_write_table, topo, &p);
    assert_non_null(strstr(out, "rank  thread  place  PUs"));
    for (line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), rows++) {
        /* The PUs column follows "place" (right-aligned) and two blanks. */
        const char *pl = rows == 0 ? strstr(line, "PUs")
                                   : line + strlen("rank  thread  place  ");
        if (col < 0)
            col = pl - line;
        assert_int_equal(pl - line, col);
        assert_true(line[strlen(line) - 1] != ' ');
    }
    assert_int_equal(rows, 12);
    free(out);
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

/* The 2x EPYC 9654, pure MPI with 384 single-PU ranks: every line fits
 * in 80 (and 132) columns, each L3 group stays whole or wraps, and every
 * rank appears once per core cell. */
static void plan_map_fits_terminal_width_on_epyc(void **state)
{
    hwloc_topology_t topo = bl_test_topology("AMD-19h-Zen4-2xEpyc-9654.xml");
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    static const int widths[] = {80, 132};
    char **ranks = calloc(n > 0 ? (size_t)n : 1, sizeof *ranks);
    bl_plan p;
    (void)state;
    assert_int_equal(n, 384);
    for (int r = 0; r < n; r++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU,
                                               (unsigned)r);
        ranks[r] = malloc(16);
        snprintf(ranks[r], 16, "%u", pu->os_index);
    }
    plan_make(&p, topo, n, (const char *const *)ranks, 1,
              (const char *const *)ranks);
    for (size_t w = 0; w < 2; w++) {
        char *out = capture_map(topo, &p, widths[w]), *save = NULL, *line;
        int cells = 0;
        for (line = strtok_r(out, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            assert_true(strlen(line) <= (size_t)widths[w]);
            for (char *c = line; (c = strstr(c, ".0+1")) != NULL; c++)
                cells++;
        }
        /* 192 cores, two single-thread ranks on each. */
        assert_int_equal(cells, 192);
        free(out);
    }
    {
        char *out = capture_map(topo, &p, 80);
        /* Per package a line, then one line per L3 (8 cells of 7
         * characters fit only once in 80 columns); the legend. */
        assert_int_equal(count_lines(out), 2 * (1 + 12) + 2);
        assert_non_null(strstr(out, "package 1: 96 cores, NUMA 1, L3 12-23"));
        free(out);
    }
    for (int r = 0; r < n; r++)
        free(ranks[r]);
    free(ranks);
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

/* Plans built by hand and the warnings each gets, worked out from the
 * topology: W_IS the whole text, W_HAS a part of it, W_NOT no warning of
 * that kind, W_NONE no warning at all. */
enum { W_END, W_IS, W_HAS, W_NOT, W_NONE };
static const struct {
    const char *what, *topo;
    int nranks;
    const char *ranks[4];
    int tpr;
    const char *threads[8];
    struct {
        int how;
        bl_plan_warning_kind kind;
        const char *text;
    } want[5];
} warnings[] = {
    /* One rank per package, a thread on each core: nothing to warn about. */
    {"one rank per package, filled", "pack:2 core:4 pu:1",
     2, {"0-3", "4-7"}, 4, {"0", "1", "2", "3", "4", "5", "6", "7"},
     {{W_NONE, 0, NULL}}},
    /* Both ranks sit on package 0, none on package 1. */
    {"idle cores", "pack:2 core:4 pu:2", 2, {"0-1", "2-3"}, 1, {NULL},
     {{W_IS, BL_PLAN_W_IDLE_CORES,
       "6 of 8 cores are idle (no thread may run there): cores 2-7"},
      {W_HAS, BL_PLAN_W_UNEVEN_PACKAGES, "(ranks per package 0-1: 2,0)"},
      {W_NOT, BL_PLAN_W_SMT_SHARED, NULL}}},
    /* core 0: two threads on its two PUs (SMT); core 1: two on PU 2. */
    {"SMT and time sharing", "pack:1 core:4 pu:2", 1, {"0-3"}, 4,
     {"0", "1", "2", "2"},
     {{W_HAS, BL_PLAN_W_SMT_SHARED, "on 1 core ("},
      {W_HAS, BL_PLAN_W_SMT_SHARED, "cores 0"},
      {W_HAS, BL_PLAN_W_PU_SHARED, "1 core has more threads pinned"},
      {W_NOT, BL_PLAN_W_OVERLOADED, NULL}}},
    {"more threads than PUs", "pack:1 core:2 pu:1", 2, {"0", "1"}, 3, {NULL},
     {{W_IS, BL_PLAN_W_OVERLOADED,
       "ranks 0-1 have more threads than PUs (rank 0: 3 threads on 1 PU); "
       "the node runs 6 threads on 2 PUs, so threads take turns on a PU"}}},
    /* NPS4-like: rank 0 over two NUMA nodes of package 0, rank 1 over both
     * packages, rank 2 unbound. No bound rank lies within one NUMA node:
     * nothing to count. */
    {"spanning NUMA nodes and packages", "pack:2 numa:2 core:2 pu:1",
     3, {"0-3", "2-5", NULL}, 1, {NULL},
     {{W_HAS, BL_PLAN_W_SPANS_NUMA,
       "ranks 0-1 span several NUMA nodes (rank 0: NUMA node 0-1)"},
      {W_HAS, BL_PLAN_W_SPANS_PACKAGE,
       "rank 1 spans several packages (rank 1: package 0-1)"},
      {W_HAS, BL_PLAN_W_UNBOUND, "rank 2 is not bound"},
      {W_NOT, BL_PLAN_W_UNEVEN_NUMA, NULL},
      {W_NOT, BL_PLAN_W_IDLE_CORES, NULL}}},
    /* Two ranks per NUMA node, which has one L3: each L3 serves two. */
    {"shared L3, even NUMA", "pack:1 numa:2 l3:1 core:4 pu:1",
     4, {"0-1", "2-3", "4-5", "6-7"}, 1, {NULL},
     {{W_NOT, BL_PLAN_W_UNEVEN_NUMA, NULL},
      {W_IS, BL_PLAN_W_L3_SHARED,
       "2 L3 domains are shared by two or more ranks, which compete for "
       "the cache (L3 0: ranks 0-1): L3 0-1"}}},
    {"uneven NUMA", "pack:1 numa:2 l3:1 core:4 pu:1",
     3, {"0-1", "2-3", "4"}, 1, {NULL},
     {{W_HAS, BL_PLAN_W_UNEVEN_NUMA, "(ranks per NUMA node 0-1: 2,1)"}}},
};

static void plan_warnings_are_the_hand_worked_ones(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof warnings / sizeof warnings[0]; i++) {
        hwloc_topology_t topo = bl_test_topology(warnings[i].topo);
        bl_plan p;
        bl_plan_warning *w;
        size_t n;
        bl_err err;
        print_message("%s\n", warnings[i].what);
        plan_make(&p, topo, warnings[i].nranks, warnings[i].ranks,
                  warnings[i].tpr,
                  warnings[i].threads[0] ? warnings[i].threads : NULL);
        assert_int_equal(bl_plan_warnings(topo, &p, &w, &n, &err), 0);
        for (size_t k = 0; k < 5 && warnings[i].want[k].how != W_END; k++) {
            bl_plan_warning_kind kind = warnings[i].want[k].kind;
            const char *text = warnings[i].want[k].text;
            switch (warnings[i].want[k].how) {
            case W_IS:
                assert_string_equal(get_warning(w, n, kind)->text, text);
                break;
            case W_HAS:
                assert_non_null(strstr(get_warning(w, n, kind)->text, text));
                break;
            case W_NOT:
                assert_false(has_warning(w, n, kind));
                break;
            case W_NONE:
                for (size_t j = 0; j < n; j++)
                    print_message("unexpected: %s\n", w[j].text);
                assert_int_equal(n, 0);
                assert_null(w);
                break;
            }
        }
        free(w);
        bl_plan_free(&p);
        hwloc_topology_destroy(topo);
    }
}

/* A refused layout has no ranks: no rows, no warnings. */
static void plan_output_of_refused_plan_is_empty(void **state)
{
    hwloc_topology_t topo = bl_test_topology("pack:1 core:2 pu:1");
    bl_plan p;
    bl_plan_warning *w;
    size_t n;
    bl_err err;
    char *out;
    (void)state;
    memset(&p, 0, sizeof p);
    snprintf(p.refusal, sizeof p.refusal, "not enough slots");
    out = capture(bl_plan_write_tsv, topo, &p);
    assert_string_equal(out, "rank\tthread\tpus\tcore\tl3\tnuma\tpackage\n");
    free(out);
    assert_int_equal(bl_plan_warnings(topo, &p, &w, &n, &err), 0);
    assert_int_equal(n, 0);
    hwloc_topology_destroy(topo);
}

static void plan_picture_format_follows_extension(void **state)
{
    (void)state;
    assert_string_equal(bl_plan_picture_format("a/b.png"), "png");
    assert_string_equal(bl_plan_picture_format("x.SVG"), "svg");
    assert_string_equal(bl_plan_picture_format("x.y.pdf"), "pdf");
    assert_null(bl_plan_picture_format("x.gif"));
    assert_null(bl_plan_picture_format("png"));
}

/* The name of the first Misc child of o, or NULL. */
static const char *misc_name(hwloc_obj_t o)
{
    return o->misc_first_child ? o->misc_first_child->name : NULL;
}

/* Pinned threads are named on their PU or core, a floating rank once on
 * the object covering its binding; the input topology is left alone. */
static void plan_picture_labels_cores_pus_and_floating_ranks(void **state)
{
    hwloc_topology_t topo = bl_test_topology("pack:2 core:2 pu:2"), t;
    static const char *const ranks[] = {"0-3", NULL};
    /* rank 0: thread 0 on PU 0, thread 1 on core 1 (PUs 2-3). */
    static const char *const threads[] = {"0", "2-3", NULL, NULL};
    bl_plan p;
    bl_err err;
    (void)state;
    plan_make(&p, topo, 2, ranks, 2, threads);
    assert_int_equal(bl_plan_picture_topology(topo, &p, &t, &err), 0);
    assert_string_equal(misc_name(hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0)),
                        "0.0");
    assert_null(misc_name(hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 1)));
    assert_string_equal(
        misc_name(hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, 1)), "0.1");
    assert_string_equal(misc_name(hwloc_get_root_obj(t)),
                        "rank 1: threads float");
    assert_int_equal(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_MISC), 3);
    assert_non_null(hwloc_obj_get_info_by_name(
        hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0), "lstopoStyle"));
    assert_null(hwloc_obj_get_info_by_name(
        hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 4), "lstopoStyle"));
    assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_MISC), 0);
    hwloc_topology_destroy(t);
    bl_plan_free(&p);
    hwloc_topology_destroy(topo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_writers_print_the_hand_worked_output),
        cmocka_unit_test(plan_table_aligns_columns),
        cmocka_unit_test(plan_map_fits_terminal_width_on_epyc),
        cmocka_unit_test(plan_warnings_are_the_hand_worked_ones),
        cmocka_unit_test(plan_output_of_refused_plan_is_empty),
        cmocka_unit_test(plan_picture_format_follows_extension),
        cmocka_unit_test(plan_picture_labels_cores_pus_and_floating_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
