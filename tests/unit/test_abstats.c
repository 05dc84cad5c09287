/* A/B statistics against values worked out by hand: quantiles, the exact
 * Mann-Whitney p-values of small samples (counting rank splits), the
 * normal approximation's range for a large separated sample, and bootstrap
 * intervals whose bounds follow from the samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "results/abstats.h"

static void quantiles(void **state)
{
    const double v[] = {4, 1, 3, 2};
    (void)state;
    assert_float_equal(bl_stats_median(v, 4), 2.5, 1e-12);
    /* h = (4 - 1) * 0.9 = 2.7: 3 + 0.7 * (4 - 3) */
    assert_float_equal(bl_stats_quantile(v, 4, 0.9), 3.7, 1e-12);
    assert_float_equal(bl_stats_quantile(v, 4, 1.0), 4.0, 1e-12);
    assert_float_equal(bl_stats_quantile(v, 1, 0.99), 4.0, 1e-12);
    assert_true(isnan(bl_stats_median(v, 0)));
}

static void mann_whitney_exact(void **state)
{
    const double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
    const double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
    const double x[] = {1, 3, 5}, y[] = {2, 4, 6};
    (void)state;
    /* separated 3 vs 3: one split of C(6,3) = 20 on each side: 2/20 */
    assert_float_equal(bl_stats_mann_whitney_p(a3, 3, b3, 3), 0.1, 1e-12);
    assert_float_equal(bl_stats_mann_whitney_p(b3, 3, a3, 3), 0.1, 1e-12);
    /* separated 5 vs 5: 2 / C(10,5) = 2/252 */
    assert_float_equal(bl_stats_mann_whitney_p(a5, 5, b5, 5), 2.0 / 252,
                       1e-12);
    /* interleaved: U = 3 (3>2, 5>2, 5>4); U counts for 3 vs 3 over 0..9
     * are 1 1 2 3 3 3 3 2 1 1: P(U <= 3) = 7/20, so p = 0.7 */
    assert_float_equal(bl_stats_mann_whitney_p(x, 3, y, 3), 0.7, 1e-12);
    assert_true(isnan(bl_stats_mann_whitney_p(x, 0, y, 3)));
}

static void mann_whitney_normal(void **state)
{
    double a[25], b[25], c[4] = {1, 1, 1, 1}, d[4] = {1, 1, 1, 1};
    (void)state;
    for (int i = 0; i < 25; i++) {
        a[i] = i;
        b[i] = 100 + i;
    }
    /* 50 values: the normal approximation. U = 0, mean 312.5, variance
     * 25 * 25 * 51 / 12 = 2656.25, z = 312 / 51.54 = 6.05: p ~ 1.4e-9 */
    double p = bl_stats_mann_whitney_p(a, 25, b, 25);
    assert_true(p > 1e-10 && p < 1e-8);
    /* all tied: no evidence at all */
    assert_float_equal(bl_stats_mann_whitney_p(c, 4, d, 4), 1.0, 1e-12);
}

static void bootstrap(void **state)
{
    const double a[] = {10, 10, 10}, b[] = {20, 20, 20};
    const double x[] = {1, 2, 3}, y[] = {1, 2, 3};
    double lo, hi, lo2, hi2;
    (void)state;
    /* constant samples: every resampled ratio is 2 */
    assert_int_equal(bl_stats_boot_ratio(a, 3, b, 3, 1000, 1, 0.95, &lo, &hi), 0);
    assert_float_equal(lo, 2.0, 1e-12);
    assert_float_equal(hi, 2.0, 1e-12);
    /* equal samples: the interval holds 1 and stays within the extreme
     * ratios min(y) / max(x) = 1/3 and max(y) / min(x) = 3 */
    assert_int_equal(bl_stats_boot_ratio(x, 3, y, 3, 2000, 7, 0.95, &lo, &hi), 0);
    assert_true(lo <= 1.0 && hi >= 1.0);
    assert_true(lo >= 1.0 / 3 && hi <= 3.0);
    /* the same seed gives the same interval */
    assert_int_equal(bl_stats_boot_ratio(x, 3, y, 3, 2000, 7, 0.95, &lo2, &hi2), 0);
    assert_float_equal(lo, lo2, 0);
    assert_float_equal(hi, hi2, 0);
    assert_int_equal(bl_stats_boot_ratio(x, 0, y, 3, 10, 1, 0.95, &lo, &hi), -1);
}

/* The order-statistic interval of the median, worked out by hand:
 * n = 5: no k reaches 95% (k = 2 covers 1 - 2*(1+5)/32 = 62.5%), so
 * [min, max] with 1 - 2/32 = 93.75%; n = 10: k = 2 covers 1 - 2*(1+10)/1024
 * = 97.85%, k = 3 only 1 - 2*56/1024 = 89.1%, so [x(2), x(9)]; n = 9: k = 2,
 * 1 - 2*10/512 = 96.09%; the input order does not matter. */
static void median_interval(void **state)
{
    double five[] = {3, 1, 5, 2, 4}, ten[10], nine[9], lo, hi, cov;
    (void)state;
    for (int i = 0; i < 10; i++)
        ten[i] = 10 - i;
    for (int i = 0; i < 9; i++)
        nine[i] = 7.0 + 0.1 * i;
    assert_int_equal(bl_stats_median_ci(five, 5, 0.95, &lo, &hi, &cov), 0);
    assert_true(lo == 1 && hi == 5);
    assert_true(fabs(cov - 0.9375) < 1e-12);
    assert_int_equal(bl_stats_median_ci(ten, 10, 0.95, &lo, &hi, &cov), 0);
    assert_true(lo == 2 && hi == 9);
    assert_true(fabs(cov - (1 - 22.0 / 1024)) < 1e-12);
    assert_int_equal(bl_stats_median_ci(nine, 9, 0.95, &lo, &hi, &cov), 0);
    assert_true(lo == nine[1] && hi == nine[7]);
    assert_true(fabs(cov - (1 - 20.0 / 512)) < 1e-12);
    assert_int_equal(bl_stats_median_ci(five, 1, 0.95, &lo, &hi, NULL), -1);
    assert_int_equal(bl_stats_median_ci(five, 0, 0.95, &lo, &hi, NULL), -1);
}

/* Large layouts (a merged file of 10,000 copies of one run):
 * the interval from exact binomial sums in Python's integers (fractions),
 * k = 40 for n = 100 (coverage 0.96479979978) and k = 4902 for n = 10,000
 * (coverage 0.95116705010); values 1..n shuffled, so x(k) = k. */
static void median_interval_large(void **state)
{
    static double v[10000];
    double lo, hi, cov;
    (void)state;
    for (int i = 0; i < 100; i++)
        v[i] = (double)((i * 37) % 100 + 1);
    assert_int_equal(bl_stats_median_ci(v, 100, 0.95, &lo, &hi, &cov), 0);
    assert_true(lo == 40 && hi == 61);
    assert_true(fabs(cov - 0.9647997997822951) < 1e-9);
    for (int i = 0; i < 10000; i++)
        v[i] = (double)((i * 7919) % 10000 + 1);
    assert_int_equal(bl_stats_median_ci(v, 10000, 0.95, &lo, &hi, &cov), 0);
    assert_true(lo == 4902 && hi == 5099);
    assert_true(fabs(cov - 0.9511670501036181) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles),
        cmocka_unit_test(mann_whitney_exact),
        cmocka_unit_test(mann_whitney_normal),
        cmocka_unit_test(bootstrap),
        cmocka_unit_test(median_interval),
        cmocka_unit_test(median_interval_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
