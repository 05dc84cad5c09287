/* A/B statistics (abstats.h). */
#include "results/abstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* quantile of an already sorted array */
static double sorted_quantile(const double *s, size_t n, double q)
{
    double h;
    size_t k;
    if (n == 0)
        return NAN;
    h = (double)(n - 1) * (q < 0 ? 0 : q > 1 ? 1 : q);
    k = (size_t)floor(h);
    if (k + 1 >= n)
        return s[n - 1];
    return s[k] + (h - (double)k) * (s[k + 1] - s[k]);
}

double bl_stats_quantile(const double *v, size_t n, double q)
{
    double *s, r;
    if (n == 0 || !(s = malloc(n * sizeof *s)))
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    r = sorted_quantile(s, n, q);
    free(s);
    return r;
}

double bl_stats_median(const double *v, size_t n)
{
    return bl_stats_quantile(v, n, 0.5);
}

/* splitmix64: small, fixed-seed, good enough to resample */
static uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double resampled_median(const double *v, size_t n, double *tmp,
                               uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = v[next(rng) % n];
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return sorted_quantile(tmp, n, 0.5);
}

int bl_stats_boot_ratio(const double *a, size_t na, const double *b,
                        size_t nb, int iters, uint64_t seed, double level,
                        double *lo, double *hi)
{
    double *ra, *tmp;
    uint64_t rng = seed;
    int k = 0;
    if (na == 0 || nb == 0 || iters < 1)
        return -1;
    ra = malloc((size_t)iters * sizeof *ra);
    tmp = malloc((na > nb ? na : nb) * sizeof *tmp);
    if (!ra || !tmp) {
        free(ra);
        free(tmp);
        return -1;
    }
    for (int i = 0; i < iters; i++) {
        double ma = resampled_median(a, na, tmp, &rng);
        double mb = resampled_median(b, nb, tmp, &rng);
        if (ma != 0)
            ra[k++] = mb / ma;
    }
    free(tmp);
    if (k == 0) {
        free(ra);
        return -1;
    }
    qsort(ra, (size_t)k, sizeof *ra, cmp_double);
    *lo = sorted_quantile(ra, (size_t)k, (1 - level) / 2);
    *hi = sorted_quantile(ra, (size_t)k, 1 - (1 - level) / 2);
    free(ra);
    return 0;
}

/* Exact two-sided p of U = u (pairs with a > b) for m and n values
 * without ties: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u), the largest
 * value being an a (beating all n b's) or a b. Counts as doubles
 * (C(40, 20) ~ 1.4e11 is exact in a double). */
static double exact_p(size_t m, size_t n, double u)
{
    size_t umax = m * n, w = umax + 1;
    double *f = calloc((m + 1) * (n + 1) * w, sizeof *f), below = 0,
           above = 0, total = 0, p;
#define F(i, j, k) f[((i) * (n + 1) + (j)) * w + (k)]
    if (!f)
        return NAN;
    for (size_t i = 0; i <= m; i++)
        for (size_t j = 0; j <= n; j++)
            for (size_t k = 0; k <= i * j; k++) {
                if (i == 0 || j == 0) {
                    F(i, j, k) = k == 0;
                    continue;
                }
                F(i, j, k) = (k >= j ? F(i - 1, j, k - j) : 0) + F(i, j - 1, k);
            }
    for (size_t k = 0; k <= umax; k++) {
        double c = F(m, n, k);
        total += c;
        if ((double)k <= u)
            below += c;
        if ((double)k >= u)
            above += c;
    }
#undef F
    free(f);
    p = 2 * (below < above ? below : above) / total;
    return p > 1 ? 1 : p;
}

typedef struct {
    double v;
    int from_a;
} item;

static int cmp_item(const void *x, const void *y)
{
    return cmp_double(&((const item *)x)->v, &((const item *)y)->v);
}

double bl_stats_mann_whitney_p(const double *a, size_t na, const double *b,
                               size_t nb)
{
    size_t n = na + nb;
    item *it;
    double ra = 0, ties = 0, u, mu, var, z;
    int tied = 0;
    if (na == 0 || nb == 0 || !(it = malloc(n * sizeof *it)))
        return NAN;
    for (size_t i = 0; i < na; i++)
        it[i] = (item){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        it[na + i] = (item){b[i], 0};
    qsort(it, n, sizeof *it, cmp_item);
    /* average ranks (1-based) over runs of equal values */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && it[j].v == it[i].v)
            j++;
        double rank = (double)(i + 1 + j) / 2, t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            if (it[k].from_a)
                ra += rank;
        if (t > 1) {
            tied = 1;
            ties += t * t * t - t;
        }
        i = j;
    }
    free(it);
    u = ra - (double)na * (double)(na + 1) / 2;
    if (!tied && n <= 40)
        return exact_p(na, nb, u);
    mu = (double)na * (double)nb / 2;
    var = (double)na * (double)nb / 12 *
          ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
    if (var <= 0)
        return 1;
    z = (fabs(u - mu) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2.0));
}

/* P(Bin(n, 1/2) = i), from logs so that n in the thousands works. */
static double binom_half_pmf(size_t n, size_t i)
{
    return exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
               lgamma((double)(n - i) + 1) - (double)n * log(2.0));
}

static double at_most_one(double p)
{
    return p < 1 ? p : 1;
}

int bl_stats_median_ci(const double *v, size_t n, double level, double *lo,
                       double *hi, double *coverage)
{
    double *s, below, upto;
    size_t k = 1;
    if (n < 2 || !(s = malloc(n * sizeof *s)))
        return -1;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    /* the interval [x_(k), x_(n+1-k)] misses the median when k or more of
     * the n values fall on one side of it: 2 P(Bin(n, 1/2) <= k - 1).
     * The cumulative sums grow one term per k (a layout of 10,000 runs
     * costs 10,000 terms, not 10,000^2 / 8). */
    below = binom_half_pmf(n, 0);            /* P(<= k - 1) */
    upto = below + binom_half_pmf(n, 1);     /* P(<= k) */
    while (k + 1 <= n / 2 && 1 - 2 * at_most_one(upto) >= level) {
        k++;
        below = upto;
        upto += binom_half_pmf(n, k);
    }
    *lo = s[k - 1];
    *hi = s[n - k];
    if (coverage)
        *coverage = 1 - 2 * at_most_one(below);
    free(s);
    return 0;
}
