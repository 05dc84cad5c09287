#include "app_result.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted copy of v[0..n), or NULL (n <= 0 or out of memory). */
static double *sorted(const double *v, int n)
{
    double *s = n > 0 ? malloc(sizeof *s * (size_t)n) : NULL;
    if (!s)
        return NULL;
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s;
}

static double middle(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double bl_result_median(const double *v, int n)
{
    double *s = sorted(v, n);
    double m = s ? middle(s, n) : 0.0;
    free(s);
    return m;
}

void bl_result_slowest(const double *times, int nranks, int iters,
                       double *iter_max)
{
    for (int it = 0; it < iters; it++) {
        iter_max[it] = 0.0;
        for (int q = 0; q < nranks; q++) {
            double t = times[(size_t)q * (size_t)iters + (size_t)it];
            if (t > iter_max[it])
                iter_max[it] = t;
        }
    }
}

void bl_result_summary(const double *iter_max, int iters, double amount,
                       double scale, bl_result_times *out)
{
    double *s = sorted(iter_max, iters);
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    out->min_s = s[0];
    out->max_s = s[iters - 1];
    out->median_s = middle(s, iters);
    free(s);
    out->rate = out->median_s > 0 && scale > 0
                    ? amount / out->median_s / scale
                    : 0.0;
}
