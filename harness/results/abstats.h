/* Statistics for comparing two samples of rates or times (A/B): medians,
 * quantiles, a bootstrap confidence interval of the ratio of medians and
 * the Mann-Whitney rank test. Used by the report's ranking (ties), its
 * iteration-time charts and `bindlab compare`; no I/O. */
#ifndef BL_ABSTATS_H
#define BL_ABSTATS_H

#include <stddef.h>
#include <stdint.h>

/* Quantile q (0..1) of v[0..n), linear between order statistics (the
 * usual "type 7" of R and numpy's default). NAN when n is 0. */
double bl_stats_quantile(const double *v, size_t n, double q);
double bl_stats_median(const double *v, size_t n);

/* Percentile bootstrap of median(b) / median(a): `iters` resamples of
 * each sample (with replacement, a fixed-seed generator so the same
 * inputs give the same interval), interval [lo, hi] holding `level` (e.g.
 * 0.95) of the resampled ratios. -1 when a sample is empty, out of memory,
 * or a median of a is 0. */
int bl_stats_boot_ratio(const double *a, size_t na, const double *b,
                        size_t nb, int iters, uint64_t seed, double level,
                        double *lo, double *hi);

/* Two-sided p-value of the Mann-Whitney U (Wilcoxon rank-sum) test that a
 * and b come from one distribution: exact (counting every split of the
 * ranks) when na + nb <= 40 and there are no ties, else the normal
 * approximation with the tie correction. NAN when a sample is empty. */
double bl_stats_mann_whitney_p(const double *a, size_t na, const double *b,
                               size_t nb);

/* A distribution-free interval of the median of v[0..n): the order
 * statistics [x_(k), x_(n+1-k)] for the largest k whose coverage, 1 - 2
 * P(Bin(n, 1/2) <= k - 1), is at least `level` (e.g. 0.95). Below 6 values
 * no k reaches 95%: the interval is then [min, max] (k = 1, coverage 1 -
 * 2^(1-n), 93.75% for 5 values), and *coverage (may be NULL) says so.
 * -1 when n < 2 or out of memory. */
int bl_stats_median_ci(const double *v, size_t n, double level, double *lo,
                       double *hi, double *coverage);

#endif
