/* The distributed LU on one rank (MPI singleton, 1 x 1 grid) against a
 * plain dense Gaussian elimination, and the lu kernel's interface: bad
 * options, singular matrices, the wrong-pivot test hook, regions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>
#include <omp.h>

#include "kernel.h"
#include "lu/lu_mat.h"
#include "lu/lu_matgen.h"

/* Reference: dense GEPP on [A | b] from the generator, row-major. */
static void dense_solve(long n, uint64_t seed, double *x)
{
    double *a = malloc((size_t)(n * (n + 1)) * sizeof(double));
    long w = n + 1;
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= n; j++)
            a[i * w + j] = bl_lu_matgen(seed, i, j);
    for (long k = 0; k < n; k++) {
        long p = k;
        for (long i = k + 1; i < n; i++)
            if (fabs(a[i * w + k]) > fabs(a[p * w + k]))
                p = i;
        for (long j = 0; j <= n; j++) {
            double t = a[k * w + j];
            a[k * w + j] = a[p * w + j];
            a[p * w + j] = t;
        }
        for (long i = k + 1; i < n; i++) {
            double f = a[i * w + k] / a[k * w + k];
            for (long j = k; j <= n; j++)
                a[i * w + j] -= f * a[k * w + j];
        }
    }
    for (long i = n - 1; i >= 0; i--) {
        double s = a[i * w + n];
        for (long j = i + 1; j < n; j++)
            s -= a[i * w + j] * x[j];
        x[i] = s / a[i * w + i];
    }
    free(a);
}

static void lu_solution_matches_dense_elimination(void **state)
{
    static const struct { long n; int nb; } cases[] = {
        {1, 1}, {7, 3}, {50, 7}, {64, 16}, {131, 32}, {40, 40}};
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bl_lu_mat m;
        bl_err err;
        long n = cases[c].n;
        double *want = malloc((size_t)n * sizeof(double)), norms[4];
        assert_int_equal(bl_lu_mat_init(&m, MPI_COMM_WORLD, n, cases[c].nb, 1,
                                        1, &err), 0);
        bl_lu_mat_generate(&m, 42, 0);
        assert_int_equal(bl_lu_factor(&m, 0), -1);
        bl_lu_solve(&m);
        dense_solve(n, 42, want);
        for (long i = 0; i < n; i++)
            assert_true(fabs(m.x[i] - want[i]) <= 1e-9 * (1.0 + fabs(want[i])));
        assert_true(bl_lu_residual(&m, 42, norms) < 16.0);
        assert_true(norms[1] > 0.0 && norms[2] > 0.0);
        free(want);
        bl_lu_mat_free(&m);
    }
}

static void lu_factor_reports_first_exactly_zero_pivot(void **state)
{
    bl_lu_mat m;
    bl_err err;
    (void)state;
    assert_int_equal(bl_lu_mat_init(&m, MPI_COMM_WORLD, 60, 8, 1, 1, &err),
                     0);
    bl_lu_mat_generate(&m, 3, 0);
    /* a zero column stays zero under elimination: singular at column 21 */
    for (long r = 0; r < m.mloc; r++)
        BL_LU_A(&m, r, 21) = 0.0;
    assert_int_equal(bl_lu_factor(&m, 0), 21);
    bl_lu_mat_free(&m);
}

static void lu_wrong_pivot_hook_fails_the_residual_check(void **state)
{
    bl_lu_mat m;
    bl_err err;
    (void)state;
    assert_int_equal(bl_lu_mat_init(&m, MPI_COMM_WORLD, 80, 16, 1, 1, &err),
                     0);
    bl_lu_mat_generate(&m, 5, 0);
    assert_int_equal(bl_lu_factor(&m, 1), -1);
    bl_lu_solve(&m);
    assert_true(bl_lu_residual(&m, 5, NULL) > 1e3);
    /* and the same matrix without the hook passes */
    bl_lu_mat_generate(&m, 5, 0);
    assert_int_equal(bl_lu_factor(&m, 0), -1);
    bl_lu_solve(&m);
    assert_true(bl_lu_residual(&m, 5, NULL) < 16.0);
    bl_lu_mat_free(&m);
}

static bl_kernel_ctx make_ctx(bl_kernel_opts *o, int nthreads)
{
    bl_kernel_ctx c;
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    c.nranks = 1;
    c.nthreads = nthreads;
    c.local_ranks = 1;
    c.opts = o;
    return c;
}

static void lu_setup_rejects_bad_options_naming_them(void **state)
{
    const bl_kernel *k = bl_kernel_find("lu");
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_err err;
    (void)state;
    assert_non_null(k);
    memset(&o, 0, sizeof o);
    o.n = -5;
    c = make_ctx(&o, 1);
    assert_int_equal(k->setup(&c, &err), -1);
    assert_non_null(strstr(err.msg, "--n"));
    o.n = 10;
    o.nb = -1;
    assert_int_equal(k->setup(&c, &err), -1);
    assert_non_null(strstr(err.msg, "--nb"));
    o.nb = 4;
    o.grid[0] = 2;
    o.grid[1] = 2;
    o.grid_dims = 2;
    assert_int_equal(k->setup(&c, &err), -1);
    assert_non_null(strstr(err.msg, "--grid"));
    o.grid_dims = 0;
    o.n = 1L << 24; /* 128 TiB of matrix */
    assert_int_equal(k->setup(&c, &err), -1);
    assert_non_null(strstr(err.msg, "--n"));
    assert_null(c.state);
}

static void lu_kernel_verifies_and_reports_singular(void **state)
{
    const bl_kernel *k = bl_kernel_find("lu");
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_verify v;
    bl_err err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.n = 97;
    o.nb = 200; /* more than N: one block */
    c = make_ctx(&o, omp_get_max_threads());
    assert_int_equal(k->setup(&c, &err), 0);
    k->first_touch(&c);
    for (int it = 0; it < 2; it++) { /* the second step needs before_step */
        k->before_step(&c);
        assert_int_equal(k->step(&c, &err), 0);
    }
    memset(&v, 0, sizeof v);
    k->verify(&c, &v);
    assert_int_equal(v.verified, 1);
    assert_true(v.error < 16.0);
    assert_non_null(strstr(v.detail, "PASSED"));
    k->teardown(&c);

    o.test_hook = 2;
    assert_int_equal(k->setup(&c, &err), 0);
    k->first_touch(&c);
    assert_int_equal(k->step(&c, &err), 0);
    k->verify(&c, &v);
    assert_int_equal(v.verified, 0);
    assert_non_null(strstr(v.detail, "singular"));
    k->teardown(&c);
}

static void lu_regions_give_each_thread_its_round_robin_blocks(void **state)
{
    const bl_kernel *k = bl_kernel_find("lu");
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_region r[16];
    bl_err err;
    const bl_lu_mat *m;
    size_t nreg, blocks = 0;
    (void)state;
    memset(&o, 0, sizeof o);
    o.n = 100;
    o.nb = 9;          /* 101 columns -> 12 blocks, the last partial */
    c = make_ctx(&o, 5);
    assert_int_equal(k->setup(&c, &err), 0);
    m = c.state;       /* bl_lu_mat is the state's first member */
    nreg = k->regions(&c, r, 16);
    assert_int_equal(nreg, 3); /* rounds of 5, 5, 2 blocks */
    for (size_t i = 0; i < nreg; i++) {
        size_t block_bytes = (size_t)m->nb * (size_t)m->lld * sizeof(double);
        assert_int_equal(r[i].unit_bytes, block_bytes);
        for (int t = 0; t < 5; t++) {
            size_t lo, hi;
            bl_static_range(r[i].units, 5, t, &lo, &hi);
            if (lo < hi) {
                /* thread t's unit is block i*5 + t, as schedule(static,1) */
                size_t block = ((const char *)r[i].base - (const char *)m->a)
                               / block_bytes + lo;
                assert_int_equal(block % 5, (size_t)t);
                assert_int_equal(hi - lo, 1);
            }
        }
        blocks += r[i].units;
    }
    assert_int_equal(blocks, (size_t)m->nlblocks);
    assert_true(blocks * (size_t)m->nb * (size_t)m->lld * sizeof(double)
                <= m->a_bytes);
    k->teardown(&c);
}

/* The look-ahead inside a rank: the master factorises panel k+1 while the
 * other threads update with panel k. With 1, 2 and 3 threads (3 gives the
 * master's blocks to two helpers), on orders that leave a partial last
 * panel sharing its block with b (n % nb != 0) and on whole blocks, the
 * solution matches the dense elimination and passes HPL's residual. */
static void lu_lookahead_threads_match_dense_elimination(void **state)
{
    static const struct { long n; int nb; } cases[] = {
        {10, 4}, {97, 8}, {203, 16}, {256, 32}, {301, 64}};
    int saved = omp_get_max_threads();
    (void)state;
    for (int th = 1; th <= 3; th++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            bl_lu_mat m;
            bl_err err;
            long n = cases[c].n;
            double *want = malloc((size_t)n * sizeof(double));
            omp_set_num_threads(th);
            assert_int_equal(bl_lu_mat_init(&m, MPI_COMM_WORLD, n,
                                            cases[c].nb, 1, 1, &err), 0);
            assert_int_equal(m.threads, th);
            bl_lu_mat_generate(&m, 7, 0);
            assert_int_equal(bl_lu_factor(&m, 0), -1);
            bl_lu_solve(&m);
            dense_solve(n, 7, want);
            for (long i = 0; i < n; i++)
                assert_true(fabs(m.x[i] - want[i]) <=
                            1e-9 * (1.0 + fabs(want[i])));
            assert_true(bl_lu_residual(&m, 7, NULL) < 16.0);
            free(want);
            bl_lu_mat_free(&m);
        }
    omp_set_num_threads(saved);
}

/* The time split of a step: six phases with the documented names, none
 * negative, adding up to the step's time, its first lap's start to its
 * last lap's end (so a phase counted twice or a stretch counted in none
 * shows). The laps are whole nanoseconds and tile the step exactly; in
 * seconds only the double rounding of six conversions and five sums is
 * left, under 1e-14 of the total, far below one nanosecond of it. */
static void lu_time_split_adds_up_to_the_step(void **state)
{
    static const char *names[] = {"panel", "bcast", "swap", "update",
                                  "wait", "solve"};
    const bl_kernel *k = bl_kernel_find("lu");
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_err err;
    bl_phase ph[16];
    (void)state;
    assert_non_null(k->time_split);
    for (int th = 1; th <= 2; th++) {
        double sum = 0.0;
        size_t n;
        memset(&o, 0, sizeof o);
        o.n = 400;
        o.nb = 32;
        omp_set_num_threads(th);
        c = make_ctx(&o, th);
        assert_int_equal(k->setup(&c, &err), 0);
        k->first_touch(&c);
        assert_int_equal(k->step(&c, &err), 0);
        n = k->time_split(&c, ph, 16);
        assert_int_equal(n, 6);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(ph[i].name, names[i]);
            assert_true(ph[i].seconds >= 0.0);
            assert_true(ph[i].total == ph[0].total);
            sum += ph[i].seconds;
        }
        assert_true(ph[0].total > 0.0);
        /* the panel and update did work: neither can be zero */
        assert_true(ph[0].seconds > 0.0 && ph[3].seconds > 0.0);
        assert_true(fabs(sum - ph[0].total) <= 1e-14 * ph[0].total);
        k->teardown(&c);
    }
}

/* NB by order when --nb is not given (docs/kernels/lu.md's table), and
 * the kernel taking it: its "nb" metric after setup with N = 3000. */
static void lu_default_nb_follows_the_order(void **state)
{
    const bl_kernel *k = bl_kernel_find("lu");
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_err err;
    bl_metric mt[32];
    size_t n;
    double nb = -1;
    (void)state;
    assert_int_equal(bl_lu_default_nb(100), 128);
    assert_int_equal(bl_lu_default_nb(2000), 128);
    assert_int_equal(bl_lu_default_nb(2001), 192);
    assert_int_equal(bl_lu_default_nb(6000), 192);
    assert_int_equal(bl_lu_default_nb(6001), 256);
    assert_int_equal(bl_lu_default_nb(100000), 256);
    memset(&o, 0, sizeof o);
    o.n = 3000;
    c = make_ctx(&o, 1);
    assert_int_equal(k->setup(&c, &err), 0);
    n = k->metrics(&c, mt, 32);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mt[i].name, "nb") == 0)
            nb = mt[i].value;
    assert_true(nb == 192.0);
    k->teardown(&c);
}

int main(int argc, char **argv)
{
    int provided, rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lu_solution_matches_dense_elimination),
        cmocka_unit_test(lu_factor_reports_first_exactly_zero_pivot),
        cmocka_unit_test(lu_wrong_pivot_hook_fails_the_residual_check),
        cmocka_unit_test(lu_setup_rejects_bad_options_naming_them),
        cmocka_unit_test(lu_kernel_verifies_and_reports_singular),
        cmocka_unit_test(lu_regions_give_each_thread_its_round_robin_blocks),
        cmocka_unit_test(lu_lookahead_threads_match_dense_elimination),
        cmocka_unit_test(lu_time_split_adds_up_to_the_step),
        cmocka_unit_test(lu_default_nb_follows_the_order),
    };
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
