/* The triad kernel through its interface, on one rank (MPI singleton). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>
#include <omp.h>

#include "kernel.h"

void bl_triad_corrupt(bl_kernel_ctx *ctx, size_t index, double value);

static bl_kernel_opts opts;
static bl_kernel_ctx ctx;

static int set_up(void **state)
{
    const bl_kernel *k = bl_kernel_find("triad");
    bl_err err;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.size_bytes = 24 * 100003; /* a prime count of elements */
    memset(&ctx, 0, sizeof ctx);
    ctx.comm = MPI_COMM_WORLD;
    ctx.nranks = 1;
    ctx.nthreads = omp_get_max_threads();
    ctx.local_ranks = 1;
    ctx.opts = &opts;
    if (k->setup(&ctx, &err) < 0)
        return -1;
    k->first_touch(&ctx);
    return k->step(&ctx, &err);
}

static int tear_down(void **state)
{
    (void)state;
    bl_kernel_find("triad")->teardown(&ctx);
    return 0;
}

static void triad_verifies_exactly(void **state)
{
    bl_verify v;
    (void)state;
    bl_kernel_find("triad")->verify(&ctx, &v);
    assert_int_equal(v.verified, 1);
    assert_true(v.error == 0.0);
}

static void triad_verification_detects_one_corrupted_element(void **state)
{
    const bl_kernel *k = bl_kernel_find("triad");
    bl_verify v;
    (void)state;
    /* The smallest possible change: one ulp in the middle of the array. */
    bl_triad_corrupt(&ctx, 50001, 0x1.0000000000001p+10);
    k->verify(&ctx, &v);
    assert_int_equal(v.verified, 0);
    assert_non_null(strstr(v.detail, "a[50001]"));
    assert_non_null(strstr(v.detail, "1 of 100003"));
}

static void triad_counts_24_bytes_per_element(void **state)
{
    bl_work w;
    bl_region r[4];
    (void)state;
    bl_kernel_find("triad")->work(&ctx, &w);
    assert_true(w.bytes == 24.0 * 100003);
    assert_string_equal(w.rate_unit, "GB/s");
    assert_int_equal(bl_kernel_find("triad")->regions(&ctx, r, 4), 3);
    assert_int_equal(r[0].units, 100003);
}

static void triad_rejects_fewer_elements_than_threads(void **state)
{
    bl_kernel_opts o = {0};
    bl_kernel_ctx c = {0};
    bl_err err;
    (void)state;
    o.size_bytes = 24;
    c.comm = MPI_COMM_WORLD;
    c.nthreads = 4;
    c.local_ranks = 1;
    c.opts = &o;
    assert_int_equal(bl_kernel_find("triad")->setup(&c, &err), -1);
    assert_non_null(strstr(err.msg, "--size"));
    bl_kernel_find("triad")->teardown(&c);
}

/* The ranges tile [0, n) in thread order, and each index in thread t's
 * range is one libgomp's schedule(static) gives thread t. */
static void check_against_libgomp(int n, int nthreads)
{
    int *owner = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int team = 0;
    size_t next = 0;
    assert_non_null(owner);
    for (int i = 0; i < n; i++)
        owner[i] = -1;
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp single
        team = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
            owner[i] = omp_get_thread_num();
    }
    assert_int_equal(team, nthreads); /* else the comparison means nothing */
    for (int t = 0; t < nthreads; t++) {
        size_t lo, hi;
        bl_static_range((size_t)n, nthreads, t, &lo, &hi);
        assert_int_equal(lo, next);
        assert_true(hi >= lo);
        for (size_t i = lo; i < hi; i++)
            if (owner[i] != t)
                fail_msg("n %d, %d threads: index %zu is thread %d's in "
                         "bindlab, thread %d's in libgomp", n, nthreads, i, t,
                         owner[i]);
        next = hi;
    }
    assert_int_equal(next, (size_t)n);
    free(owner);
}

static void static_range_matches_libgomp(void **state)
{
    (void)state;
    /* OMP_DYNAMIC or a thread limit would give a smaller team. */
    omp_set_dynamic(0);
    check_against_libgomp(1001, 3);
    check_against_libgomp(1000, 4);
    check_against_libgomp(2, 3); /* fewer elements than threads */
    check_against_libgomp(0, 2);
    check_against_libgomp(7, 1);
}

/* Worked by hand: 1001 = 3 x 333 + 2, so the first two threads take one
 * more (libgomp's rule for schedule(static) without a chunk). */
static void static_range_splits_1001_over_3_as_334_334_333(void **state)
{
    size_t lo, hi;
    (void)state;
    bl_static_range(1001, 3, 0, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 334);
    bl_static_range(1001, 3, 1, &lo, &hi);
    assert_int_equal(lo, 334);
    assert_int_equal(hi, 668);
    bl_static_range(1001, 3, 2, &lo, &hi);
    assert_int_equal(lo, 668);
    assert_int_equal(hi, 1001);
    bl_static_range(2, 3, 2, &lo, &hi); /* the third thread gets nothing */
    assert_int_equal(hi - lo, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(triad_verifies_exactly, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(
            triad_verification_detects_one_corrupted_element, set_up,
            tear_down),
        cmocka_unit_test_setup_teardown(triad_counts_24_bytes_per_element,
                                        set_up, tear_down),
        cmocka_unit_test(triad_rejects_fewer_elements_than_threads),
        cmocka_unit_test(static_range_matches_libgomp),
        cmocka_unit_test(static_range_splits_1001_over_3_as_334_334_333),
    };
    int provided, rc;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
