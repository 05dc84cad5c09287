/* The result arithmetic (app/app_result.c) on numbers worked out by hand:
 * slowest rank per iteration, median of an odd and an even count, and the
 * rate as the work over the median. */
#include "bl_test.h"

#include <math.h>

#include "app_result.h"

#define assert_exact(got, want) assert_true((got) == (want))

/* 3 ranks x 4 iterations, each rank's iterations in a row:
 *   rank 0: 1.0 2.0 3.0 4.0
 *   rank 1: 1.5 1.0 3.5 2.0
 *   rank 2: 0.5 2.5 1.0 4.5
 * slowest per iteration: 1.5 (rank 1), 2.5 (rank 2), 3.5 (rank 1), 4.5
 * (rank 2): the maximum of each column, not of each rank. */
static const double times[] = {1.0, 2.0, 3.0, 4.0, 1.5, 1.0, 3.5, 2.0,
                               0.5, 2.5, 1.0, 4.5};

static void slowest_rank_per_iteration(void **state)
{
    double it[4];
    (void)state;
    bl_result_slowest(times, 3, 4, it);
    assert_exact(it[0], 1.5);
    assert_exact(it[1], 2.5);
    assert_exact(it[2], 3.5);
    assert_exact(it[3], 4.5);
}

static void median_of_odd_and_even_counts(void **state)
{
    static const double odd[] = {0.9, 0.1, 0.5, 0.7, 0.3}; /* sorted: .1 .3 .5 .7 .9 */
    static const double even[] = {4.0, 1.0, 3.0, 2.0};    /* (2 + 3) / 2 */
    static const double one[] = {7.25};
    double copy[5];
    (void)state;
    memcpy(copy, odd, sizeof odd);
    assert_exact(bl_result_median(odd, 5), 0.5);
    assert_memory_equal(copy, odd, sizeof odd); /* input left alone */
    assert_exact(bl_result_median(even, 4), 2.5);
    assert_exact(bl_result_median(one, 1), 7.25);
    assert_exact(bl_result_median(NULL, 0), 0.0);
    /* ties: 2, 2, 2, 9 -> (2 + 2) / 2 */
    assert_exact(bl_result_median((const double[]){2, 9, 2, 2}, 4), 2.0);
}

/* The slowest-rank times above, 1.5 2.5 3.5 4.5: min 1.5, max 4.5, median
 * (2.5 + 3.5) / 2 = 3.0. 24e9 bytes a step over 3.0 s = 8e9 B/s = 8 GB/s. */
static void summary_min_median_max_and_rate(void **state)
{
    double it[4];
    bl_result_times r;
    (void)state;
    bl_result_slowest(times, 3, 4, it);
    bl_result_summary(it, 4, 24e9, 1e9, &r);
    assert_exact(r.min_s, 1.5);
    assert_exact(r.max_s, 4.5);
    assert_exact(r.median_s, 3.0);
    assert_exact(r.rate, 8.0);
    /* Three iterations 0.2, 0.1, 0.4: median 0.2; 1000 points per step in
     * MLUP/s: 1000 / 0.2 / 1e6 = 0.005. */
    bl_result_summary((const double[]){0.2, 0.1, 0.4}, 3, 1000.0, 1e6, &r);
    assert_exact(r.median_s, 0.2);
    assert_true(fabs(r.rate - 0.005) <= 1e-18);
}

static void summary_of_no_time_has_no_rate(void **state)
{
    bl_result_times r;
    (void)state;
    bl_result_summary((const double[]){0.0, 0.0, 0.0}, 3, 100.0, 1.0, &r);
    assert_exact(r.median_s, 0.0);
    assert_exact(r.rate, 0.0); /* not inf */
    bl_result_summary(NULL, 0, 100.0, 1.0, &r);
    assert_exact(r.rate, 0.0);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest arithmetic[] = {
        cmocka_unit_test(slowest_rank_per_iteration),
        cmocka_unit_test(median_of_odd_and_even_counts),
        cmocka_unit_test(summary_min_median_max_and_rate),
        cmocka_unit_test(summary_of_no_time_has_no_rate),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("arithmetic", arithmetic),
    };
    return bl_run_groups(argc, argv, groups);
}
